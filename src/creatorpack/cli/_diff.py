"""``creatorpack diff OLD NEW``: the semantic diff of two revisions and their save compatibility.

Exit codes, as diff(1) and ``git diff --exit-code``: 0 no semantic difference, 1 differences
(printed), 2 an input that cannot be read, is not a valid pack, or is a 0.2 pack (no runtime).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer

from creatorpack.cli import _output
from creatorpack.cli._output import complain
from creatorpack.contract.validation import validate
from creatorpack.errors import CreatorpackError, DocumentError, LimitError

__all__ = ["DiffFormat", "register"]


class DiffFormat(StrEnum):
    """The output formats of ``creatorpack diff``."""

    TEXT = "text"
    JSON = "json"


_LEVELS = {"fits": "fits", "by_plan": "by plan", "may_not_fit": "may not fit", "as_is": "as is", "cannot": "cannot"}


def register(app: typer.Typer) -> None:
    """Add the ``diff`` command to ``app``."""
    app.command("diff")(_diff_command)


def _diff_command(
    old: Annotated[Path, typer.Argument(help="The old revision of the pack (0.3, 0.4 or 0.5).")],
    new: Annotated[Path, typer.Argument(help="The new revision of the pack.")],
    output_format: Annotated[
        DiffFormat, typer.Option("--format", "-f", help="Output format.", case_sensitive=False)
    ] = DiffFormat.TEXT,
    save: Annotated[
        Path | None,
        typer.Option("--save", help="Also say whether this saved session (of OLD) loads into NEW, and how."),
    ] = None,
) -> None:
    """Compare two revisions of a pack: what changed (by id) and whether saved sessions still load.

    Exit 0 when there is no semantic difference, 1 when there are differences, 2 for bad input.
    """
    from creatorpack.diff import diff, migration_plan  # noqa: PLC0415 - the runtime loads only for diff

    try:
        before, after = _pack(old), _pack(new)
        result = diff(before, after)
        verdict = migration_plan(before, after).check(_save(save)) if save is not None else None
    except CreatorpackError as exc:
        complain(exc)
        raise typer.Exit(2) from None
    if output_format == DiffFormat.JSON:
        data = result.to_json()
        if verdict is not None:
            data["save"] = verdict.to_json()
        sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        sys.stdout.write(_text(result, verdict, old, new))
    raise typer.Exit(0 if result.empty else 1)


def _pack(path: Path) -> Mapping[str, Any]:
    try:
        report = validate(path)
    except DocumentError as exc:
        raise CreatorpackError(f"{_output.located(str(path), exc)}: {exc.code}: {exc}") from None
    if not report.valid or report.document is None:
        first = report.violations[0]
        count = len(report.violations)
        raise CreatorpackError(
            f"{path}: not a valid pack ({count} violation{'s' if count != 1 else ''}; first: "
            f"{first.pointer or '/'}: {first.message}); see creatorpack validate"
        )
    if report.version not in ("0.3", "0.4", "0.5"):
        raise CreatorpackError(f"{path}: a {report.version} pack has no runtime to compare; diff takes 0.3 to 0.5")
    return report.document


def _save(path: Path) -> Any:
    try:
        return orjson.loads(_output.read_limited(str(path)))
    except OSError as exc:
        raise CreatorpackError(f"{path}: cannot read the save: {exc.strerror or exc}") from None
    except LimitError as exc:
        raise CreatorpackError(f"{path}: cannot read the save: {exc.code}: {exc}") from None
    except orjson.JSONDecodeError as exc:
        raise CreatorpackError(f"{path}: the save is not JSON: {exc}") from None


def _text(result: Any, verdict: Any, old: Path, new: Path) -> str:
    lines = [f"{result.pack_id}: revision {result.old_revision} -> {result.new_revision} ({old} -> {new})"]
    if result.empty:
        lines.append("no semantic differences")
    section = None
    for change in result.changes:
        if change.section != section:
            section = change.section
            lines.append(f"{section}:")
        where = change.new if change.kind != "removed" else change.old
        moved = f" (was {change.old})" if None not in (change.old, change.new) and change.old != change.new else ""
        # A key that is its own pointer (the "other" section) is not printed twice.
        place = f"  {where}{moved}" if where != change.key or moved else ""
        detail = f"  {change.detail}" if change.detail else ""
        lines.append(f"  {change.kind:<9} {change.key}{place}{detail}")
    compat = result.compatibility
    lines.append(f"save compatibility: {_LEVELS[compat.level]}")
    shown = [m for m in compat.members if m.level != "fits" or m.reason not in ("unchanged", "object")]
    for member in shown:
        key = member.key if member.subject in ("state", "ids") else f"{member.subject} {member.key}".strip()
        lines.append(f"  {_LEVELS[member.level]:<11} {key}: {member.reason}")
    if len(shown) < len(compat.members):
        lines.append(f"  {len(compat.members) - len(shown)} other member(s) unchanged: fit")
    if verdict is not None:
        lines.append(f"this save: {_LEVELS[verdict.level]}")
        lines += [f"  {step.action} {step.pointer}: {step.detail}{_added(step)}" for step in verdict.steps]
        lines += [f"  does not fit {misfit.pointer}: {misfit.message}" for misfit in verdict.misfits]
    return "\n".join(lines) + "\n"


def _added(step: Any) -> str:
    """`` (value)`` for an ``add`` step: what it puts in the save, as JSON."""
    return f" ({orjson.dumps(step.value).decode()})" if step.action == "add" else ""

"""Creator workflow commands: ``upgrade``, ``init`` and ``hook`` (what the pre-commit hooks run).

Exit codes, as for ``validate``: 0 done; 1 the upgraded pack is not valid for its target (each
place is listed with its fix; nothing is written unless ``--force``); 2 a usage error or an input
that cannot be read or upgraded (a 0.2 pack, a downgrade), or ``init`` would overwrite a file.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer

from creatorpack.cli._files import write_atomically
from creatorpack.cli._output import complain, located, one_line, read_input
from creatorpack.cli._walk import declares_protocol_version
from creatorpack.contract.validation import MAX_BYTES, read_file
from creatorpack.errors import CreatorpackError, DocumentError

__all__ = ["is_pack_file", "register"]

_STDIN = "-"


def register(app: typer.Typer) -> None:
    """Add the ``upgrade``, ``init`` and ``hook`` commands to ``app``."""
    app.command("upgrade")(_upgrade_command)
    app.command("init")(_init_command)
    app.command("hook", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(_hook_for(app))


def _upgrade_command(
    pack: Annotated[str, typer.Argument(help="The pack file to upgrade, or '-' for standard input.")],
    to: Annotated[str, typer.Option("--to", help="Target contract version: 0.4 or 0.5.")] = "0.5",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the upgraded pack here (default: standard output).")
    ] = None,
    in_place: Annotated[bool, typer.Option("--in-place", "-i", help="Rewrite PACK itself.")] = False,  # noqa: FBT002
    bump_revision: Annotated[  # noqa: FBT002 - Typer declares flags as boolean defaults
        bool, typer.Option("--bump-revision", help="Add 1 to manifest.revision when anything changes.")
    ] = False,
    force: Annotated[  # noqa: FBT002
        bool, typer.Option("--force", help="Write the result even when it is not valid for its target (still exit 1).")
    ] = False,
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="Report format: text or json.", case_sensitive=False)
    ] = "text",
) -> None:
    """Upgrade a pack to a later contract version (0.3 → 0.4 → 0.5), keeping its layout and every value.

    The report goes to standard output when the pack is written to a file, else to standard error.
    Exit 0 when the result is valid for its target; 1 when it needs attention (listed, with fixes;
    nothing is written unless --force); 2 for a usage error or an input that cannot be upgraded.
    """
    from creatorpack.upgrade import TARGETS, upgrade  # noqa: PLC0415 - loads only for this command

    fmt = output_format.lower()
    if fmt not in ("text", "json"):
        raise typer.BadParameter(f"{output_format!r} is not one of text, json", param_hint="--format")
    if to not in TARGETS:
        raise typer.BadParameter(f"{to!r} is not one of {', '.join(TARGETS)}", param_hint="--to")
    if in_place and output is not None:
        raise typer.BadParameter("give either --output or --in-place, not both", param_hint="--in-place")
    if in_place and pack == _STDIN:
        raise typer.BadParameter("standard input cannot be rewritten in place", param_hint="--in-place")
    try:
        data = read_input(pack, MAX_BYTES, sys.stdin.buffer.read(MAX_BYTES + 1) if pack == _STDIN else None)
        result = upgrade(data, to=to, bump_revision=bump_revision)
    except CreatorpackError as exc:
        code = f"{exc.code}: " if isinstance(exc, DocumentError) else ""
        named = str(exc).startswith(f"{pack}:")  # a file that cannot be read is named by its message
        where = located(pack, exc) if isinstance(exc, DocumentError) else pack
        complain(f"{code}{exc}" if named else f"{where}: {code}{exc}")
        raise typer.Exit(2) from None
    target = Path(pack) if in_place else output
    write = result.valid or force
    written: str | None = None
    if write and target is not None and (result.changed or not in_place):
        try:
            write_atomically(target, result.data)
        except OSError as exc:
            complain(f"cannot write {target}: {exc.strerror or exc}")
            raise typer.Exit(2) from None
        written = str(target)
    elif write and target is None:
        sys.stdout.buffer.write(result.data)
        sys.stdout.flush()
        written = _STDIN
    report_stream = sys.stdout if target is not None else sys.stderr
    if fmt == "json":
        body = {"path": pack, "written": written, **result.to_dict()}
        report_stream.write(orjson.dumps(body, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        report_stream.write(_upgrade_text(pack, result, written, force=force))
    report_stream.flush()
    raise typer.Exit(0 if result.valid else 1)


def _upgrade_text(pack: str, result: Any, written: str | None, *, force: bool) -> str:
    lines = [f"{pack}: {result.source_version} → {result.target_version}"]
    if not result.changed:
        lines.append(f"  already {result.target_version}: nothing to change")
    lines += [f"  {change.pointer}: {change.what}" for change in result.changes]
    if result.attention:
        lines.append(f"needs attention ({len(result.attention)}): not valid for {result.target_version}")
        for item in result.attention:
            where = f" (line {item.line}, column {item.column})" if item.line is not None else ""
            already = " [already invalid before the upgrade]" if item.existing else ""
            lines.append(f"  {item.pointer or '/'}{where}: {item.message}{already}")
            lines.append(f"    fix: {item.fix}")
    if written is None and not result.valid and not force:
        lines.append("nothing written: fix the places above, or use --force to write the result anyway")
    elif written not in (None, _STDIN):
        lines.append(f"written to {one_line(str(written))}")
    return "\n".join(lines) + "\n"


def _init_command(
    directory: Annotated[Path, typer.Argument(help="Where to create the pack (created if missing).")] = Path(),
    version: Annotated[
        str | None, typer.Option("--version", help="Contract version: 0.3, 0.4 or 0.5 (default 0.5).")
    ] = None,
    title: Annotated[str | None, typer.Option("--title", help="The pack's title.")] = None,
    pack_id: Annotated[
        str | None,
        typer.Option("--pack-id", help="manifest.pack_id (default: from the title, with 6 random hex digits)."),
    ] = None,
    language: Annotated[
        str | None, typer.Option("--language", help="manifest.language: en, zh or zh-CN (default en).")
    ] = None,
) -> None:
    """Start a new pack: a minimal valid, lint-clean pack.json and a playthrough.jsonl that reaches its ending.

    Asks for what is not given when standard input is a terminal. Never overwrites a file (exit 2).
    """
    from creatorpack import scaffold  # noqa: PLC0415 - loads only for this command

    # Refuse before asking anything: answers typed for files that will not be written are wasted.
    if directory.exists() and not directory.is_dir():
        complain(f"{directory} is not a directory: name a directory to create the pack in")
        raise typer.Exit(2)
    existing = [
        str(directory / name) for name in (scaffold.PACK_FILE, scaffold.SCRIPT_FILE) if (directory / name).exists()
    ]
    if existing:
        complain(f"refusing to overwrite {', '.join(existing)}")
        raise typer.Exit(2)
    if _interactive():
        version = version or _ask("Contract version", scaffold.VERSIONS, "0.5")
        language = language or _ask("Language", scaffold.LANGUAGES, "en")
        title = title or typer.prompt("Title", default=scaffold.default_title(language or "en"))
        question = "Pack id (unique: the service keys packs by it)"
        pack_id = pack_id or typer.prompt(question, default=scaffold.new_pack_id(title))
    try:
        made = scaffold.files(version or "0.5", title=title, language=language or "en", pack_id=pack_id)
    except CreatorpackError as exc:
        complain(f"{exc}")
        raise typer.Exit(2) from None
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for name, text in made.items():
            with (directory / name).open("x", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
    except FileExistsError as exc:  # created meanwhile, by someone else
        complain(f"refusing to overwrite {exc.filename}")
        raise typer.Exit(2) from None
    except OSError as exc:
        complain(f"cannot write in {directory}: {exc.strerror or exc}")
        raise typer.Exit(2) from None
    pack = directory / scaffold.PACK_FILE
    script = directory / scaffold.SCRIPT_FILE
    made_id = orjson.loads(made[scaffold.PACK_FILE])["manifest"]["pack_id"]
    typer.echo(f"created {pack} and {script} (pack id {made_id})")
    typer.echo(f"next: creatorpack lint {pack} && creatorpack play {pack} --script {script}")


def _interactive() -> bool:
    return sys.stdin.isatty()


def _ask(question: str, choices: Sequence[str], default: str) -> str:
    """Prompt until the answer is one of ``choices`` (Enter: ``default``)."""

    def check(answer: str) -> str:
        if answer not in choices:
            raise typer.BadParameter(f"{answer!r} is not one of {', '.join(choices)}")
        return answer

    answer: str = typer.prompt(f"{question} ({', '.join(choices)})", default=default, value_proc=check)
    return answer


def is_pack_file(path: str, max_bytes: int = MAX_BYTES) -> bool:
    """Whether the hooks check ``path``: a JSON object with a root ``protocol_version`` member.

    A file that cannot be parsed counts as a pack when its text mentions ``protocol_version`` (in
    UTF-8, or in UTF-16 or UTF-32, which a pack must not be in), so a broken pack is reported rather
    than skipped; any other unreadable file is left to other hooks.
    """
    try:
        data = read_file(path, max_bytes)
    except DocumentError:
        return True  # too large, or gone: let the command report it
    return declares_protocol_version(data)


def _hook_for(app: typer.Typer) -> Any:
    """The ``hook`` command, bound to ``app`` (it runs another command of the same app)."""

    def _hook_command(
        ctx: typer.Context,
        command: Annotated[
            str,
            typer.Argument(
                metavar="COMMAND [ITS OPTIONS] FILES...",
                help="The command to run (validate or lint), its options, then the files.",
            ),
        ],
    ) -> None:
        """Run validate or lint on the packs among the given files (what the pre-commit hooks call).

        Files that are not packs (JSON that declares no protocol_version at its root, such as
        package.json) are skipped, so the hooks can take every *.json file. Options before the
        files are passed on: `creatorpack hook lint --strict a.json b.json`. Exit 0 when no file
        is a pack; otherwise the command's exit code.
        """
        if command not in ("validate", "lint"):
            raise typer.BadParameter(f"{command!r} is not one of validate, lint", param_hint="COMMAND")
        options = [arg for arg in ctx.args if not Path(arg).is_file()]
        candidates = [arg for arg in ctx.args if Path(arg).is_file()]
        packs = [path for path in candidates if is_pack_file(path)]
        if not packs:
            raise typer.Exit(0)
        typer.main.get_command(app).main([command, *options, *packs], prog_name="creatorpack")

    return _hook_command

"""The ``creatorpack`` command line: validate and play packs, export the contract's schemas.

Exit codes: 0 success (every pack valid); 1 some pack breaks its contract; 2 a usage error, an
input that is unreadable, not JSON, too large or too deep, or not a JSON object, or a play that
cannot go on (bad script, a turn after the ending, a pack that cannot be played).
The exit codes live on the exception classes (:mod:`creatorpack.errors`); this module maps them.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final

import orjson
import typer

from creatorpack import __version__
from creatorpack.cli import _diff, _narrate, _output, _rule, _settings, _walk, _workflow
from creatorpack.cli._files import write_atomically
from creatorpack.cli._output import complain
from creatorpack.contract import schema, suggest
from creatorpack.contract.conditions import Goal
from creatorpack.contract.validation import MAX_BYTES, validate
from creatorpack.errors import (
    CreatorpackError,
    DocumentError,
    InvalidPackError,
    LimitError,
    SessionLoadError,
    TurnError,
)
from creatorpack.service import cli as service_cli

if TYPE_CHECKING:
    from creatorpack.lint.linter import LintConfig, LintReport

__all__ = ["app", "main"]

app = typer.Typer(
    name="creatorpack",
    help="Validate, lint and play creator packs (contract versions 0.2 to 0.5).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # a docstring's lines make one paragraph, wrapped to the terminal
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"creatorpack {__version__}")
        raise typer.Exit


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Validate, lint and play creator packs (contract versions 0.2 to 0.5)."""


def _run_checks(
    files: list[str], jobs: int, max_bytes: int, check: Callable[..., _output.FileResult], label: str = "validating"
) -> list[_output.FileResult]:
    stdin = sys.stdin.buffer.read(max_bytes + 1) if _output.STDIN in files else None
    if not (_output.is_terminal() and len(files) > 1):
        return list(_results(files, jobs, max_bytes, stdin, check))
    # Rich is imported only for the progress bar: a one-file run should not pay for it.
    from rich.console import Console  # noqa: PLC0415
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: PLC0415

    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    results: list[_output.FileResult] = []
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("validate", total=len(files))
        for result in _results(files, jobs, max_bytes, stdin, check):
            results.append(result)
            progress.advance(task)
    return results


def _results(
    files: list[str], jobs: int, max_bytes: int, stdin: bytes | None, check: Callable[..., _output.FileResult]
) -> Iterator[_output.FileResult]:
    if jobs > 1 and len(files) > 1:
        with ProcessPoolExecutor(max_workers=min(jobs, len(files))) as pool:
            chunk = max(1, len(files) // (jobs * 8))
            yield from pool.map(check, files, [max_bytes] * len(files), [stdin] * len(files), chunksize=chunk)
    else:
        for path in files:
            yield check(path, max_bytes, stdin)


def _check(path: str, max_bytes: int, stdin: bytes | None) -> _output.FileResult:
    return _output.check_file(path, max_bytes, stdin)


# Options that validate and lint share, and lint's own, named once so each command reads as a list.
_Paths = Annotated[
    list[str],
    typer.Argument(
        metavar="PATH...", help="Pack files, directories (every *.json pack below them) or '-' for standard input."
    ),
]
_Format = Annotated[_output.OutputFormat, typer.Option("--format", "-f", help="Output format.", case_sensitive=False)]
_MaxBytes = Annotated[int, typer.Option("--max-bytes", min=1, help="Refuse documents larger than this many bytes.")]
_Exclude = Annotated[
    list[str] | None,
    typer.Option("--exclude", metavar="GLOB", help="Skip walked files and directories that match (repeatable)."),
]
_Watch = Annotated[
    bool,
    typer.Option("--watch", "-w", help="Check again whenever a pack is saved, until Ctrl-C (exit 130)."),
]
_Strict = Annotated[
    bool | None,
    typer.Option("--strict/--no-strict", help="Warnings also fail (exit 1); default: the pyproject table, else no."),
]
_Ignore = Annotated[list[str] | None, typer.Option("--ignore", help="Silence a rule by its code (repeatable).")]
_Assets = Annotated[
    Path | None, typer.Option("--assets", help="Check asset files (named by sha256 or uri) in this directory.")
]
_Explain = Annotated[
    str | None,
    typer.Option(
        "--explain",
        help=(
            "Print turns that reach this achievement, ending or rule (active) id, or say why it is unreachable; "
            "kind:ID names one kind (achievement:, ending:, rule:, completion: for a rule completing) or a reveal "
            "(reader_card:, avatar:, image:, relationship:, asset:, visual_anchor:, casting:, deed:, knowledge:)."
        ),
    ),
]
_MaxStates = Annotated[
    int | None,
    typer.Option(
        "--max-states",
        min=1,
        help="Reachability search: distinct states it may explore; deterministic (default: the table, else 200000).",
    ),
]


def _finite_seconds(value: float | None) -> float | None:
    """Refuse ``nan``, ``inf`` and ``1e400`` (which reads as inf), as the pyproject table does: no time limit."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"must be a finite number of seconds, 0 or more, not {value}")
    return value


_MaxSeconds = Annotated[
    float | None,
    typer.Option(
        "--max-seconds",
        min=0.0,
        callback=_finite_seconds,
        help="Reachability search: a safety-net time limit per pack (default: the table, else 60).",
    ),
]


@app.command("validate")
def _validate(
    paths: _Paths,
    output_format: _Format = _output.OutputFormat.TEXT,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=0, help="Validate in N processes (0: one per CPU).")] = 1,
    max_bytes: _MaxBytes = MAX_BYTES,
    exclude: _Exclude = None,
    watch: _Watch = False,
) -> None:
    """Check packs against the contract version each declares; report every violation."""
    if watch:
        _watched(paths, exclude, output_format, jobs, max_bytes, _check, "validating")
    _report(_files(paths, exclude, max_bytes), output_format, jobs, max_bytes, _check, "validating")


def _files(paths: Sequence[str], excludes: Sequence[str] | None, max_bytes: int) -> list[str]:
    expansion = _walk.expand(paths, excludes=excludes or (), max_bytes=max_bytes)
    if expansion.skipped:
        noun = "file" if expansion.skipped == 1 else "files"
        complain(f"skipped {expansion.skipped} JSON {noun} without protocol_version")
    if not expansion.files:
        typer.echo("creatorpack: no pack (*.json with a protocol_version) found in the given paths", err=True)
        raise typer.Exit(2)
    return list(expansion.files)


def _report(
    files: list[str],
    fmt: _output.OutputFormat,
    jobs: int,
    max_bytes: int,
    check: Callable[..., _output.FileResult],
    label: str,
) -> None:
    """Check every file, print the results in ``fmt``, and exit with the worst exit code."""
    raise typer.Exit(_checked(files, fmt, jobs, max_bytes, check, label))


def _checked(
    files: list[str],
    fmt: _output.OutputFormat,
    jobs: int,
    max_bytes: int,
    check: Callable[..., _output.FileResult],
    label: str,
) -> int:
    """Check every file and print the results in ``fmt``; the worst exit code."""
    results = _run_checks(files, jobs or os.cpu_count() or 1, max_bytes, check, label)
    color = fmt == _output.OutputFormat.TEXT and _output.is_terminal(sys.stdout) and "NO_COLOR" not in os.environ
    sys.stdout.write(_output.render(results, fmt, color=color))
    sys.stdout.flush()
    return max(r.exit_code for r in results)


def _watched(
    paths: Sequence[str],
    excludes: Sequence[str] | None,
    fmt: _output.OutputFormat,
    jobs: int,
    max_bytes: int,
    check: Callable[..., _output.FileResult],
    label: str,
) -> None:
    """``--watch``: check now and on every save until Ctrl-C (exit 130); see :mod:`creatorpack.cli._watch`."""
    from creatorpack.cli._watch import watch  # noqa: PLC0415

    def run() -> int:
        try:  # the packs are found again each time: a new file in a watched directory is checked too
            return _checked(_files(paths, excludes, max_bytes), fmt, jobs, max_bytes, check, label)
        except typer.Exit as exc:  # no pack found (yet): said on stderr, and the watch goes on
            return int(exc.exit_code)

    raise typer.Exit(watch(paths, run))


_SWITCH_INTERVAL: Final = 0.0005
"""Seconds between the interpreter's thread switches while linting (Python's default is 0.005).

On a big pack lint's inductive box phase runs in a worker thread beside the guided search, and
each of its calls into z3 gives up the GIL; at the default interval each waits up to 5 ms to get
it back, and the overlap all but vanishes (docs/performance.md). The command is one process of
its own, so it can set this for itself; the library does not touch the interpreter's settings.
"""


def _lint_check(config: Any, strict: bool, path: str, max_bytes: int, stdin: bytes | None) -> _output.FileResult:
    sys.setswitchinterval(_SWITCH_INTERVAL)  # in each process that lints (``--jobs`` starts others)
    return _output.lint_file(path, max_bytes, config, strict=strict, stdin=stdin)


def _first(*values: Any) -> Any:
    """The first value that is set: the flag, then the table, then the default."""
    return next(v for v in values if v is not None)


@dataclass(frozen=True, slots=True)
class _LintFlags:
    """The lint flags given on the command line (``None``: not given, so the table or the default decides)."""

    strict: bool | None
    ignore: Sequence[str]
    assets: Path | None
    max_states: int | None
    max_seconds: float | None


def _lint_settings(paths: Sequence[str], flags: _LintFlags) -> tuple[bool, LintConfig]:
    """Strictness and the lint configuration: flags override ``[tool.creatorpack.lint]``; ``--ignore`` adds to it.

    Exits 2 for an unreadable or wrongly set table, an unknown rule code or an ``--assets`` that is no directory.
    """
    from creatorpack.lint.linter import RULES, LintConfig  # noqa: PLC0415 - lint loads the runtime: only when linting

    if flags.assets is not None and not flags.assets.is_dir():
        raise typer.BadParameter(f"{flags.assets} is not a directory", param_hint="--assets")
    try:
        settings = _settings.load(_settings.find_pyproject(paths, Path.cwd()))
    except CreatorpackError as exc:  # unreadable pyproject.toml, or a key set wrongly
        complain(f"{exc}")
        raise typer.Exit(exc.exit_code) from None
    unknown = sorted(set(flags.ignore) - set(RULES))
    if unknown:
        guesses = [
            f"{code!r} (did you mean {guess!r}?)" if (guess := suggest.nearest(code, RULES)) else repr(code)
            for code in unknown
        ]
        raise typer.BadParameter(
            f"unknown rule code(s) {', '.join(guesses)}; creatorpack rule lists them", param_hint="--ignore"
        )
    defaults = LintConfig()
    config = LintConfig(
        ignore=settings.ignore | frozenset(flags.ignore),
        assets=flags.assets,
        max_states=_first(flags.max_states, settings.max_states, defaults.max_states),
        # Adding 0.0 turns -0.0 (which passes "0 or more") into 0.0, so no message shows "-0 s".
        max_seconds=_first(flags.max_seconds, settings.max_seconds, defaults.max_seconds) + 0.0,
        per_item_ignores=settings.per_item_ignores or {},
    )
    return (flags.strict if flags.strict is not None else bool(settings.strict)), config


@app.command("lint")
def _lint(
    paths: _Paths,
    output_format: _Format = _output.OutputFormat.TEXT,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=0, help="Lint in N processes (0: one per CPU).")] = 1,
    strict: _Strict = None,
    ignore: _Ignore = None,
    assets: _Assets = None,
    explain: _Explain = None,
    max_states: _MaxStates = None,
    max_seconds: _MaxSeconds = None,
    max_bytes: _MaxBytes = MAX_BYTES,
    exclude: _Exclude = None,
    watch: _Watch = False,
) -> None:
    """Find what the contract cannot say: broken references, impossible conditions, unreachable goals."""
    flags = _LintFlags(strict, ignore or (), assets, max_states, max_seconds)
    strict_mode, config = _lint_settings(paths, flags)
    if watch and explain is not None:
        raise typer.BadParameter("--explain prints one script; it does not watch", param_hint="--watch")
    if watch:
        check = partial(_lint_check, config, strict_mode)
        _watched(paths, exclude, output_format, jobs, max_bytes, check, "linting")
    files = _files(paths, exclude, max_bytes)
    if explain is not None:
        if len(files) != 1:
            raise typer.BadParameter(
                "--explain takes exactly one pack (a file, or '-' for standard input)", param_hint="--explain"
            )
        data = _check_explain_target(files[0], explain, max_bytes)
        raise typer.Exit(_explain(files[0], data, explain, config))
    _report(files, output_format, jobs, max_bytes, partial(_lint_check, config, strict_mode), "linting")


def _explain(path: str, data: bytes, target: str, config: LintConfig) -> int:
    """Print a witness for ``target`` as a play script (exit 0), or why it is unreachable or undecided (1).

    A witness that starts at another entry than the first carries a ``# entry: ID`` line, which
    ``creatorpack play --script`` reads, so the script replays as it is.
    """
    from creatorpack.lint.linter import lint  # noqa: PLC0415
    from creatorpack.play.scripted import ENTRY_DIRECTIVE  # noqa: PLC0415

    # Every error counts here, ignored or not: any error keeps the reachability search from running.
    report = lint(data, replace(config, ignore=frozenset()))
    witness = report.witnesses.get(target)
    if witness is None:
        complain(f"{_no_witness(path, target, report, config)}")
        return 1
    typer.echo(
        f"# {len(witness.turns)} turn(s) reach {target!r}; one turn per line (creatorpack play PACK --script FILE)"
    )
    if witness.entry:
        typer.echo(f"{ENTRY_DIRECTIVE}{witness.entry}")
    for turn in witness.turns:
        typer.echo(orjson.dumps({"observations": turn}).decode())
    return 0


def _no_witness(path: str, target: str, report: LintReport, config: LintConfig) -> str:
    """Why ``--explain`` has no turns to print: a proof, lint errors that kept the search from running, or its bound."""
    reason = report.proofs.get(target)
    if reason is not None:
        from creatorpack.lint.linter import REVEAL_GOALS  # noqa: PLC0415

        goal = _goal(target)
        never = "is never revealed" if goal is not None and goal.kind in REVEAL_GOALS else "is unreachable"
        return f"{target!r} {never}: {reason}"
    if not report.searched and report.errors:
        listed = "; ".join(f"{f.code} at {f.pointer or '/'}" for f in report.errors[:3])
        more = f" and {len(report.errors) - 3} more" if len(report.errors) > 3 else ""
        return (
            f"{target!r} was not searched for: reachability runs only on a pack without lint errors, and "
            f"{_named(path)} has {len(report.errors)} ({listed}{more}); fix them first (creatorpack lint {path})"
        )
    goal = _goal(target)
    bare = (goal.id if goal is not None else "") or target
    bound = (f.message for f in report.findings if f.code == "reachability-bound" and repr(bare) in f.message)
    found = next(bound, None)
    if found is not None:
        return found  # names the turns the search played and the bound to raise
    return (
        f"{target!r} was neither reached nor proven unreachable within the search bound "
        f"({config.max_states:,} turns); raise --max-states"
    )


def _goal(target: str) -> Goal | None:
    """The goal ``--explain TARGET`` names as ``kind:id``; ``None`` for a bare id (an achievement, ending or rule)."""
    return Goal.parse(target) if ":" in target else None


def _named(path: str) -> str:
    return "standard input" if path == _output.STDIN else path


def _check_explain_target(path: str, target: str, max_bytes: int) -> bytes:
    """The pack's bytes, read once so that ``-`` (standard input) works.

    Exit at once: 2 when ``target`` is no achievement, ending, rule or reveal of the pack or the input
    cannot be read, 1 for an invalid pack.
    """
    try:
        goal = _goal(target)
    except ValueError as exc:
        complain(f"--explain: {exc}")
        raise typer.Exit(2) from None
    stdin = sys.stdin.buffer.read(max_bytes + 1) if path == _output.STDIN else None
    try:
        data = _output.read_input(path, max_bytes, stdin)
        report = validate(data)
    except DocumentError as exc:
        complain(f"{_output.located(path, exc)}: {exc.code}: {exc}")
        raise typer.Exit(exc.exit_code) from None
    if not report.valid or report.document is None:
        sys.stderr.write(_output.render([_output.from_report(path, report, None)], "text"))
        raise typer.Exit(1)
    from creatorpack.contract.schema import as_declared  # noqa: PLC0415
    from creatorpack.lint.linter import REVEAL_GOALS, goals  # noqa: PLC0415 - lint loads the runtime

    pack = as_declared(report.document)  # a 0.3 pack's progression is no goal: lint ignores it
    progression = pack.get("progression") or {}
    runtime = pack.get("runtime") or {}
    kinds = {
        "achievement": progression.get("achievements", []),
        "ending": progression.get("endings", []),
        "rule": runtime.get("rules", []),
    }
    known = {
        kind: [item["id"] for item in items if isinstance(item, dict) and isinstance(item.get("id"), str)]
        for kind, items in kinds.items()
        if isinstance(items, list)
    }
    if any(target in ids for ids in known.values()):
        return data
    completable = [r["id"] for r in kinds["rule"] if isinstance(r, dict) and isinstance(r.get("completion"), dict)]
    if goal is not None and goal.id in (completable if goal.kind == "completion" else known.get(goal.kind, [])):
        return data
    if goal is not None and goal.kind == "completion" and goal.id in known["rule"]:
        completions = suggest.known(completable) if completable else "none"
        complain(
            f"rule {goal.id!r} of {_named(path)} has no completion condition, so {target!r} cannot be "
            f"explained (rules with one: {completions}); explain {goal.id!r} for its activation"
        )
        raise typer.Exit(2)
    reveals = [key for key in goals(pack) if key.kind in REVEAL_GOALS]
    if goal in reveals:
        return data
    complain(f"{_unknown_goal(target, known, reveals, _named(path))}")
    raise typer.Exit(2)


def _names_id(goal: Goal, ident: str) -> bool:
    """Whether ``goal`` is of ``ident``, or of a part ``casting/ident`` or ``card/ident``."""
    return goal.id == ident or goal.id.endswith(f"/{ident}")


def _unknown_goal(target: str, known: Mapping[str, list[str]], reveals: list[Goal], named: str) -> str:
    """Why ``--explain`` cannot take ``target``, with the goal it most likely names."""
    from creatorpack.lint.linter import REVEAL_GOALS  # noqa: PLC0415

    goal = _goal(target)
    kind, ident = (goal.kind, goal.id) if goal is not None else ("", target)
    every = [Goal(k, i) for k, ids in known.items() for i in ids] + reveals
    keys = {key.kind for key in every} | set(REVEAL_GOALS) | {*known, "completion"}
    same = [key for key in every if key != goal and _names_id(key, ident)]
    if kind and kind not in keys:  # a misspelt kind: the same id under the kind it is nearest to
        near = suggest.nearest(kind, sorted(keys))
        meant = Goal(near, ident) if near is not None and Goal(near, ident) in every else next(iter(same), None)
        return f"{target!r}: no goal is of kind {kind!r}" + (f"; did you mean {str(meant)!r}?" if meant else "")
    if same and (not kind or same[0].kind == kind):  # no kind, or a part's id without its owner's
        return f"{target!r} is no achievement, ending, rule or reveal of {named}; did you mean {str(same[0])!r}?"
    if same:
        other = same[0].kind.replace("_", " ")
        article = "an" if other[0] in "aeiou" else "a"
        wrong = kind.replace("_", " ")
        return f"{target!r}: {ident!r} of {named} is no {wrong} but {article} {other}; explain {str(same[0])!r}"
    listed = "; ".join(f"{k}s: {suggest.known(ids)}" for k, ids in known.items() if ids) or "it has none"
    guess = suggest.nearest(target, [i for ids in known.values() for i in ids] + [str(key) for key in reveals])
    if kind in REVEAL_GOALS:  # a reveal of the wrong id: list the goals of that kind, the ones a creator meant
        of_kind = [key for key in reveals if key.kind == kind]
        listed = f"goals of kind {kind}: {suggest.known([str(key) for key in of_kind]) if of_kind else 'none'}"
        near = suggest.nearest(ident, [key.id for key in of_kind])
        guess = str(Goal(kind, near)) if near is not None else None
    hint = f"; did you mean {guess!r}?" if guess else ""
    return f"{target!r} is no achievement, ending, rule or reveal of {named} ({listed}){hint}"


@app.command("schema")
def _schema(
    version: Annotated[
        str, typer.Argument(help="Contract version (0.2, 0.3, 0.4, 0.5), or 'all' for the version selector.")
    ],
) -> None:
    """Print a version's JSON Schema (draft 2020-12), bundled into one self-contained document."""
    try:
        document = schema.export(None if version == "all" else version)
    except schema.UnknownVersionError as exc:
        complain(f"{exc} (or 'all')")
        raise typer.Exit(2) from None
    sys.stdout.write(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n")


@app.command("play")
def _play_command(
    pack: Annotated[
        str, typer.Argument(metavar="PACK", help="The pack to play (0.3, 0.4 or 0.5), or '-' to read it from stdin.")
    ],
    entry: Annotated[
        str | None,
        typer.Option(
            "--entry",
            "-e",
            help="Runtime entry id, or its pack entry's (default: the script's '# entry: ID' line, else the first).",
        ),
    ] = None,
    script: Annotated[
        str | None,
        typer.Option(
            "--script", "-s", help="JSON Lines file (or '-' for stdin), one turn per line, instead of prompting."
        ),
    ] = None,
    fmt: Annotated[
        _output.TranscriptFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="With --script: a summary or a JSON transcript (default: text).",
            case_sensitive=False,
        ),
    ] = None,
    load: Annotated[
        Path | None,
        typer.Option(
            "--load",
            help="Go on from this saved session; a save of another revision is migrated first (see creatorpack diff).",
        ),
    ] = None,
    save_to: Annotated[
        Path | None,
        typer.Option("--save-to", help="Write the session's save to this file when play stops (q, Ctrl-C too)."),
    ] = None,
) -> None:
    """Playtest a pack: prompt for each observation turn by turn, or run a scripted playthrough."""
    if pack == _output.STDIN and script in (None, _output.STDIN):
        what = "the answers" if script is None else "the script"
        raise typer.BadParameter(
            f"cannot read both the pack and {what} from standard input; give the pack as a file", param_hint="PACK"
        )
    if load is not None and entry is not None:
        raise typer.BadParameter("a loaded session goes on at its own entry; leave out --entry", param_hint="--entry")
    if fmt is not None and script is None:
        raise typer.BadParameter(
            "the format is that of a --script's transcript; give --script too", param_hint="--format"
        )
    try:
        code = _play_it(pack, entry, script, fmt, load, save_to)
        if code:
            raise typer.Exit(code)
    except InvalidPackError as exc:
        result = _output.from_report(pack, exc.report, None)
        sys.stderr.write(_output.render([result], "text"))
        raise typer.Exit(exc.exit_code) from None
    except DocumentError as exc:
        complain(f"{_output.located(pack, exc)}: {exc.code}: {exc}")
        raise typer.Exit(exc.exit_code) from None
    except CreatorpackError as exc:
        complain(exc)
        for line in getattr(exc, "context", ()):  # a bad script line: the turns before it
            sys.stderr.write(f"  {_output.one_line(line)}\n")
        raise typer.Exit(exc.exit_code) from None


def _play_it(
    pack: str,
    entry: str | None,
    script: str | None,
    fmt: _output.TranscriptFormat | None,
    load: Path | None,
    save_to: Path | None,
) -> int:
    """Run the scripted or the interactive playtest; its exit code."""
    from creatorpack.cli import _play  # noqa: PLC0415 - the runtime and Rich load only for play

    source = _play_source(pack)
    saved = _read_save(load) if load is not None else None
    writer = _save_writer(save_to) if save_to is not None else None
    if script is None:
        name = str(save_to) if save_to is not None else None
        return _play.interactive(source, entry, saved=saved, save_to=writer, save_name=name)
    text = _read_script(script)
    shown = fmt or _output.TranscriptFormat.TEXT
    sys.stdout.write(_play.scripted(source, text, entry, shown, saved=saved, save_to=writer, name=_named(script)))
    return 0


def _play_source(pack: str) -> bytes:
    """The pack to play: a file, or standard input for ``-``."""
    stdin = sys.stdin.buffer.read(MAX_BYTES + 1) if pack == _output.STDIN else None
    return _output.read_input(pack, MAX_BYTES, stdin)


def _read_save(path: Path) -> Any:
    try:
        return orjson.loads(_output.read_limited(str(path)))
    except OSError as exc:
        raise SessionLoadError(f"cannot read the save {path}: {exc.strerror or exc}") from None
    except LimitError as exc:
        raise SessionLoadError(f"cannot read the save {path}: {exc.code}: {exc}") from None
    except orjson.JSONDecodeError as exc:
        raise SessionLoadError(f"the save {path} is not JSON: {exc}") from None


def _save_writer(path: Path) -> Callable[[Mapping[str, Any]], None]:
    def write(saved: Mapping[str, Any]) -> None:
        try:
            write_atomically(path, orjson.dumps(saved, option=orjson.OPT_INDENT_2) + b"\n")
        except OSError as exc:
            raise CreatorpackError(f"cannot write the save {path}: {exc.strerror or exc}") from None

    return write


def _read_script(script: str) -> str:
    """The script's text: a file, or standard input for ``-``; no larger than a pack may be."""
    try:
        return _output.read_limited(script).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TurnError(f"cannot read the script {_named(script)}: {exc}") from None
    except LimitError as exc:
        raise TurnError(f"cannot read the script {_named(script)}: {exc.code}: {exc}") from None


@app.command("lsp")
def _lsp() -> None:
    """Run the language server for pack files on standard input and output (for an editor; see docs/editors.md)."""
    try:
        from creatorpack.lsp.server import serve  # noqa: PLC0415 - pygls loads only for this command
    except ImportError as exc:  # pragma: no cover - the lsp extra is part of the dev install
        complain(f"the language server needs the lsp extra: pip install 'creatorpack[lsp]' ({exc})")
        raise typer.Exit(2) from None
    serve()


# Commands defined in their own modules, one line each: diff; narrate; rule; upgrade, init and hook; serve, token
# and db
# (the service's module imports its framework only when one of its commands runs).
_diff.register(app)
_narrate.register(app)
_rule.register(app)
_workflow.register(app)
service_cli.register(app)


def main() -> None:
    """Entry point of the ``creatorpack`` console script."""
    app()

"""The ``creatorpack`` command line: validate and play packs, export the contract's schemas.

Exit codes: 0 success (every pack valid); 1 some pack breaks its contract; 2 a usage error, an
input that is unreadable, not JSON, too large or too deep, or not a JSON object, or a play that
cannot go on (bad script, a turn after the ending, a pack that cannot be played).
The exit codes live on the exception classes (:mod:`creatorpack.errors`); this module maps them.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer

from creatorpack import __version__, _output, schema
from creatorpack.errors import CreatorpackError, DocumentError, InvalidPackError
from creatorpack.validation import MAX_BYTES

__all__ = ["app", "main"]

app = typer.Typer(
    name="creatorpack",
    help="Validate, lint and play creator packs (contract versions 0.2 to 0.5).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
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


def _expand(paths: Sequence[str]) -> Iterator[str]:
    for raw in paths:
        if raw == _output.STDIN:
            yield raw
            continue
        path = Path(raw)
        if path.is_dir():
            yield from (str(p) for p in sorted(path.rglob("*.json")) if p.is_file())
        else:
            yield raw


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


@app.command("validate")
def _validate(
    paths: Annotated[
        list[str],
        typer.Argument(help="Pack files, directories (every *.json below them) or '-' for standard input."),
    ],
    output_format: Annotated[
        str,
        typer.Option("--format", "-f", help="Output format: text, json, sarif or github.", case_sensitive=False),
    ] = "text",
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=0, help="Validate in N processes (0: one per CPU).")] = 1,
    max_bytes: Annotated[
        int, typer.Option("--max-bytes", min=1, help="Refuse documents larger than this many bytes.")
    ] = MAX_BYTES,
) -> None:
    """Check packs against the contract version each declares; report every violation."""
    fmt = _format(output_format)
    _report(_files(paths), fmt, jobs, max_bytes, _check, "validating")


def _format(output_format: str) -> str:
    fmt = output_format.lower()
    if fmt not in _output.FORMATS:
        raise typer.BadParameter(f"{output_format!r} is not one of {', '.join(_output.FORMATS)}", param_hint="--format")
    return fmt


def _files(paths: Sequence[str]) -> list[str]:
    files = list(_expand(paths))
    if not files:
        typer.echo("creatorpack: no *.json files found in the given paths", err=True)
        raise typer.Exit(2)
    return files


def _report(
    files: list[str], fmt: str, jobs: int, max_bytes: int, check: Callable[..., _output.FileResult], label: str
) -> None:
    """Check every file, print the results in ``fmt``, and exit with the worst exit code."""
    results = _run_checks(files, jobs or os.cpu_count() or 1, max_bytes, check, label)
    color = fmt == "text" and _output.is_terminal(sys.stdout) and "NO_COLOR" not in os.environ
    sys.stdout.write(_output.render(results, fmt, color=color))
    sys.stdout.flush()
    raise typer.Exit(max(r.exit_code for r in results))


def _lint_check(config: Any, strict: bool, path: str, max_bytes: int, stdin: bytes | None) -> _output.FileResult:
    return _output.lint_file(path, max_bytes, config, strict=strict, stdin=stdin)


def _lint_settings(start: Path) -> dict[str, Any]:
    """The ``[tool.creatorpack.lint]`` table of the nearest pyproject.toml at or above ``start``."""
    for folder in [start, *start.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                raise typer.BadParameter(f"cannot read {candidate}: {exc}") from None
            table = data.get("tool", {}).get("creatorpack", {}).get("lint", {})
            if not isinstance(table, dict):
                raise typer.BadParameter(f"{candidate}: [tool.creatorpack.lint] must be a table")
            return table
    return {}


@app.command("lint")
def _lint(
    paths: Annotated[
        list[str],
        typer.Argument(help="Pack files, directories (every *.json below them) or '-' for standard input."),
    ],
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="Output format: text, json, sarif or github.", case_sensitive=False)
    ] = "text",
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=0, help="Lint in N processes (0: one per CPU).")] = 1,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings also fail (exit 1).")] = False,
    ignore: Annotated[
        list[str] | None, typer.Option("--ignore", help="Silence a rule by its code (repeatable).")
    ] = None,
    assets: Annotated[
        Path | None, typer.Option("--assets", help="Check asset files (named by sha256 or uri) in this directory.")
    ] = None,
    explain: Annotated[
        str | None, typer.Option("--explain", help="Print turns that reach this achievement, ending or rule id.")
    ] = None,
    max_states: Annotated[int, typer.Option("--max-states", min=1, help="Reachability search: state bound.")] = 20_000,
    max_seconds: Annotated[
        float, typer.Option("--max-seconds", min=0.0, help="Reachability search: time bound per pack.")
    ] = 5.0,
    max_bytes: Annotated[
        int, typer.Option("--max-bytes", min=1, help="Refuse documents larger than this many bytes.")
    ] = MAX_BYTES,
) -> None:
    """Find what the contract cannot say: broken references, impossible conditions, unreachable goals."""
    from creatorpack.linter import RULES, LintConfig  # noqa: PLC0415 - lint loads the runtime: only when linting
    from creatorpack.linter import explain as explain_target  # noqa: PLC0415

    fmt = _format(output_format)
    if assets is not None and not assets.is_dir():
        raise typer.BadParameter(f"{assets} is not a directory", param_hint="--assets")
    settings = _lint_settings(Path.cwd())
    ignored = set(ignore or []) | set(settings.get("ignore", []))
    unknown = sorted(ignored - set(RULES))
    if unknown:
        raise typer.BadParameter(f"unknown rule code(s) {', '.join(unknown)}; see docs/lint.md", param_hint="--ignore")
    strict = strict or bool(settings.get("strict", False))
    config = LintConfig(
        ignore=frozenset(ignored),
        assets=assets,
        max_states=int(settings.get("max-states", max_states)),
        max_seconds=float(settings.get("max-seconds", max_seconds)),
    )
    files = _files(paths)
    if explain is not None:
        if len(files) != 1 or files[0] == _output.STDIN:
            raise typer.BadParameter("--explain takes exactly one pack file", param_hint="--explain")
        witness = explain_target(Path(files[0]), explain, config)
        if witness is None:
            typer.echo(f"creatorpack: {explain!r} was not reached by the search (see the lint findings)", err=True)
            raise typer.Exit(1)
        typer.echo(f"# {len(witness.turns)} turn(s) reach {explain!r}; one turn per line (creatorpack play --script)")
        for turn in witness.turns:
            typer.echo(orjson.dumps({"observations": turn}).decode())
        raise typer.Exit(0)
    _report(files, fmt, jobs, max_bytes, partial(_lint_check, config, strict), "linting")


@app.command("schema")
def _schema(
    version: Annotated[
        str, typer.Argument(help="Contract version (0.2, 0.3, 0.4, 0.5), or 'all' for the version selector.")
    ],
) -> None:
    """Print a version's JSON Schema (draft 2020-12), bundled into one self-contained document."""
    try:
        document = schema.bundle(None if version == "all" else version)
    except schema.UnknownVersionError as exc:
        typer.echo(f"creatorpack: {exc} (or 'all')", err=True)
        raise typer.Exit(2) from None
    sys.stdout.write(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n")


@app.command("play")
def _play_command(
    pack: Annotated[Path, typer.Argument(help="The pack to play (0.3, 0.4 or 0.5).")],
    entry: Annotated[str | None, typer.Option("--entry", "-e", help="Runtime entry id (default: the first).")] = None,
    script: Annotated[
        Path | None,
        typer.Option("--script", "-s", help="JSON Lines file, one turn per line, instead of prompting."),
    ] = None,
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="With --script: text or json (a transcript).")
    ] = "text",
) -> None:
    """Playtest a pack: prompt for each observation turn by turn, or run a scripted playthrough."""
    fmt = output_format.lower()
    if fmt not in ("text", "json"):
        raise typer.BadParameter(f"{output_format!r} is not one of text, json", param_hint="--format")
    from creatorpack import _play  # noqa: PLC0415 - the runtime and Rich load only for play

    try:
        if script is not None:
            sys.stdout.write(_play.scripted(pack, script, entry, fmt))
        else:
            _play.interactive(pack, entry)
    except InvalidPackError as exc:
        result = _output.from_report(str(pack), exc.report, None)
        sys.stderr.write(_output.render([result], "text"))
        raise typer.Exit(exc.exit_code) from None
    except DocumentError as exc:
        typer.echo(f"creatorpack: {pack}: {exc.code}: {exc}", err=True)
        raise typer.Exit(exc.exit_code) from None
    except CreatorpackError as exc:
        typer.echo(f"creatorpack: {exc}", err=True)
        raise typer.Exit(exc.exit_code) from None


def main() -> None:
    """Entry point of the ``creatorpack`` console script."""
    app()

"""``creatorpack rule [CODE]``: a lint rule's documentation, or every rule's code, severity and summary.

Read from the installed package (:mod:`creatorpack.lint.ruledocs`), so it works wherever
creatorpack is installed; messages about rule codes point here rather than at a file of the
repository. Exit 0, or 2 for a code no rule has.
"""

from __future__ import annotations

from typing import Annotated

import typer

from creatorpack.cli._output import complain
from creatorpack.contract import suggest

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    """Add the ``rule`` command to ``app``."""
    app.command("rule")(_rule_command)


def _rule_command(
    code: Annotated[
        str | None, typer.Argument(metavar="[CODE]", help="A lint rule's code, e.g. unreachable; none: list them.")
    ] = None,
) -> None:
    """Print a lint rule's documentation (severity, summary, rationale, a bad and a good example), or list the rules."""
    from creatorpack.lint.linter import RULES  # noqa: PLC0415 - lint loads the runtime: only for this command
    from creatorpack.lint.ruledocs import rule_doc  # noqa: PLC0415

    if code is None:
        width = max(len(c) for c in RULES)
        for rule in RULES.values():
            typer.echo(f"{rule.code.ljust(width)}  {rule.severity:<7}  {rule.summary}")
        typer.echo("creatorpack rule CODE prints one rule's documentation")
        return
    doc = rule_doc(code)
    if doc is None:
        guess = suggest.nearest(code, RULES)
        hint = f" (did you mean {guess!r}?)" if guess else ""
        complain(f"no lint rule has the code {code!r}{hint}; creatorpack rule lists them")
        raise typer.Exit(2)
    typer.echo(doc.text, nl=False)

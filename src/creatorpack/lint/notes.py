"""What lint says once about a pack rather than about one item of it.

Today that is one note: why the reachability search did not run. The CLI prints it in every format and
the service sends it in its lint report, from this one function.
"""

from __future__ import annotations

from creatorpack.lint.linter import CHECKS
from creatorpack.lint.report import LintConfig, LintReport

__all__ = ["unsearched_note"]


def unsearched_note(report: LintReport, config: LintConfig | None = None) -> str:
    """Why the reachability search did not run on a valid pack whose version has one, else ``""``.

    Lint errors stop it (a broken reference makes every verdict about reaching a goal moot), so a pack
    with errors gets no ``unreachable`` or ``never-revealed`` finding: said once, not left for the
    creator to infer from their absence.
    """
    config = config or LintConfig()
    version = report.contract.version
    if report.searched or not config.reachability or version is None:
        return ""
    checks = CHECKS.get(version)
    if checks is None or not checks.reachability:
        return ""
    errors = len(report.errors)
    if errors:
        counted = f"{errors} lint error{'s' if errors != 1 else ''} above"
    else:
        counted = "errors of ignored rules (an ignored error still stops it)"
    return (
        "the reachability search (unreachable, never-revealed, reachability-bound) did not run: "
        f"it runs only on a pack without lint errors; fix the {counted}, then lint again"
    )

"""The CLI's ``--format json`` entry for one file, built from the library's public report objects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from creatorpack import DocumentError, Report

if TYPE_CHECKING:
    from creatorpack import LintReport
    from creatorpack.lint import LintConfig

__all__ = ["document_error_json", "lint_json", "validate_json"]


def validate_json(report: Report) -> dict[str, Any]:
    """``creatorpack validate --format json``'s entry for one file, without its path."""
    return report.to_dict()


def lint_json(report: LintReport, *, strict: bool = False, config: LintConfig | None = None) -> dict[str, Any]:
    """``creatorpack lint --format json``'s entry for one file, without its path.

    An invalid pack is not linted: its contract violations are its (error) findings.
    """
    contract = report.contract
    if not contract.valid:
        errors = [{**v.to_dict(), "severity": "error"} for v in contract.violations]
        return {"valid": False, "version": contract.version, "errors": errors}
    findings = [
        {
            "pointer": f.pointer,
            "code": f.code,
            "message": f.message,
            "line": f.line,
            "column": f.column,
            "severity": f.severity,
        }
        for f in report.findings
    ]
    from creatorpack.lint import unsearched_note  # noqa: PLC0415 - the linter loads on first use

    counted = [f for f in report.findings if f.severity == "error" or strict]
    note = unsearched_note(report, config)
    return {"valid": not counted, "version": contract.version, "errors": findings, **({"note": note} if note else {})}


def document_error_json(error: DocumentError, *, linted: bool = False) -> dict[str, Any]:
    """The entry the CLI prints for an input it could not read as a pack (lint's adds the severity)."""
    finding: dict[str, Any] = {
        "pointer": "",
        "code": error.code,
        "message": error.message,
        "line": error.line,
        "column": error.column,
    }
    if linted:
        finding["severity"] = "error"
    return {"valid": False, "version": None, "errors": [finding]}

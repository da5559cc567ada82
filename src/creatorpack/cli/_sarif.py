"""SARIF 2.1.0 output: one rule per code, with its help text and a link to its documentation."""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote

import orjson

from creatorpack import __version__
from creatorpack.cli._output import NOTE_TITLE, unicode_text

if TYPE_CHECKING:
    from creatorpack.cli._output import FileResult

__all__ = ["DOCS_URL", "RuleText", "help_uri", "render", "rule_descriptor"]

DOCS_URL: Final = "https://github.com/creatorpack/creatorpack/blob/main/docs/"
"""Where the rule documentation (``docs/lint.md``, ``docs/validation.md``) is published."""

CONTRACT_CODES: Final = {
    "unsupported-version": "protocol_version is missing or not a supported contract version",
    "duplicate-key": "a member name occurs twice in one object",
    "additional-property": "a property that the object does not list",
    "required": "a required property is missing",
    "type": "a value of the wrong JSON type",
    "enum": "a value that is not one of the allowed values",
    "unknown-op": "a condition op that the grammar does not have",
    "unknown-observation-type": "an observation type other than boolean or choice",
    "const": "a value that is not the one allowed value",
    "invalid-id": "a value that is not an Id (^[A-Za-z][A-Za-z0-9_.-]{0,79}$)",
    "invalid-sha256": "a value that is not 64 lowercase hexadecimal characters",
    "invalid-uuid": "a character_id that is not a lowercase 8-4-4-4-12 UUID",
    "invalid-condition-ref": "a condition_ref that is not a path of /conditions/<index> segments",
    "blank-string": "a text that must contain a non-whitespace character",
    "min-length": "a string shorter than allowed (code points)",
    "max-length": "a string longer than allowed (code points)",
    "minimum": "a number below its minimum",
    "maximum": "a number above its maximum",
    "exclusive-minimum": "a number not above its exclusive minimum",
    "min-items": "an array with too few items",
    "max-items": "an array with too many items",
    "unique-items": "an array that must have unique items repeats one",
    "min-properties": "an object with too few properties",
    "invalid-property-name": "an object key that is not an Id or not an allowed name",
    "reserved-id": "a 0.2 actor id of world or reader",
    "unreadable-file": "the file cannot be opened or read",
    "invalid-json": "not UTF-8 JSON (syntax, byte order mark, NaN, a number that overflows)",
    "limit-exceeded": "larger or deeper than the documented limits",
    "not-an-object": "JSON whose root is not an object",
}
"""Short descriptions of the contract's codes (``docs/validation.md``)."""


@dataclass(frozen=True, slots=True)
class RuleText:
    """What SARIF says of a lint rule: its one-line summary and its rationale (empty when the rule has none)."""

    summary: str
    rationale: str = ""


def _lint_rules() -> dict[str, RuleText]:
    from creatorpack.lint.linter import RULES  # noqa: PLC0415 - only SARIF output needs the lint rule table

    return {code: RuleText(rule.summary, rule.rationale) for code, rule in RULES.items()}


def help_uri(code: str, lint_rules: Collection[str]) -> str:
    """The documentation of a code: its section of docs/lint.md, or the codes of docs/validation.md."""
    if code in lint_rules:
        return f"{DOCS_URL}lint.md#{code}"
    if code in CONTRACT_CODES and code not in ("unreadable-file", "invalid-json", "limit-exceeded", "not-an-object"):
        return f"{DOCS_URL}validation.md#codes"
    return f"{DOCS_URL}validation.md#limits-and-bad-input"


def rule_descriptor(code: str, lint_rules: Mapping[str, RuleText]) -> dict[str, Any]:
    """A SARIF ``reportingDescriptor``: the summary, then help with the rationale (text and Markdown) and the link."""
    text = lint_rules.get(code) or RuleText(CONTRACT_CODES.get(code) or code.replace("-", " "))
    uri = help_uri(code, lint_rules)
    rationale = f"\n\n{text.rationale}" if text.rationale else ""
    return {
        "id": code,
        "shortDescription": {"text": text.summary},
        "help": {
            "text": f"{text.summary}.{rationale}\n\nSee {uri}",
            "markdown": f"**{text.summary}.**{rationale}\n\n[Documentation]({uri})",
        },
        "helpUri": uri,
    }


def render(results: Sequence[FileResult]) -> str:
    """All results as one SARIF 2.1.0 log; columns are counted in Unicode code points."""
    lint_rules = _lint_rules() if any(r.linted for r in results) else {}
    rules: dict[str, dict[str, Any]] = {}
    index: dict[str, int] = {}
    sarif_results: list[dict[str, Any]] = []
    for result in results:
        for f in result.findings:
            if f.code not in rules:
                rules[f.code] = rule_descriptor(f.code, lint_rules)
                index[f.code] = len(index)
            physical: dict[str, Any] = {"artifactLocation": _artifact(result.path)}
            if f.line is not None:
                physical["region"] = {"startLine": f.line, "startColumn": f.column or 1}
            sarif_results.append(
                {
                    "ruleId": f.code,
                    "ruleIndex": index[f.code],
                    "level": "error" if f.severity == "error" else "warning",
                    "message": {"text": unicode_text(f.message)},
                    "locations": [
                        {
                            "physicalLocation": physical,
                            "logicalLocations": [
                                {"fullyQualifiedName": unicode_text(f.pointer) or "/", "kind": "member"}
                            ],
                        }
                    ],
                }
            )
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "creatorpack",
                        "version": __version__,
                        "informationUri": f"{DOCS_URL}lint.md",
                        "rules": list(rules.values()),
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": sarif_results,
                **_invocations(results),
            }
        ],
    }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"


def _invocations(results: Sequence[FileResult]) -> dict[str, Any]:
    """Each file's note (why the reachability search did not run) as a tool execution notification.

    SARIF keeps what a tool says about its run, rather than about the code, in the invocation's
    ``toolExecutionNotifications``; a note is no result (it would count as a finding). The run
    itself succeeded, so ``executionSuccessful`` is true. Nothing is added when no file has a note.
    """
    notes = [
        {
            "level": "note",
            "descriptor": {"id": NOTE_TITLE},
            "message": {"text": unicode_text(result.note)},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact(result.path)}}],
        }
        for result in results
        if result.note
    ]
    return {"invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notes}]} if notes else {}


def _artifact(path: str) -> dict[str, str]:
    """The file as a SARIF ``artifactLocation``: a URI reference (``#``, ``?``, ``%``, ``:``, spaces escaped).

    A relative path is relative to ``%SRCROOT%`` (the directory the command ran in, as code scanning
    reads it: the repository's root); an absolute one is a ``file://`` URI; a non-UTF-8 name keeps its
    own bytes, percent-encoded.
    """
    if path == "-":
        return {"uri": "stdin"}
    posix = Path(path).as_posix()
    quoted = quote(os.fsencode(posix), safe="/")
    if Path(path).is_absolute():
        return {"uri": f"file://{'' if posix.startswith('/') else '/'}{quoted}"}  # file:///C:/... on Windows
    return {"uri": quoted, "uriBaseId": "%SRCROOT%"}

"""The lint rule table: every rule's code, severity and summary, and the raw finding type checks yield.

Each rule is one entry in :data:`RULES` (code, severity, summary); ``docs/lint.md`` gives each
rule's rationale with a bad and a good example. What a lint run returns (findings, the report,
witnesses, the configuration) is in :mod:`creatorpack.lint.report`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Final, TypeAlias

from creatorpack.contract.findings import RawFinding
from creatorpack.lint._rationale import RATIONALES

__all__ = ["RULES", "Raw", "Rule", "Severity"]


class Severity(StrEnum):
    """How much a finding counts: an error fails the lint, a warning only with ``--strict``."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Rule:
    """A lint rule: its stable code, its severity, and what it finds."""

    code: str
    severity: Severity
    summary: str
    rationale: str = ""
    """Why the rule exists (its paragraph of ``docs/lint.md``); SARIF output gives it as the rule's help."""


_E, _W = Severity.ERROR, Severity.WARNING

RULES: Final = {
    rule.code: replace(rule, rationale=RATIONALES[rule.code])
    for rule in (
        Rule("unknown-reference", _E, "an *_id or *_ids value names an item that does not exist"),
        Rule("unknown-actor", _W, "an actor id that no reader card of kind actor has"),
        Rule("duplicate-id", _E, "two items of one collection share an id"),
        Rule("output-sha256-mismatch", _E, "generation_record.output_sha256 differs from the asset's sha256"),
        Rule("input-sha256-mismatch", _E, "an input asset's sha256 differs from the referenced asset's"),
        Rule("path-not-pointer", _E, "a condition or effect path is not a JSON Pointer"),
        Rule("unknown-state-path", _E, "a condition or effect path that the state schema does not have"),
        Rule("comparison-type-mismatch", _E, "a comparison that cannot hold on the path's type"),
        Rule("value-out-of-range", _E, "a compared value outside the integer range or the set's enum"),
        Rule("observed-value-mismatch", _E, "an observed value that the observation cannot answer"),
        Rule("effect-type-mismatch", _E, "an effect on the wrong type, or a set value outside its enum"),
        Rule("unknown-progression-protocol", _W, "a 0.4 progression protocol other than service.progression/1"),
        Rule("cover-kind", _W, "a cover that is not an image, or a motion cover that is a still image or audio"),
        Rule("rule-without-when", _W, "an effect rule without a when, which the runtime fires on every turn"),
        Rule("unplayed-scope", _W, "an item whose entry_ids name only entries no session can start"),
        Rule("binding-role", _W, "a binding meant as the background whose role is not 'background'"),
        Rule("increment-by-zero", _W, "an increment by 0, which never changes its integer"),
        Rule("limit-out-of-range", _W, "an increment's limit beyond its integer's range, on the side it moves to"),
        Rule("initial-state-mismatch", _E, "a runtime entry's initial_state does not fit the state schema"),
        Rule("unresolved-condition-ref", _E, "a condition_ref that points at no sub-condition of its when"),
        Rule("never-holds", _E, "a condition that can never hold given the schema's bounds and enums"),
        Rule("unreachable", _E, "an achievement, ending or rule that no sequence of turns reaches"),
        Rule("reachability-bound", _W, "the reachability search hit its bound before deciding"),
        Rule(
            "never-revealed",
            _W,
            "a reader card, asset, casting or one of their parts that no sequence of turns reveals",
        ),
        Rule(
            "artwork-not-revealed",
            _W,
            "an achievement or ending that can unlock before its artwork asset is revealed: shown without its art",
        ),
        Rule("rejected-rule", _W, "an effect rule that a rejected increment undoes whenever it fires"),
        Rule("spoiler-title", _W, "public metadata names a hidden achievement's or an ending's title"),
        Rule(
            "spoiler-asset",
            _W,
            "a cover that is reward_only, revealed only later, or a hidden achievement's or an ending's art",
        ),
        Rule("unused-asset", _W, "with --assets: an asset that nothing references"),
        Rule("asset-file-missing", _E, "no file for an asset in the --assets directory"),
        Rule("asset-sha256-mismatch", _E, "an asset file's sha256 differs from the pack's"),
        Rule("asset-size-mismatch", _E, "an asset file's size differs from byte_size"),
        Rule("asset-mime-mismatch", _E, "an asset file's content is not of its mime_type"),
        Rule("unlisted-file", _W, "a file in the --assets directory that no asset names"),
        Rule("unknown-rule-kind", _W, "a rule kind the runtime does not know: played as an effect rule"),
        Rule("unknown-effect-op", _E, "an effect op the runtime does not know: always rejected"),
        Rule("ignored-member", _W, "a member the runtime never reads, where the contract accepts any"),
        Rule("unknown-state-type", _W, "a state schema type the runtime does not know: any value passes"),
        Rule("unused-observation", _W, "an observation that no condition reads: its answers change nothing"),
        Rule("unrewarded-asset", _W, "a reward_only asset that no achievement, ending or badge gives"),
        Rule("unawarded-badge", _W, "a badge that no achievement or ending awards"),
        Rule("unplayable-ending", _W, "an ending without an id or a when condition: never reached"),
    )
}
"""Every lint rule by code."""

Raw: TypeAlias = RawFinding
"""A finding before it is located (path, code, message): validation's raw finding type."""

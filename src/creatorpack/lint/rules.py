"""The lint rule table and the types a lint run returns: findings, reports, witnesses, configuration.

Each rule is one entry in :data:`RULES` (code, severity, summary); ``docs/lint.md`` gives each
rule's rationale with a bad and a good example.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from creatorpack._json import a_python_type
from creatorpack.contract.findings import RawFinding
from creatorpack.contract.validation import Report, Violation
from creatorpack.lint._rationale import RATIONALES
from creatorpack.lint._suggest import did_you_mean

if TYPE_CHECKING:
    from os import PathLike

    from creatorpack.lint.assets import AssetSource

__all__ = [
    "RULES",
    "Finding",
    "LintConfig",
    "LintReport",
    "Raw",
    "Rule",
    "Severity",
    "Witness",
]


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


@dataclass(frozen=True, slots=True)
class Finding(Violation):
    """A :class:`~creatorpack.Violation` of a lint rule, with the rule's severity."""

    severity: str = Severity.ERROR

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used by ``--format json``: a violation's, plus the severity."""
        return {**Violation.to_dict(self), "severity": str(self.severity)}


@dataclass(frozen=True, slots=True)
class LintConfig:
    """What to check: ignored codes, asset files, and the reachability search's bounds.

    ``max_states`` bounds the exhaustive search in distinct states explored (and the guided search
    that follows one that stopped at it in turns played, at most 2,000), so findings are the same on
    every machine; ``max_seconds`` is only a safety net, and a finding it causes says so.

    ``assets`` is a directory or any :class:`~creatorpack.lint.assets.AssetSource`.
    """

    ignore: frozenset[str] = frozenset()
    assets: PathLike[str] | AssetSource | None = None
    max_states: int = 200_000
    max_seconds: float = 60.0
    reachability: bool = True
    per_item_ignores: Mapping[str, Collection[str]] = field(default_factory=dict)
    """Codes silenced for one item: by a JSON Pointer (``/progression/achievements/3``: the item and
    everything inside it) or by an id (every item with that ``id``, in any collection)."""

    def __post_init__(self) -> None:
        """Refuse, at once and by name, what the search would trip over later (``TypeError``/``ValueError``)."""
        ignore: object = self.ignore
        if isinstance(ignore, str) or not isinstance(ignore, frozenset | set | list | tuple):
            raise TypeError(f"LintConfig.ignore must be a set of codes, not {a_python_type(ignore)} ({ignore!r})")
        if not all(isinstance(code, str) for code in ignore):
            raise TypeError(f"LintConfig.ignore must hold codes (strings): {sorted(map(repr, ignore))}")
        unknown = sorted(set(ignore) - RULES.keys())
        if unknown:
            hint = did_you_mean(unknown[0], RULES)
            raise ValueError(f"LintConfig.ignore: unknown rule code(s) {', '.join(map(repr, unknown))}{hint}")
        object.__setattr__(self, "ignore", frozenset(ignore))
        states: object = self.max_states
        if isinstance(states, bool) or not isinstance(states, int):
            raise TypeError(f"LintConfig.max_states must be an int, not {a_python_type(states)}")
        if states < 1:
            raise ValueError(f"LintConfig.max_states must be 1 or more, not {states}")
        seconds: object = self.max_seconds
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise TypeError(f"LintConfig.max_seconds must be a number, not {a_python_type(seconds)}")
        if not 0 <= seconds < math.inf:
            raise ValueError(f"LintConfig.max_seconds must be a finite number, 0 or more, not {seconds}")
        object.__setattr__(self, "per_item_ignores", _per_item(self.per_item_ignores))


def _per_item(value: object) -> dict[str, frozenset[str]]:
    """``per_item_ignores`` checked: item keys (pointers or ids) to sets of known codes."""
    if not isinstance(value, Mapping):
        raise TypeError(f"LintConfig.per_item_ignores must map items to codes, not {a_python_type(value)}")
    checked: dict[str, frozenset[str]] = {}
    for item, codes in value.items():
        if not isinstance(item, str) or not item:
            raise TypeError(f"LintConfig.per_item_ignores: an item is a JSON Pointer or an id, not {item!r}")
        if isinstance(codes, str) or not isinstance(codes, frozenset | set | list | tuple):
            raise TypeError(f"LintConfig.per_item_ignores[{item!r}] must be a set of codes, not {a_python_type(codes)}")
        unknown = sorted(str(code) for code in codes if code not in RULES)
        if unknown:
            hint = did_you_mean(unknown[0], RULES)
            raise ValueError(f"LintConfig.per_item_ignores[{item!r}]: unknown rule code(s) {', '.join(unknown)}{hint}")
        checked[item] = frozenset(codes)
    return checked


@dataclass(frozen=True, slots=True)
class Witness:
    """A sequence of turns (observation answers) after which a goal is reached.

    ``entry`` is the runtime entry the turns start from (``None``: the default, the first).
    """

    target: str
    turns: tuple[Mapping[str, Any], ...]
    entry: str | None = None


@dataclass(frozen=True, slots=True, repr=False)
class LintReport:
    """Findings for one pack; ``contract`` holds the contract report.

    An invalid pack is not linted: its findings are its contract violations, as errors.

    Goals are keyed ``kind:id`` (``achievement:``, ``ending:``, ``rule:`` for a rule being active,
    ``completion:`` for a rule completing) and, for the first three, by the bare id as well.
    """

    contract: Report
    findings: tuple[Finding, ...] = ()
    witnesses: Mapping[str, Witness] = field(default_factory=dict)
    proofs: Mapping[str, str] = field(default_factory=dict)
    """Why each goal proved unreachable is so, by the same keys as :attr:`witnesses`."""
    searched: bool = False
    """Whether the reachability search ran (it runs only on a pack without other lint errors; its
    own ``unreachable`` findings are errors, so :attr:`errors` alone cannot tell)."""

    @property
    def errors(self) -> tuple[Finding, ...]:
        """Findings of severity error."""
        return tuple(f for f in self.findings if f.severity == Severity.ERROR)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        """Findings of severity warning."""
        return tuple(f for f in self.findings if f.severity == Severity.WARNING)

    def __repr__(self) -> str:
        # Witnesses are keyed twice (``achievement:x`` and ``x``) and may be long: name each goal once.
        goals = sorted({w.target for w in self.witnesses.values()})
        return (
            f"LintReport(version={self.contract.version!r}, valid={self.contract.valid}, "
            f"errors={len(self.errors)}, warnings={len(self.warnings)}, findings={self.findings!r}, "
            f"reached={goals!r}, unreachable={sorted(self._proven())!r}, searched={self.searched})"
        )

    def __str__(self) -> str:
        """One line per finding (``line:column: severity[code]: message``), then a count: what ``print`` shows."""
        lines = [
            f"{f.line or '-'}:{f.column or '-'}: {f.severity}[{f.code}]: {f.message}"
            + (f" (at {f.pointer})" if f.pointer else "")
            for f in self.findings
        ]
        reached = len({w.target for w in self.witnesses.values()})
        search = (
            f"{reached} goal(s) reached, {len(self._proven())} proven unreachable"
            if self.searched
            else "reachability not searched"
        )
        lines.append(f"{len(self.errors)} error(s), {len(self.warnings)} warning(s); {search}")
        return "\n".join(lines)

    def _proven(self) -> set[str]:
        """The goals proven unreachable, each once (by its ``kind:id`` key)."""
        return {key for key in self.proofs if ":" in key}

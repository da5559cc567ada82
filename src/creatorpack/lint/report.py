"""What a lint run takes and returns: its configuration, its findings, the witnesses, the report.

Apart from the rule table (:mod:`creatorpack.lint.rules`), so that the checks, which need only
the rule table and the raw finding type, never import the report, nor the report the checks
(beyond the asset source's type).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from creatorpack._json import a_python_type
from creatorpack.contract.validation import Report, Violation
from creatorpack.lint._suggest import did_you_mean
from creatorpack.lint.rules import RULES, Severity

if TYPE_CHECKING:
    from os import PathLike

    from creatorpack.lint.assets import AssetSource

__all__ = ["Finding", "LintConfig", "LintReport", "Witness"]


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

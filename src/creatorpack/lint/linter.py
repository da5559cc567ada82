"""Find what the contract cannot say: broken references, impossible conditions, unreachable goals.

:func:`lint` runs only on contract-valid packs (an invalid pack's report carries its contract
violations instead). What runs on a pack is its version's row of :data:`CHECKS`; checks are
generators that yield findings, so every finding is reported. ``docs/lint.md`` gives each rule's
rationale with a bad and a good example.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeAlias

from creatorpack._json import a_python_type, pointer
from creatorpack.contract.conditions import Goal
from creatorpack.contract.findings import locate_and_sort
from creatorpack.contract.validation import Report, Source, Validator, Violation
from creatorpack.lint.assets import (
    AssetSource,
    DirectoryAssets,
    check_asset_files,
    check_unused_assets,
    sniff,
)
from creatorpack.lint.conditions import check_satisfiable, check_state_and_conditions, one_per_mistake
from creatorpack.lint.ignored import (
    check_binding_roles,
    check_effect_ops,
    check_effect_rule_members,
    check_progression_protocol,
    check_root_members,
    check_rule_kinds,
    check_rules_without_when,
    check_state_types,
    check_unawarded_badges,
    check_unplayable_endings,
    check_unplayed_scopes,
    check_unrewarded_assets,
    check_unused_observations,
)
from creatorpack.lint.index import PackIndex
from creatorpack.lint.publication import check_hashes, check_spoilers
from creatorpack.lint.references import check_references
from creatorpack.lint.report import Finding, LintConfig, LintReport, Witness
from creatorpack.lint.rules import RULES, Raw, Rule, Severity

__all__ = [
    "CHECKS",
    "REVEAL_GOALS",
    "RULES",
    "AssetCheck",
    "Check",
    "Checks",
    "Finding",
    "LintConfig",
    "LintReport",
    "Rule",
    "Severity",
    "Witness",
    "check_asset_files",
    "check_hashes",
    "check_references",
    "check_satisfiable",
    "check_spoilers",
    "check_state_and_conditions",
    "check_unused_assets",
    "contract_findings",
    "explain",
    "goals",
    "lint",
    "sniff",
]

Check: TypeAlias = Callable[[PackIndex], Iterable[Raw]]
"""A check of the pack: its findings."""
AssetCheck: TypeAlias = Callable[[PackIndex, AssetSource], Iterable[Raw]]
"""A check of the pack's asset files: its findings."""


@dataclass(frozen=True, slots=True)
class Checks:
    """What lint runs on one contract version: pack checks, asset-file checks, and the search."""

    pack: tuple[Check, ...]
    assets: tuple[AssetCheck, ...]
    reachability: bool


def _unused(index: PackIndex, source: AssetSource) -> Iterable[Raw]:  # noqa: ARG001 - an AssetCheck
    return check_unused_assets(index)


_RUNTIME: Final[tuple[Check, ...]] = (
    check_references,
    check_hashes,
    check_state_and_conditions,
    check_satisfiable,
    check_spoilers,
    check_root_members,
    check_rule_kinds,
    check_effect_ops,
    check_effect_rule_members,
    check_rules_without_when,
    check_state_types,
    check_unused_observations,
    check_unplayed_scopes,
)
_PROGRESSION: Final[tuple[Check, ...]] = (*_RUNTIME, check_unawarded_badges, check_unplayable_endings)

CHECKS: Final[Mapping[str, Checks]] = {
    "0.2": Checks((check_references,), (check_asset_files,), reachability=False),
    "0.3": Checks(_RUNTIME, (check_asset_files, _unused), reachability=True),
    "0.4": Checks((*_PROGRESSION, check_progression_protocol), (check_asset_files, _unused), reachability=True),
    "0.5": Checks(
        (*_PROGRESSION, check_unrewarded_assets, check_binding_roles), (check_asset_files, _unused), reachability=True
    ),
}
"""What lint runs, per contract version."""


def lint(source: Source, config: LintConfig | None = None, *, validator: Validator | None = None) -> LintReport:
    """Lint a pack: validate it, then (if valid) run its version's checks; see :data:`RULES`."""
    if config is not None and not isinstance(config, LintConfig):
        raise TypeError(f"config must be a LintConfig, not {a_python_type(config)}")
    config = config or LintConfig()
    validator = validator or Validator()
    checked = validator.check(source)  # parse once: lint locates its findings in the bytes validation read
    report, text = checked.report, checked.text
    if not report.valid or report.document is None or report.version is None:
        return LintReport(report, contract_findings(report))  # its violations are its errors
    index = PackIndex(report.document)
    checks = CHECKS[report.version]
    raw: list[Raw] = [finding for check in checks.pack for finding in check(index)]
    assets = _asset_source(config.assets)
    if assets is not None:
        raw.extend(finding for check in checks.assets for finding in check(index, assets))
    witnesses: dict[str, Witness] = {}
    proofs: dict[str, str] = {}
    has_errors = any(RULES[r.code].severity == Severity.ERROR for r in raw)
    searched = config.reachability and checks.reachability and not has_errors
    if searched:
        witnesses, proofs, extra = _decide(index, config)
        raw.extend(extra)
    raw = one_per_mistake([r for r in raw if r.code not in config.ignore])
    if config.per_item_ignores:
        raw = list(_not_silenced(raw, index.pack, config.per_item_ignores))
    return LintReport(report, _locate_findings(raw, text), witnesses, proofs, searched=searched)


def _not_silenced(
    raw: Iterable[Raw], pack: Mapping[str, object], per_item: Mapping[str, Collection[str]]
) -> Iterator[Raw]:
    """The findings that no ``per_item_ignores`` entry silences: one on the item or inside it, of a listed code.

    A key that starts with ``/`` is a JSON Pointer; any other is an id, standing for every item
    (an object with that ``id``) anywhere in the pack. An id survives reordering; a pointer does not.
    """
    places: list[tuple[str, Collection[str]]] = []
    ids = _items_by_id(pack) if any(not key.startswith("/") for key in per_item) else {}
    for key, codes in per_item.items():
        places += [(key, codes)] if key.startswith("/") else [(at, codes) for at in ids.get(key, ())]
    for finding in raw:
        at = pointer(finding.path)
        if not any(finding.code in codes and (at == key or at.startswith(key + "/")) for key, codes in places):
            yield finding


def _items_by_id(node: object, path: tuple[str | int, ...] = ()) -> dict[str, list[str]]:
    """Every object with a string ``id``, by that id: the pointers of the items."""
    found: dict[str, list[str]] = {}
    children: Iterable[tuple[str | int, object]] = ()
    if isinstance(node, Mapping):
        ident = node.get("id")
        if isinstance(ident, str):
            found.setdefault(ident, []).append(pointer(path))
        children = node.items()
    elif isinstance(node, list):
        children = enumerate(node)
    for key, child in children:
        for ident, at in _items_by_id(child, (*path, key)).items():
            found.setdefault(ident, []).extend(at)
    return found


def _decide(index: PackIndex, config: LintConfig) -> tuple[dict[str, Witness], dict[str, str], Sequence[Raw]]:
    from creatorpack.lint import reach  # noqa: PLC0415 - the search imports the runtime, only needed here
    from creatorpack.lint.artwork import check_unrevealed_artwork  # noqa: PLC0415 - replays witnesses in the runtime

    engine = index.engine  # one for every check that plays: compiled once, each condition's function made once
    if engine is None:
        return {}, {}, []
    outcome = reach.decide(index.pack, config.max_states, config.max_seconds, time.monotonic, engine=engine)
    default = outcome.entries[0] if outcome.entries else None
    witnesses: dict[str, Witness] = {}
    proofs: dict[str, str] = {}
    for target in outcome.targets:
        # The report's keys are text, as users name goals: kind:ID, and a bare id for an achievement, ending or rule.
        goal = target.goal
        named = str(goal)
        keys = (named,) if goal.kind == "completion" or goal.kind in reach.REVEAL_KINDS else (named, goal.id)
        reached = outcome.witnesses.get(goal)
        for key in keys:
            if reached is not None and key not in witnesses and key not in proofs:
                entry = reached.entry if reached.entry != default else None
                witnesses[key] = Witness(named, tuple(reached.turns), entry)
            elif goal in outcome.proofs and key not in witnesses and key not in proofs:
                proofs[key] = outcome.proofs[goal]
    return witnesses, proofs, [*outcome.findings, *check_unrevealed_artwork(index.pack, outcome.witnesses, engine)]


def _asset_source(assets: os.PathLike[str] | AssetSource | None) -> AssetSource | None:
    if assets is None or isinstance(assets, AssetSource):
        return assets
    return DirectoryAssets(Path(assets))


REVEAL_GOALS: Final = frozenset(
    ["reader_card", "avatar", "image", "relationship", "asset", "visual_anchor", "casting", "deed", "knowledge"]
)
"""The kinds of goal that are an item being revealed (the :attr:`Goal.kind` of some of :func:`goals`)."""


def goals(document: Mapping[str, object]) -> tuple[Goal, ...]:
    """Every goal of a valid, playable pack, in document order (none for an unplayable one).

    Kinds: ``achievement``, ``ending``, ``rule``, ``completion`` (a rule completing), and the
    reveals ``reader_card``, ``avatar``, ``image``, ``relationship``, ``asset``, ``visual_anchor``,
    ``casting``, ``deed`` and ``knowledge``. :func:`explain` and ``creatorpack lint --explain``
    take these goals, or their ``kind:id`` text (``str(goal)``), and a bare id for an achievement,
    ending or rule.
    """
    from creatorpack.lint import reach  # noqa: PLC0415 - the runtime is only needed here
    from creatorpack.play.engine import Engine  # noqa: PLC0415

    try:
        engine = Engine(document)
    except Exception:  # noqa: BLE001 - an unplayable pack has no goals
        return ()
    return tuple(Goal(target.kind, target.ident) for target in reach.targets(engine))


def explain(source: Source, target: Goal | str, config: LintConfig | None = None) -> Witness | None:
    """A sequence of turns that reaches ``target`` (a :class:`Goal` of :func:`goals`, its ``kind:id``, or an id).

    Raises ``ValueError`` for a malformed ``kind:id`` (a colon with no kind before it).
    """
    goal = Goal.parse(target) if isinstance(target, str) and ":" in target else target
    report = lint(source, config)
    return report.witnesses.get(str(goal))


def _locate_findings(raw: Iterable[Raw], text: bytes | None) -> tuple[Finding, ...]:
    located = locate_and_sort(raw, text)
    return tuple(
        Finding(f.pointer, f.raw.code, f.raw.message, f.line, f.column, severity=RULES[f.raw.code].severity)
        for f in located
    )


def contract_findings(report: Report) -> tuple[Finding, ...]:
    """A contract report's violations as error findings (lint reports them for invalid packs)."""
    return tuple(_violation_finding(v) for v in report.violations)


def _violation_finding(v: Violation) -> Finding:
    return Finding(v.pointer, v.code, v.message, v.line, v.column, severity=Severity.ERROR)

"""Find what the contract cannot say: broken references, impossible conditions, unreachable goals.

:func:`lint` runs only on contract-valid packs (an invalid pack's report carries its contract
violations instead). Each rule is one entry in :data:`RULES` (code, severity, summary); checks
are generators that yield findings, so every finding is reported. ``docs/lint.md`` gives each
rule's rationale with a bad and a good example.
"""

from __future__ import annotations

import functools
import hashlib
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from creatorpack import _locate
from creatorpack._sat import Checker
from creatorpack.conditions import json_equal, parse_pointer, sub_condition
from creatorpack.state import check_state, schema_at
from creatorpack.validation import Report, Source, Validator, Violation, pointer

__all__ = [
    "CHECKS",
    "RULES",
    "Finding",
    "LintConfig",
    "LintReport",
    "Rule",
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
    "lint",
    "sniff",
]


@dataclass(frozen=True, slots=True)
class Rule:
    """A lint rule: its stable code, its severity, and what it finds."""

    code: str
    severity: str
    summary: str


RULES: Final = {
    rule.code: rule
    for rule in (
        Rule("unknown-reference", "error", "an *_id or *_ids value names an item that does not exist"),
        Rule("unknown-actor", "warning", "an actor id that no reader card of kind actor has"),
        Rule("duplicate-id", "error", "two items of one collection share an id"),
        Rule("output-sha256-mismatch", "error", "generation_record.output_sha256 differs from the asset's sha256"),
        Rule("input-sha256-mismatch", "error", "an input asset's sha256 differs from the referenced asset's"),
        Rule("path-not-pointer", "error", "a condition or effect path is not a JSON Pointer"),
        Rule("unknown-state-path", "error", "a condition or effect path that the state schema does not have"),
        Rule("comparison-type-mismatch", "error", "a comparison that cannot hold on the path's type"),
        Rule("value-out-of-range", "error", "a compared value outside the integer range or the set's enum"),
        Rule("observed-value-mismatch", "error", "an observed value that the observation cannot answer"),
        Rule("effect-type-mismatch", "error", "an effect on the wrong type, or a set value outside its enum"),
        Rule("initial-state-mismatch", "error", "a runtime entry's initial_state does not fit the state schema"),
        Rule("unresolved-condition-ref", "error", "a condition_ref that points at no sub-condition of its when"),
        Rule("never-holds", "error", "a condition that can never hold given the schema's bounds and enums"),
        Rule("unreachable", "error", "an achievement, ending or rule that no sequence of turns reaches"),
        Rule("reachability-bound", "warning", "the reachability search hit its bound before deciding"),
        Rule("spoiler-title", "warning", "public metadata names a hidden achievement's or an ending's title"),
        Rule("spoiler-asset", "warning", "public metadata uses an asset that is reward_only"),
        Rule("unused-asset", "warning", "with --assets: an asset that nothing references"),
        Rule("asset-file-missing", "error", "no file for an asset in the --assets directory"),
        Rule("asset-sha256-mismatch", "error", "an asset file's sha256 differs from the pack's"),
        Rule("asset-size-mismatch", "error", "an asset file's size differs from byte_size"),
        Rule("asset-mime-mismatch", "error", "an asset file's content is not of its mime_type"),
        Rule("unlisted-file", "warning", "a file in the --assets directory that no asset names"),
    )
}
"""Every lint rule by code."""


@dataclass(frozen=True, slots=True)
class Finding(Violation):
    """A :class:`~creatorpack.Violation` of a lint rule, with the rule's severity."""

    severity: str = "error"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used by ``--format json``: a violation's, plus the severity."""
        return {**Violation.to_dict(self), "severity": self.severity}


@dataclass(frozen=True, slots=True)
class LintConfig:
    """What to check: ignored codes, an assets directory, and the reachability search's bounds."""

    ignore: frozenset[str] = frozenset()
    assets: Path | None = None
    max_states: int = 20_000
    max_seconds: float = 5.0
    reachability: bool = True


@dataclass(frozen=True, slots=True)
class LintReport:
    """Findings for one pack; ``contract`` holds the contract report (invalid packs are not linted)."""

    contract: Report
    findings: tuple[Finding, ...] = ()
    witnesses: Mapping[str, Witness] = field(default_factory=dict)

    @property
    def errors(self) -> tuple[Finding, ...]:
        """Findings of severity error."""
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        """Findings of severity warning."""
        return tuple(f for f in self.findings if f.severity == "warning")


@dataclass(frozen=True, slots=True)
class Witness:
    """A sequence of turns (observation answers) after which a goal is reached."""

    target: str
    turns: tuple[Mapping[str, Any], ...]


_Raw = tuple[tuple[str | int, ...], str, str]  # path, code, message

_COLLECTIONS: Final = {
    "asset": "assets",
    "illustration": "illustrations",
    "badge": "badges",
    "entry": "entries",
    "achievement": "achievements",
    "ending": "endings",
    "casting": "castings",
    "observation": "observations",
    "anchor": "visual_anchors",
}
_ID_KEY: Final = re.compile(
    r"^(?:.*_)?(asset|illustration|badge|entry|achievement|ending|casting|observation|anchor|actor)_ids?$"
)


class _Pack:
    """Indexes of one valid pack: its collections, conditions, effects and references."""

    def __init__(self, pack: Mapping[str, Any]) -> None:
        self.pack = pack
        self._conditions: list[tuple[tuple[str | int, ...], Mapping[str, Any]]] | None = None
        self.version = pack["protocol_version"]
        runtime = pack.get("runtime") if self.version != "0.2" else None
        self.schema: Mapping[str, Any] = runtime["state"]["schema"] if runtime else {}
        self.observations: dict[str, Mapping[str, Any]] = {}
        if runtime:
            self.observations = {o["id"]: o for o in runtime.get("observations", []) if isinstance(o, Mapping)}
        progression = pack.get("progression") if isinstance(pack.get("progression"), Mapping) else {}
        assert isinstance(progression, Mapping)
        self.progression = progression
        self.collections: dict[str, dict[str, tuple[str | int, ...]]] = {}
        self.duplicates: list[_Raw] = []
        if self.version == "0.2":
            self._collect("assets", pack.get("assets"), ("assets",))
            self._collect("actors", pack.get("actors"), ("actors",))
            self._collect("entries", pack.get("entries"), ("entries",))
            self._collect("visual_anchors", pack.get("visual_anchors"), ("visual_anchors",))
            self._collect("arcs", pack.get("arcs"), ("arcs",))
            return
        self._collect("assets", pack.get("assets"), ("assets",))
        self._collect("illustrations", pack.get("illustrations"), ("illustrations",))
        self._collect("reader_cards", pack.get("reader_cards"), ("reader_cards",))
        self._collect("content", pack.get("content"), ("content",))
        self._collect("castings", pack.get("character_castings"), ("character_castings",))
        self._collect("visual_anchors", pack.get("visual_anchors"), ("visual_anchors",))
        self._collect("achievements", progression.get("achievements"), ("progression", "achievements"))
        self._collect("endings", progression.get("endings"), ("progression", "endings"))
        self._collect("badges", progression.get("badges"), ("progression", "badges"))
        presentation = pack.get("presentation") if isinstance(pack.get("presentation"), Mapping) else {}
        assert isinstance(presentation, Mapping)
        self._collect(
            "illustration_rules", presentation.get("illustration_rules"), ("presentation", "illustration_rules")
        )
        if runtime:
            self._collect("rules", runtime.get("rules"), ("runtime", "rules"))
            self._collect("observations", runtime.get("observations"), ("runtime", "observations"))
            self._collect("runtime_entries", runtime.get("entries"), ("runtime", "entries"), keys=("id", "entry_id"))
        self._collect("pack_entries", pack.get("entries"), ("entries",))
        entries = {**self.collections.get("runtime_entries", {}), **self.collections.get("pack_entries", {})}
        self.collections["entries"] = entries
        self.collections["actors"] = {
            ident: where
            for ident, where in self.collections.get("reader_cards", {}).items()
            if _get(pack, where).get("kind", "actor") == "actor"
        }

    def _collect(self, name: str, items: Any, at: tuple[str | int, ...], keys: Sequence[str] = ("id",)) -> None:
        found: dict[str, tuple[str | int, ...]] = {}
        for index, item in enumerate(items if isinstance(items, list) else []):
            if not isinstance(item, Mapping):
                continue
            ident = next((item[k] for k in keys if isinstance(item.get(k), str)), None)
            if ident is None:
                continue
            where = (*at, index)
            if ident in found:
                self.duplicates.append(
                    (
                        (*where, "id"),
                        "duplicate-id",
                        f"id {ident!r} is used twice in {name} (also at {pointer(found[ident])}); rename one",
                    )
                )
            else:
                found[ident] = where
        self.collections[name] = found

    def conditions(self) -> list[tuple[tuple[str | int, ...], Mapping[str, Any]]]:
        """Every top-level condition (a when, reveal_when, completion) with its path."""
        return [] if self.version == "0.2" else self._scan[1]

    @property
    def nodes(self) -> list[tuple[tuple[str | int, ...], Any]]:
        """Every object member whose name ends in ``_id`` or ``_ids``, with its path."""
        return self._scan[0]

    @functools.cached_property
    def _scan(self) -> tuple[list[tuple[tuple[str | int, ...], Any]], list[tuple[tuple[str | int, ...], Any]]]:
        # One iterative walk over containers only: documents are big, and most values are leaves.
        references: list[tuple[tuple[str | int, ...], Any]] = []
        conditions: list[tuple[tuple[str | int, ...], Any]] = []
        stack: list[tuple[tuple[str | int, ...], Any]] = [((), self.pack)]
        while stack:
            where, value = stack.pop()
            if type(value) is dict:
                for key, child in value.items():
                    if key.endswith(("_id", "_ids")):
                        references.append(((*where, key), child))
                    if key in _CONDITION_KEYS and type(child) is dict and "op" in child:
                        conditions.append(((*where, key), child))
                    elif type(child) in (dict, list):
                        stack.append(((*where, key), child))
            elif type(value) is list:
                stack.extend(((*where, i), v) for i, v in enumerate(value) if type(v) in (dict, list))
        references.sort(key=lambda item: [str(t) for t in item[0]])
        conditions.sort(key=lambda item: [str(t) for t in item[0]])
        return references, conditions


_CONDITION_KEYS: Final = frozenset(["when", "reveal_when", "completion"])


def _get(node: Any, path: Sequence[str | int]) -> Any:
    for token in path:
        node = node[token]
    return node


def _show(value: Any) -> str:
    return repr(value) if not isinstance(value, str) or len(value) < 60 else repr(value[:57] + "...")


def _leaves(node: Any, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], Mapping[str, Any]]]:
    if not isinstance(node, Mapping):
        return
    op = node.get("op")
    if op in ("all", "any"):
        for index, child in enumerate(node.get("conditions", [])):
            yield from _leaves(child, (*path, "conditions", index))
    elif op == "not":
        yield from _leaves(node.get("condition"), (*path, "condition"))
    else:
        yield path, node


# -- checks ----------------------------------------------------------------------------------


def check_references(index: _Pack) -> Iterator[_Raw]:
    """Ids are unique per collection, and every *_id / *_ids names an existing item."""
    yield from index.duplicates
    for path, node in index.nodes:
        if not path or type(path[-1]) is not str or not path[-1].endswith(("_id", "_ids")):
            continue
        key = path[-1]
        match = _ID_KEY.match(key)
        if match is None or (
            index.version == "0.2" and path[0] not in ("default_entry_id", "entries", "assets", "actors")
        ):
            continue
        if key in ("entry_ids",) and index.version == "0.2":
            continue  # 0.2 scopes are not shown
        kind = match.group(1)
        collection = "actors" if kind == "actor" else _COLLECTIONS[kind]
        known = index.collections.get(collection)
        if known is None or (kind == "anchor" and not known):
            continue  # visual anchors' shape is not shown: only anchors with ids can be checked
        values = node if isinstance(node, list) else [node]
        for position, value in enumerate(values):
            if not isinstance(value, str) or value in known:
                continue
            where = (*path, position) if isinstance(node, list) else path
            if kind == "actor" and index.version != "0.2":
                yield (
                    where,
                    "unknown-actor",
                    f"{key}: no reader card of kind actor has the id {value!r}; add one or fix the id",
                )
            elif kind == "entry" and not known:
                yield (
                    where,
                    "unknown-reference",
                    f"{key}: {value!r} names an entry, but no entry has an id; give entries an 'id'",
                )
            else:
                options = ", ".join(sorted(known)[:8]) or "none"
                yield (
                    where,
                    "unknown-reference",
                    f"{key}: no {collection[:-1].replace('_', ' ')} has the id {value!r} (known: {options})",
                )


def check_hashes(index: _Pack) -> Iterator[_Raw]:
    """generation_record hashes agree with the assets they describe."""
    assets = [a for a in index.pack.get("assets", []) if isinstance(a, Mapping)] if index.version != "0.2" else []
    by_id = {a.get("id"): a for a in assets}
    for position, asset in enumerate(assets):
        record = asset.get("generation_record")
        if not isinstance(record, Mapping):
            continue
        output = record.get("output_sha256")
        if isinstance(output, str) and output != asset.get("sha256"):
            yield (
                ("assets", position, "generation_record", "output_sha256"),
                "output-sha256-mismatch",
                (
                    f"output_sha256 {output[:12]}… is not this asset's sha256 {str(asset.get('sha256'))[:12]}…; "
                    "record the file you ship"
                ),
            )
        for number, item in enumerate(
            record.get("input_assets", []) if isinstance(record.get("input_assets"), list) else []
        ):
            source = by_id.get(item.get("asset_id")) if isinstance(item, Mapping) else None
            if source is not None and item.get("sha256") != source.get("sha256"):
                yield (
                    ("assets", position, "generation_record", "input_assets", number, "sha256"),
                    "input-sha256-mismatch",
                    (
                        f"input {item.get('asset_id')!r} has sha256 {str(source.get('sha256'))[:12]}…, "
                        f"not {str(item.get('sha256'))[:12]}…"
                    ),
                )


def check_state_and_conditions(index: _Pack) -> Iterator[_Raw]:
    """Paths exist, comparisons and effects fit their types, initial states fit the schema."""
    if index.version == "0.2":
        return
    schema = index.schema
    runtime = index.pack["runtime"]
    for number, entry in enumerate(runtime.get("entries", [])):
        for problem in check_state(schema, entry.get("initial_state", {})):
            tokens = parse_pointer(problem.pointer if problem.pointer != "/" else "") or ()
            yield ("runtime", "entries", number, "initial_state", *tokens), "initial-state-mismatch", problem.message
    for path, condition in index.conditions():
        for leaf_path, leaf in _leaves(condition, path):
            yield from _check_leaf(index, leaf_path, leaf)
    for number, rule in enumerate(runtime.get("rules", [])):
        effects = rule.get("effects") if isinstance(rule, Mapping) and rule.get("kind") != "guidance" else None
        for position, effect in enumerate(effects if isinstance(effects, list) else []):
            if isinstance(effect, Mapping):
                yield from _check_effect(index, ("runtime", "rules", number, "effects", position), effect)
    progression = index.progression
    for name in ("achievements", "endings"):
        for number, item in enumerate(progression.get(name, []) if isinstance(progression.get(name), list) else []):
            guidance = item.get("guidance") if isinstance(item, Mapping) else None
            if not isinstance(guidance, Mapping):
                continue
            listed = guidance.get("requirements")
            for position, requirement in enumerate(listed if isinstance(listed, list) else []):
                ref = requirement.get("condition_ref") if isinstance(requirement, Mapping) else None
                when = item.get("when")
                if isinstance(ref, str) and isinstance(when, Mapping) and sub_condition(when, ref) is None:
                    yield (
                        ("progression", name, number, "guidance", "requirements", position, "condition_ref"),
                        "unresolved-condition-ref",
                        (
                            f"condition_ref {ref!r} points at no sub-condition of this item's when; "
                            "use '' or '/conditions/<i>' steps through all/any groups"
                        ),
                    )


def _check_leaf(index: _Pack, path: tuple[str | int, ...], leaf: Mapping[str, Any]) -> Iterator[_Raw]:
    op = leaf.get("op")
    value = leaf.get("value")
    if op == "observed":
        ident = leaf.get("id")
        observation = index.observations.get(str(ident))
        if observation is None:
            known = ", ".join(sorted(index.observations)) or "none"
            yield (*path, "id"), "unknown-reference", f"no observation has the id {ident!r} (known: {known})"
            return
        if observation.get("type") == "boolean" and not isinstance(value, bool):
            yield (
                (*path, "value"),
                "observed-value-mismatch",
                f"observation {ident!r} is yes/no: compare with true or false, not {_show(value)}",
            )
        if observation.get("type") == "choice" and value not in observation.get("choices", {}):
            keys = ", ".join(repr(k) for k in observation.get("choices", {}))
            yield (
                (*path, "value"),
                "observed-value-mismatch",
                f"{_show(value)} is not a choice of {ident!r}; use one of {keys}",
            )
        return
    if op not in ("eq", "ne", "gt", "gte", "lt", "lte", "contains"):
        return
    raw_path = leaf.get("path")
    tokens = parse_pointer(raw_path) if isinstance(raw_path, str) else None
    if tokens is None:
        yield (
            (*path, "path"),
            "path-not-pointer",
            f"path {_show(raw_path)} is not a JSON Pointer; write it as '/{raw_path}'",
        )
        return
    target = schema_at(index.schema, tokens)
    if target is None:
        known = ", ".join("/" + k for k in index.schema.get("properties", {}))
        yield (*path, "path"), "unknown-state-path", f"the state schema has no {raw_path}; known: {known}"
        return
    kind = target.get("type")
    if op in ("gt", "gte", "lt", "lte") and kind != "integer":
        yield (
            (*path, "op"),
            "comparison-type-mismatch",
            f"{op} compares numbers, but {raw_path} is {kind or 'an enum'}: it never holds",
        )
    elif op in ("gt", "gte", "lt", "lte") and (not isinstance(value, int | float) or isinstance(value, bool)):
        yield (*path, "value"), "comparison-type-mismatch", f"{op} needs a number, not {_show(value)}: it never holds"
    elif op == "contains" and kind not in ("array", None):
        yield (
            (*path, "op"),
            "comparison-type-mismatch",
            f"contains needs a set, but {raw_path} is {kind}: it never holds",
        )
    elif op == "contains" and kind == "array" and value not in target.get("items", {}).get("enum", []):
        yield (
            (*path, "value"),
            "value-out-of-range",
            f"{_show(value)} is not one of the set's values {target['items']['enum']}",
        )
    elif op in ("eq", "ne"):
        yield from _check_equality(path, str(raw_path), target, value, op)


def _check_equality(
    path: tuple[str | int, ...], raw: str, target: Mapping[str, Any], value: Any, op: str
) -> Iterator[_Raw]:
    kind = target.get("type")
    if kind == "integer":
        if not isinstance(value, int | float) or isinstance(value, bool):
            yield (
                (*path, "value"),
                "comparison-type-mismatch",
                f"{raw} is an integer; {op} {_show(value)} is {'never' if op == 'eq' else 'always'} true",
            )
        elif not target["minimum"] <= value <= target["maximum"]:
            yield (
                (*path, "value"),
                "value-out-of-range",
                f"{value} is outside {raw}'s range {target['minimum']}..{target['maximum']}",
            )
    elif kind == "boolean" and not isinstance(value, bool):
        yield (
            (*path, "value"),
            "comparison-type-mismatch",
            f"{raw} is a boolean; compare it with true or false, not {_show(value)}",
        )
    elif kind == "array":
        enum = target.get("items", {}).get("enum", [])
        if not isinstance(value, list):
            yield (
                (*path, "value"),
                "comparison-type-mismatch",
                f"{raw} is a set; compare it with an array of its values",
            )
        elif any(v not in enum for v in value):
            yield (*path, "value"), "value-out-of-range", f"{_show(value)} has values outside the set's enum {enum}"
    elif kind == "object" and not isinstance(value, Mapping):
        yield (*path, "value"), "comparison-type-mismatch", f"{raw} is an object; {_show(value)} never equals it"
    elif (
        kind not in ("integer", "boolean", "array", "object")
        and isinstance(target.get("enum"), list)
        and not any(json_equal(value, option) for option in target["enum"])
    ):
        yield (
            (*path, "value"),
            "value-out-of-range",
            f"{_show(value)} is not one of {raw}'s values {target['enum']}",
        )


def _check_effect(index: _Pack, path: tuple[str | int, ...], effect: Mapping[str, Any]) -> Iterator[_Raw]:
    op = effect.get("op")
    if op not in ("increment", "add", "remove"):
        return
    raw = effect.get("path")
    tokens = parse_pointer(raw) if isinstance(raw, str) else None
    if not tokens:
        yield (*path, "path"), "path-not-pointer", f"path {_show(raw)} is not a JSON Pointer to a state member"
        return
    target = schema_at(index.schema, tokens)
    if target is None:
        yield (*path, "path"), "unknown-state-path", f"the state schema has no {raw}; the effect is always rejected"
        return
    if op == "increment" and target.get("type") != "integer":
        yield (
            (*path, "op"),
            "effect-type-mismatch",
            f"increment needs an integer, but {raw} is {target.get('type') or 'an enum'}",
        )
    elif op in ("add", "remove") and target.get("type") != "array":
        yield (*path, "op"), "effect-type-mismatch", f"{op} needs a set, but {raw} is {target.get('type') or 'an enum'}"
    elif op in ("add", "remove") and effect.get("value") not in target.get("items", {}).get("enum", []):
        enum = target.get("items", {}).get("enum", [])
        yield (
            (*path, "value"),
            "effect-type-mismatch",
            f"{_show(effect.get('value'))} is not one of {raw}'s values {enum}: always rejected",
        )


def check_satisfiable(index: _Pack) -> Iterator[_Raw]:
    """Conditions that can never hold, by interval and set reasoning."""
    if index.version == "0.2":
        return
    checker = Checker(index.schema, index.observations)
    for path, condition in index.conditions():
        if not checker.may_hold(condition):
            yield (
                path,
                "never-holds",
                f"{path[-1]} can never hold given the state schema's bounds and enums; fix or remove it",
            )


def check_spoilers(index: _Pack) -> Iterator[_Raw]:
    """Public metadata must not give away hidden achievements, endings or rewards."""
    publication = index.pack.get("publication")
    if index.version == "0.2" or not isinstance(publication, Mapping):
        return
    achievements = index.progression.get("achievements")
    endings = index.progression.get("endings")
    secrets = [
        (item["title"], f"hidden achievement {item.get('id')!r}")
        for item in (achievements if isinstance(achievements, list) else [])
        if isinstance(item, Mapping) and item.get("visibility") == "hidden" and isinstance(item.get("title"), str)
    ]
    secrets += [
        (item["title"], f"ending {item.get('id')!r}")
        for item in (endings if isinstance(endings, list) else [])
        if isinstance(item, Mapping) and isinstance(item.get("title"), str)
    ]
    texts: list[tuple[tuple[str | int, ...], str]] = [
        ((field_name,), publication[field_name])
        for field_name in ("tagline", "description")
        if isinstance(publication.get(field_name), str)
    ]
    tags = publication.get("tags")
    texts += [(("tags", i), t) for i, t in enumerate(tags if isinstance(tags, list) else []) if isinstance(t, str)]
    for where, text in texts:
        for title, what in secrets:
            if title.strip() and title.strip().casefold() in text.casefold():
                yield (
                    ("publication", *where),
                    "spoiler-title",
                    f"names the title of the {what} ({title!r}); readers should discover it",
                )
    assets = {a.get("id"): a for a in index.pack.get("assets", []) if isinstance(a, Mapping)}
    for key in ("cover_asset_id", "cover_motion_asset_id"):
        asset = assets.get(publication.get(key))
        if asset is not None and asset.get("access") == "reward_only":
            yield (
                ("publication", key),
                "spoiler-asset",
                f"the cover {asset.get('id')!r} is reward_only: it would show a reward before it is earned",
            )


def check_unused_assets(index: _Pack) -> Iterator[_Raw]:
    """Assets that nothing references."""
    if index.version == "0.2":
        return
    used: set[str] = set()
    for path, node in index.nodes:
        if path[0] != "assets" and re.match(r"^(?:.*_)?asset_ids?$", str(path[-1])):
            used.update(v for v in (node if isinstance(node, list) else [node]) if isinstance(v, str))
    for asset in index.pack.get("assets", []):
        record = asset.get("generation_record") if isinstance(asset, Mapping) else None
        inputs = record.get("input_assets", []) if isinstance(record, Mapping) else []
        used.update(str(i.get("asset_id")) for i in inputs if isinstance(i, Mapping))
    for position, asset in enumerate(index.pack.get("assets", [])):
        if isinstance(asset, Mapping) and asset.get("id") not in used:
            yield (
                ("assets", position, "id"),
                "unused-asset",
                f"asset {asset.get('id')!r} is referenced by nothing; use it or drop it",
            )


_MIME_SNIFF: Final[tuple[tuple[str, Callable[[bytes], bool]], ...]] = (
    ("image/png", lambda b: b.startswith(b"\x89PNG\r\n\x1a\n") and b"acTL" not in b[:4096]),
    ("image/apng", lambda b: b.startswith(b"\x89PNG\r\n\x1a\n") and b"acTL" in b[:4096]),
    ("image/jpeg", lambda b: b.startswith(b"\xff\xd8\xff")),
    ("image/webp", lambda b: b[:4] == b"RIFF" and b[8:12] == b"WEBP"),
    ("audio/wav", lambda b: b[:4] == b"RIFF" and b[8:12] == b"WAVE"),
    ("audio/mpeg", lambda b: b.startswith(b"ID3") or (len(b) > 1 and b[0] == 0xFF and b[1] & 0xE0 == 0xE0)),
    ("video/mp4", lambda b: b[4:8] == b"ftyp"),
)


def sniff(head: bytes) -> str | None:
    """The MIME type the contract knows that these first bytes show, or ``None``."""
    for mime, test in _MIME_SNIFF:
        if test(head):
            return str(mime)
    return None


def check_asset_files(index: _Pack, directory: Path) -> Iterator[_Raw]:
    """With --assets: each asset's file exists, and its sha256, size and content type agree."""
    assets = [a for a in index.pack.get("assets", []) if isinstance(a, Mapping)]
    files = {p.name: p for p in directory.rglob("*") if p.is_file()} if directory.is_dir() else {}
    named: set[str] = set()
    for position, asset in enumerate(assets):
        sha = asset.get("sha256")
        candidates = [name for name in files if isinstance(sha, str) and name.split(".")[0] == sha]
        uri = asset.get("uri")
        if not candidates and isinstance(uri, str) and (directory / uri).is_file():
            candidates = [str(Path(uri))]
            files.setdefault(str(Path(uri)), directory / uri)
        if not candidates:
            yield ("assets", position), "asset-file-missing", f"no file named {sha} (or by its uri) in {directory}"
            continue
        name = candidates[0]
        named.add(Path(name).name)
        data = files[name].read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest != sha:
            yield (
                ("assets", position, "sha256"),
                "asset-sha256-mismatch",
                f"the file {name} has sha256 {digest}; update the pack or the file",
            )
        if len(data) != asset.get("byte_size"):
            yield (
                ("assets", position, "byte_size"),
                "asset-size-mismatch",
                f"the file {name} is {len(data)} bytes, not {asset.get('byte_size')}",
            )
        found = sniff(data[:4096])
        if found != asset.get("mime_type"):
            yield (
                ("assets", position, "mime_type"),
                "asset-mime-mismatch",
                f"the file {name} looks like {found or 'an unknown type'}, not {asset.get('mime_type')}",
            )
    for name in sorted(set(files) - named - {str(Path(a.get("uri", "")).name) for a in assets if a.get("uri")}):
        if Path(name).name not in named:
            yield (), "unlisted-file", f"{directory / name} is not named by any asset's sha256 or uri"


CHECKS: Final = (check_references, check_hashes, check_state_and_conditions, check_satisfiable, check_spoilers)


# -- running ------------------------------------------------------------------------------------


def lint(source: Source, config: LintConfig | None = None, *, validator: Validator | None = None) -> LintReport:
    """Lint a pack: validate it, then (if valid) run every check; see :data:`RULES`."""
    from creatorpack import _reach  # noqa: PLC0415 - the search imports the runtime, only needed here

    config = config or LintConfig()
    report = (validator or Validator()).validate(source)
    if not report.valid or report.document is None:
        return LintReport(report)
    index = _Pack(report.document)
    raw: list[_Raw] = []
    for check in CHECKS:
        raw.extend(check(index))
    if config.assets is not None:
        raw.extend(check_asset_files(index, config.assets))
        raw.extend(check_unused_assets(index))
    witnesses: dict[str, Witness] = {}
    has_errors = any(RULES[code].severity == "error" for _, code, _ in raw)
    if config.reachability and index.version != "0.2" and not has_errors:
        found, extra = _reach.search(index.pack, config.max_states, config.max_seconds, time.monotonic)
        witnesses = {k: Witness(k, tuple(v)) for k, v in found.items()}
        raw.extend(extra)
    raw = [r for r in raw if r[1] not in config.ignore]
    text = _text_of(source)
    return LintReport(report, _locate_findings(raw, text), witnesses)


def explain(source: Source, target: str, config: LintConfig | None = None) -> Witness | None:
    """A sequence of turns that reaches the achievement, ending or rule ``target``, if one was found."""
    report = lint(source, config)
    return report.witnesses.get(target)


def _text_of(source: Source) -> bytes | None:
    if isinstance(source, bytes | bytearray | memoryview):
        return bytes(source)
    if isinstance(source, str):
        return source.encode("utf-8", errors="surrogatepass")
    if isinstance(source, Path):
        return source.read_bytes()
    return None


def _locate_findings(raw: Iterable[_Raw], text: bytes | None) -> tuple[Finding, ...]:
    items = list(raw)
    places: dict[int, tuple[int, int]] = {}
    offsets: list[int | None] = [None] * len(items)
    if text is not None and items:
        positions = _locate.locate(text, ((path, _locate.VALUE) for path, _, _ in items))
        offsets = [positions.values.get(path) for path, _, _ in items]
        places = positions.line_columns(o for o in offsets if o is not None)
    findings = []
    for (path, code, message), offset in zip(items, offsets, strict=True):
        line, column = places[offset] if offset is not None else (None, None)
        findings.append(Finding(pointer(path), code, message, line, column, severity=RULES[code].severity))
    findings.sort(key=lambda f: (f.line or 0, f.column or 0, f.pointer, f.code))
    return tuple(findings)


def contract_findings(report: Report) -> tuple[Finding, ...]:
    """A contract report's violations as error findings (lint reports them for invalid packs)."""
    return tuple(_violation_finding(v) for v in report.violations)


def _violation_finding(v: Violation) -> Finding:
    return Finding(v.pointer, v.code, v.message, v.line, v.column, severity="error")

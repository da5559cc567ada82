"""What the contract accepts but the runtime silently ignores: the lint's answer to "passes lint, fails in play".

Unknown rule kinds (played as effect rules), unknown effect ops (always rejected), members the
runtime never reads where the contract accepts any, state types it does not know, observations
no condition reads, reward-only assets nothing gives, badges nothing awards.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

from creatorpack._json import JsonPath, show
from creatorpack.contract.conditions import Condition, Observed, leaves
from creatorpack.contract.findings import RawFinding, Target
from creatorpack.contract.schema import SUPPORTED_VERSIONS, root_members
from creatorpack.lint._suggest import did_you_mean, nearest
from creatorpack.lint.conditions import effect_rules
from creatorpack.lint.index import PackIndex
from creatorpack.lint.rules import Raw
from creatorpack.play.program import entry_scopes
from creatorpack.play.state import EFFECT_OPS

__all__ = [
    "RULE_KINDS",
    "STATE_TYPES",
    "check_binding_roles",
    "check_effect_ops",
    "check_effect_rule_members",
    "check_progression_protocol",
    "check_root_members",
    "check_rule_kinds",
    "check_rules_without_when",
    "check_state_types",
    "check_unawarded_badges",
    "check_unplayable_endings",
    "check_unplayed_scopes",
    "check_unrewarded_assets",
    "check_unused_observations",
]

RULE_KINDS: Final = ("guidance", "effect")
"""The rule kinds the runtime tells apart (any kind but guidance is played as an effect rule)."""

STATE_TYPES: Final = ("integer", "boolean", "array", "object")
"""The state schema types the runtime knows; any other node is an enum (``enum`` list) or unchecked."""

_EFFECT_RULE_MEMBERS: Final = ("id", "kind", "when", "completion", "effects")


def check_binding_roles(index: PackIndex) -> Iterator[Raw]:
    """A binding meant as the background but not written as one: hosts never show it as a background.

    The contract accepts any binding object whose role is not ``background`` (the other variants
    are not shown), so a misspelt role, or a background's ``time_of_day`` under another role and
    without a character's ``performance``, passes validation and is lost in play.
    """
    for number, binding in index.items("presentation", "bindings"):
        role = binding.get("role")
        if role == "background":
            continue
        near = isinstance(role, str) and nearest(role, ("background",), loose=False) is not None
        of_a_character = role == "character" or "performance" in binding or "actor_id" in binding
        if not near and ("time_of_day" not in binding or of_a_character):
            continue
        named = f"binding role {show(role)} is not 'background'" if "role" in binding else "this binding has no role"
        why = (
            "; did you mean 'background'?"
            if near
            else (', yet it has a time_of_day, which only a background binding has; write "role": "background"')
        )
        asset = binding.get("asset_id")
        shown = show(asset) if isinstance(asset, str) else "its asset"
        yield RawFinding(
            ("presentation", "bindings", number, *(("role",) if "role" in binding else ())),
            "binding-role",
            f"{named}, so hosts do not show {shown} as a background{why}",
        )


_SCOPED: Final = (
    ("reader_cards", "reader card"),
    ("character_castings", "casting"),
    ("content", "content item"),
    ("illustrations", "illustration"),
)


def check_unplayed_scopes(index: PackIndex) -> Iterator[Raw]:
    """An item whose ``entry_ids`` name only entries no session can start: it is never shown.

    A pack entry without a runtime entry of its id (or at its position) starts no session, so an
    item scoped to it alone belongs to no session (docs/runtime.md, "Entry scope").
    """
    pack_entries = [entry for _, entry in index.items("entries")]
    runtime_entries = [entry for _, entry in index.items("runtime", "entries")]
    played = {name for names in entry_scopes(runtime_entries, pack_entries).values() for name in names}
    known = played | {entry["id"] for entry in pack_entries if isinstance(entry.get("id"), str)}
    for key, what in _SCOPED:
        for number, item in index.items(key):
            ids = item.get("entry_ids")
            named = [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
            if not named or any(i in played for i in named) or not all(i in known for i in named):
                continue  # unscoped, played somewhere, or an unknown id (its own finding: unknown-reference)
            listed = ", ".join(repr(i) for i in named)
            yield RawFinding(
                (key, number, "entry_ids"),
                "unplayed-scope",
                f"this {what} belongs only to {listed}, which no runtime entry starts (runtime entries: "
                f"{', '.join(sorted(map(str, played))) or 'none'}): no session shows it",
            )


def check_rule_kinds(index: PackIndex) -> Iterator[Raw]:
    """A rule kind other than guidance or effect is played as an effect rule: a typo loses guidance."""
    for number, rule in index.items("runtime", "rules"):
        kind = rule.get("kind")
        if "kind" in rule and kind not in RULE_KINDS:
            lost = "; its instruction is never given" if "instruction" in rule else ""
            hint = did_you_mean(kind, RULE_KINDS) if isinstance(kind, str) else ""
            yield RawFinding(
                ("runtime", "rules", number, "kind"),
                "unknown-rule-kind",
                f"rule kind {show(kind)} is not one the runtime knows (guidance, effect): "
                f"it is played as an effect rule{lost}{hint}",
            )


def check_effect_ops(index: PackIndex) -> Iterator[Raw]:
    """An effect op the runtime does not know (:data:`EFFECT_OPS`) is rejected, with its rule's other effects."""
    for number, rule in effect_rules(index):
        effects = rule.get("effects")
        for position, effect in enumerate(effects if isinstance(effects, list) else []):
            op = effect.get("op") if isinstance(effect, Mapping) else None
            if isinstance(effect, Mapping) and op not in EFFECT_OPS:
                hint = did_you_mean(op, EFFECT_OPS) if isinstance(op, str) else ""
                yield RawFinding(
                    ("runtime", "rules", number, "effects", position, *(("op",) if "op" in effect else ())),
                    "unknown-effect-op",
                    f"effect op {show(op)} is not one the runtime knows ({', '.join(EFFECT_OPS)}): the effect "
                    f"is always rejected, and the rule's other effects with it{hint}",
                )


def check_effect_rule_members(index: PackIndex) -> Iterator[Raw]:
    """Members of an effect rule that the runtime never reads (the contract accepts any)."""
    for number, rule in effect_rules(index):
        for member in rule:
            if member in _EFFECT_RULE_MEMBERS or (member == "instruction" and rule.get("kind") not in RULE_KINDS):
                continue  # an unknown kind's instruction is reported with the kind
            if member == "instruction":
                message = "instruction is given only by guidance rules; this rule never gives it"
            else:
                hint = did_you_mean(member, _EFFECT_RULE_MEMBERS)
                message = f"the runtime never reads {member!r} on an effect rule{hint}"
            yield RawFinding(("runtime", "rules", number, member), "ignored-member", message, Target.KEY)


def check_rules_without_when(index: PackIndex) -> Iterator[Raw]:
    """An effect rule with no ``when``: the runtime fires it on every turn, which a forgotten ``when`` rarely means."""
    for number, rule in effect_rules(index):
        if "when" in rule:
            continue
        ident = rule.get("id")
        named = f"rule {ident!r}" if isinstance(ident, str) else "this rule"
        misspelt = nearest("when", [m for m in rule if isinstance(m, str) and m not in _EFFECT_RULE_MEMBERS])
        unread = f" (its {misspelt!r} is not read)" if misspelt is not None else ""
        message = (
            f"{named} has no `when`{unread}, so the runtime fires it on every turn; give it a `when`, or "
            '`{"op": "literal", "value": true}` to say that it fires on every turn'
        )
        if misspelt is not None:
            yield RawFinding(("runtime", "rules", number, misspelt), "rule-without-when", message, Target.KEY)
        else:
            yield RawFinding(("runtime", "rules", number), "rule-without-when", message)


@functools.cache
def _root_members() -> Mapping[str, frozenset[str]]:
    return {version: root_members(version) for version in SUPPORTED_VERSIONS}  # what as_declared keeps


def check_root_members(index: PackIndex) -> Iterator[Raw]:
    """Root members the version does not have (the contract does not close the root object)."""
    members = _root_members()
    known = members.get(index.version, frozenset())
    for member in index.raw:
        if member in known:
            continue
        later = [v for v in SUPPORTED_VERSIONS if v > index.version and member in members[v]]
        if later:
            message = f"{member!r} exists from {later[0]}; this pack declares {index.version}, so it is ignored"
        else:
            message = (
                f"{member!r} is not a member of a {index.version} pack: it is ignored{did_you_mean(member, known)}"
            )
        yield RawFinding((member,), "ignored-member", message, Target.KEY)


def _state_nodes(schema: Mapping[str, Any], at: JsonPath) -> Iterator[tuple[JsonPath, Mapping[str, Any]]]:
    properties = schema.get("properties")
    for name, child in (properties if isinstance(properties, Mapping) else {}).items():
        if isinstance(child, Mapping):
            yield (*at, "properties", name), child
            if child.get("type") == "object":
                yield from _state_nodes(child, (*at, "properties", name))


_TYPE_ALIASES: Final = {
    "set": "array",
    "list": "array",
    "int": "integer",
    "number": "integer",
    "bool": "boolean",
    "obj": "object",
    "dict": "object",
    "map": "object",
}
"""Names other languages give the runtime's types: a set is written ``"type": "array"`` (with ``items.enum``)."""


def check_state_types(index: PackIndex) -> Iterator[Raw]:
    """State schema members of a type the runtime does not know and without an enum: anything passes."""
    for where, node in _state_nodes(index.schema, ("runtime", "state", "schema")):
        kind = node.get("type")
        if kind in STATE_TYPES or isinstance(node.get("enum"), list):
            continue
        alias = _TYPE_ALIASES.get(kind.casefold()) if isinstance(kind, str) else None
        hint = (
            f"; did you mean {alias!r}?" if alias else did_you_mean(kind, STATE_TYPES) if isinstance(kind, str) else ""
        )
        yield RawFinding(
            (*where, *(("type",) if "type" in node else ())),
            "unknown-state-type",
            f"state type {show(kind)} is not one the runtime knows (integer, boolean, array, object) and there is "
            f"no enum: any value passes and effects on it are rejected{hint}",
        )


def _observed_ids(conditions: Iterable[Condition], wanted: set[Any]) -> set[str]:
    """The observation ids that the conditions read (stops once every wanted one is found)."""
    found: set[str] = set()
    for condition in conditions:
        if wanted <= found:
            break
        found.update(leaf.id for leaf in leaves(condition) if isinstance(leaf, Observed))
    return found


def check_unused_observations(index: PackIndex) -> Iterator[Raw]:
    """Observations that no condition reads: the narrator answers them for nothing."""
    wanted = {o.get("id") for _, o in index.items("runtime", "observations")}
    read = _observed_ids((tree for _, tree in index.trees), wanted)
    for position, observation in index.items("runtime", "observations"):
        ident = observation.get("id")
        if isinstance(ident, str) and ident not in read:
            yield RawFinding(
                ("runtime", "observations", position, "id"),
                "unused-observation",
                f"no condition reads observation {ident!r}: its answers change nothing; use it or drop it",
            )


def _goals(index: PackIndex) -> list[Mapping[str, Any]]:
    return [item for name in ("achievements", "endings") for _, item in index.items("progression", name)]


def check_unrewarded_assets(index: PackIndex) -> Iterator[Raw]:
    """reward_only assets that no achievement's or ending's artwork or badge gives: never reachable."""
    rewards = {art for goal in _goals(index) if isinstance(art := goal.get("artwork_asset_id"), str)}
    for _, badge in index.items("progression", "badges"):
        collectible = badge.get("collectible")
        if isinstance(collectible, Mapping):
            sides = (collectible.get("front_asset_id"), collectible.get("effect_mask_asset_id"))
            rewards |= {side for side in sides if isinstance(side, str)}
    for position, asset in index.items("assets"):
        if asset.get("access") == "reward_only" and asset.get("id") not in rewards:
            yield RawFinding(
                ("assets", position, "access"),
                "unrewarded-asset",
                f"asset {asset.get('id')!r} is reward_only, but no achievement or ending artwork and no badge "
                "gives it: readers can never reach it",
            )


def check_unawarded_badges(index: PackIndex) -> Iterator[Raw]:
    """Badges that no achievement or ending awards (by badge_id): no reader can earn them."""
    awarded = {badge for goal in _goals(index) if isinstance(badge := goal.get("badge_id"), str)}
    for position, badge in index.items("progression", "badges"):
        if badge.get("id") not in awarded:
            yield RawFinding(
                ("progression", "badges", position, "id"),
                "unawarded-badge",
                f"no achievement or ending has badge_id {badge.get('id')!r}: no reader can earn this badge",
            )


_PROGRESSION_PROTOCOL: Final = "service.progression/1"


def check_progression_protocol(index: PackIndex) -> Iterator[Raw]:
    """A 0.4 progression whose ``protocol`` is a string other than ``service.progression/1`` (docs/contract-gaps.md)."""
    protocol = index.progression.get("protocol")
    if not isinstance(protocol, str) or protocol == _PROGRESSION_PROTOCOL:
        return
    if protocol == "service.progression/2":
        why = "'service.progression/2' (guided progression) exists from 0.5"
    else:
        why = f"did you mean {_PROGRESSION_PROTOCOL!r}?" if nearest(protocol, [_PROGRESSION_PROTOCOL]) else ""
        why = f"the 0.4 progression is {_PROGRESSION_PROTOCOL!r}" + (f"; {why}" if why else "")
    yield RawFinding(
        ("progression", "protocol"),
        "unknown-progression-protocol",
        f"progression protocol {protocol!r} is not one this runtime knows: {why}",
    )


def check_unplayable_endings(index: PackIndex) -> Iterator[Raw]:
    """Endings without an id or a ``when`` condition (shapes the contract does not show): never reached."""
    for position, ending in index.items("progression", "endings"):
        missing = [name for name, kind in (("id", str), ("when", Mapping)) if not isinstance(ending.get(name), kind)]
        if not missing:
            continue
        close = nearest("when", [m for m in ending if m != "when"]) if "when" in missing else None
        hint = f"; is {close!r} meant to be 'when'?" if close else ""
        yield RawFinding(
            ("progression", "endings", position),
            "unplayable-ending",
            f"this ending has no {' and no '.join(missing)}: the runtime never reaches it{hint}",
        )

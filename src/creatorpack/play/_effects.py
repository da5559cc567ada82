"""The effect rules of a pack compiled into one generated Python function: straight-line code per rule.

Phase 3 of a turn applies the effects of every active rule in document order, all of a rule's
effects or none. Calling :meth:`~creatorpack.play.state.CompiledEffect.apply` for each (a method
call, a dispatch on the op, an exception for each rejection) cost about 2 µs an effect; on the
runtime benchmark pack, with a thousand effect rules active a turn, that was most of a turn. Here
each effect rule becomes a block of the generated function: the rule's members are read into
locals once, each effect is a few comparisons on them, and the locals are written back only when
every effect applied, so a rejection needs no undo. A rule the straight-line code does not cover
(a nested path, an effect the schema refuses, a member of an unexpected type, one member both
counted and used as a set) runs :func:`apply_rule`, the plain path, with the same results.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from creatorpack.errors import EffectError
from creatorpack.play._paused import collector_paused
from creatorpack.play.state import CompiledEffect

__all__ = ["EffectRule", "EffectRunner", "apply_rule", "compile_effects", "effect_rules", "plain_runner", "written"]

EffectRule = tuple[Any, int, tuple[CompiledEffect, ...], tuple[str, ...]]
"""A rule with effects as the generator reads it: its id, its ``when`` (a condition index), effects, members written."""
EffectRunner = Callable[[Sequence[bool], dict[str, Any], frozenset[str], list[dict[str, Any]]], None]
"""``run(values, working, completed, rejected)``: apply the effects of the active, open rules to ``working``."""

_MISSING: Final = object()
_REMEMBERED: Final = 256
"""The most sets of members :func:`_add` remembers its result for, a member and value."""
_MOST_EFFECTS: Final = 16
"""A rule with more effects than this runs the plain path (its blocks would nest too deep for Python's parser)."""


def apply_rule(rule: EffectRule, working: dict[str, Any], rejected: list[dict[str, Any]]) -> None:
    """Apply one active rule's effects to ``working``, all or none: the plain path, effect by effect."""
    ident, _, effects, keys = rule
    saved = {key: working[key] for key in keys if key in working}
    for position, effect in enumerate(effects):
        try:
            effect.apply(working)
        except EffectError as exc:
            rejected.append({"rule": ident, "effect": position, "reason": str(exc)})
            working.update(saved)
            break


def plain_runner(rules: Sequence[EffectRule]) -> EffectRunner:
    """The effects applied rule by rule on the plain path (:func:`apply_rule`): what the generated code must match."""

    def run(
        values: Sequence[bool], working: dict[str, Any], completed: frozenset[str], rejected: list[dict[str, Any]]
    ) -> None:
        for rule in rules:
            if values[rule[1]] and rule[0] not in completed:
                apply_rule(rule, working, rejected)

    return run


def compile_effects(rules: Sequence[EffectRule]) -> EffectRunner:
    """One generated function applying the effects of ``rules`` (in document order) that are active and open.

    It is generated on its first call (the runtime benchmark pack's takes 0.2 s to compile, which
    lint, a reader view or an engine that only loads saves never need); later calls pay one call more.
    """
    return _on_first_call(lambda: _generate(rules))


def _on_first_call(make: Callable[[], EffectRunner]) -> EffectRunner:
    """A runner that calls ``make`` on its first call (the collector paused) and the runner made ever after."""
    made: list[EffectRunner] = []

    def run(
        values: Sequence[bool], working: dict[str, Any], done: frozenset[str], rejected: list[dict[str, Any]]
    ) -> None:
        if not made:
            with collector_paused():
                made.append(make())
        made[0](values, working, done, rejected)

    return run


def _generate(rules: Sequence[EffectRule], *, typed: bool = True) -> EffectRunner:
    """The generated function of ``rules``.

    With ``typed``, the members whose type every rule on the straight-line path agrees on (and
    that no rule on the plain path writes) are checked once, at the top, instead of in each rule
    (see :func:`_settled_kinds`); a state where one of them has another type (or is missing) runs
    the function generated without ``typed``, made on its first call.
    """
    constants: list[Any] = []
    lines = ["def run(v, w, done, rejected):"]
    members = {key: f"g{i}" for i, key in enumerate(written(rules))}
    lines += [f"    {name} = w.get({_constant(key, constants)}, _M)" for key, name in members.items()]
    settled = _settled_kinds(rules) if typed else {}
    if settled:
        checks = " and ".join(f"type({members[key]}) is {kind.__name__}" for key, kind in settled.items())
        lines += [f"    if not ({checks}):", "        return _typed(v, w, done, rejected)"]
    for position, rule in enumerate(rules):
        lines.extend(_rule_block(position, rule, constants, members, settled))
    for key, name in members.items():  # written back once, at the end
        lines += [f"    if {name} is not _M:", f"        w[{_constant(key, constants)}] = {name}"]
    if len(lines) == 1:
        lines.append("    pass")
    namespace: dict[str, Any] = {
        "__builtins__": {"type": type, "int": int, "list": list, "str": str, "min": min, "max": max},
        "_M": _MISSING,
        "_c": constants,
        "_rules": tuple(rules),
        "_slow": apply_rule,
        "_add": _add,
        "_remove": _remove,
        "_typed": _untyped(rules) if settled else None,
    }
    try:
        exec(compile("\n".join(lines), "<effects>", "exec"), namespace)  # noqa: S102 - code built from repr()s only
    except (SyntaxError, RecursionError, MemoryError):  # pragma: no cover - each block nests at most _MOST_EFFECTS deep
        return plain_runner(rules)
    runner: EffectRunner = namespace["run"]
    return runner


def _untyped(rules: Sequence[EffectRule]) -> EffectRunner:
    """The function generated for ``rules`` with every rule checking its members' types, made on its first call."""
    return _on_first_call(lambda: _generate(rules, typed=False))


def _settled_kinds(rules: Sequence[EffectRule]) -> dict[str, type]:
    """The members whose type need be checked only once, at the top of the generated function: member -> type.

    A member qualifies when every rule writing it runs the straight-line code and needs it of the
    same type, since that code keeps a member's type (an ``int`` plus an ``int``, clamped to
    ``int`` bounds, is an ``int``; ``add`` and ``remove`` make lists), and so does the plain path
    on those effects when a rule falls back to it for another member's type.
    """
    kinds: dict[str, type] = {}
    mixed: set[str] = set()
    for rule in rules:
        needs = _needs(rule)
        for key in rule[3]:
            kind = needs.get(key) if needs is not None else None
            if kind is None or kinds.setdefault(key, kind) is not kind:
                mixed.add(key)
    return {key: kind for key, kind in kinds.items() if key not in mixed}


def _needs(rule: EffectRule) -> dict[str, type] | None:
    """The type each member of ``rule`` must hold for the straight-line code; ``None``: the rule runs the plain path."""
    effects = rule[2]
    if len(effects) > _MOST_EFFECTS:
        return None
    kinds: dict[str, type] = {}
    for effect in effects:
        kind = _kind(effect)
        if kind is None or kinds.setdefault(effect.key, kind) is not kind:
            return None
    return kinds


def _add(members: list[Any], value: Any, allowed: list[Any], made: dict[tuple[Any, ...], tuple[Any, ...]]) -> list[Any]:
    """The set ``members`` with ``value`` added, in the order of the set's values (as ``add`` keeps it).

    The result depends only on which of ``allowed`` the members equal (it holds ``allowed``'s own
    values), so it is remembered in ``made`` (one a member and value) by the members as a tuple:
    a lookup and a copy instead of testing each allowed value against each member (0.24 against
    0.99 µs here). Members that cannot be a key (a list in a set) are not remembered, nor more than
    :data:`_REMEMBERED` sets of members.
    """
    try:
        return [*made[(*members,)]]
    except KeyError:
        found = [m for m in allowed if m in members or m == value]
        if len(made) < _REMEMBERED:
            made[(*members,)] = (*found,)
        return found
    except TypeError:
        return [m for m in allowed if m in members or m == value]


def _remove(members: list[Any], value: Any) -> list[Any]:
    """The set ``members`` without ``value``.

    A string in a set once (the usual case) is removed from a copy by ``list.remove``; any other
    value, or one there more than once, by a comprehension (``list.remove`` finds a value by
    identity first, which for a float ``nan`` is not what ``!=`` says).
    """
    if type(value) is str and members.count(value) == 1:
        kept = [*members]
        kept.remove(value)
        return kept
    return [m for m in members if m != value]


def _constant(value: Any, constants: list[Any]) -> str:
    """``value`` as code: its ``repr`` for plain scalars, else a reference to it among the constants."""
    if value is None or isinstance(value, bool | int | str) or (isinstance(value, float) and math.isfinite(value)):
        return repr(value)
    constants.append(value)
    return f"_c[{len(constants) - 1}]"


def _kind(effect: CompiledEffect) -> type | None:
    """The type an effect needs its member to hold, or ``None`` when the straight-line code does not cover it."""
    if effect.error is not None or len(effect.tokens) != 1:
        return None
    if effect.op == "increment":
        # A ``by`` or bound spelt 1.0 (a JSON Schema integer) makes a float, which the next increment
        # of the member refuses: the plain path checks each effect's member, the straight-line code once.
        plain = all(type(number) is int for number in (effect.by, effect.low, effect.high))
        return int if plain else None
    if effect.op in ("add", "remove"):
        return list
    return None  # pragma: no cover - an unknown op has an error


def _rule_block(
    position: int, rule: EffectRule, constants: list[Any], members: dict[str, str], settled: Mapping[str, type]
) -> list[str]:
    """The code of one rule: its effects on the function's locals (``members``: a member -> its local).

    Every member some rule writes is read into a local once, at the top of the function, and
    written back once, at its end (a dict lookup and a store a rule fewer). A rule of more than
    one effect works on copies of its locals and puts them back only when every effect applied
    (all or none); one of a single effect needs none. A rule on the plain path gets its members
    written to the state first and reads them back after. The types of the ``settled`` members
    were checked at the top of the function: a rule of those alone checks none.
    """
    ident, when, effects, keys = rule
    rid = _constant(ident, constants)
    head = [f"    if v[{when}] and {rid} not in done:"]
    slow = [f"{members[key]} is not _M and w.__setitem__({_constant(key, constants)}, {members[key]})" for key in keys]
    slow = [*(f"        {line}" for line in slow), f"        _slow(_rules[{position}], w, rejected)"]
    slow += [f"        {members[key]} = w.get({_constant(key, constants)}, _M)" for key in keys]
    kinds = _needs(rule)
    if kinds is None:
        return [*head, *slow]
    single = len(effects) == 1
    names = {key: members[key] if single else f"x{i}" for i, key in enumerate(kinds)}
    lines = [*head]
    guard = " and ".join(
        f"type({members[key]}) is {kind.__name__}" for key, kind in kinds.items() if key not in settled
    )
    indent = " " * 8
    if guard:
        lines.append(f"        if {guard}:")
        indent = " " * 12
    if not single:
        lines += [f"{indent}{names[key]} = {members[key]}" for key in kinds]
    for at, effect in enumerate(effects):
        name = names[effect.key]
        if effect.op == "increment":
            low, high = _constant(effect.low, constants), _constant(effect.high, constants)
            by = _constant(effect.by, constants)
            if effect.reject:
                sign = "+" if effect.by >= 0 else "-"
                tail = _constant(
                    f" {sign} {abs(effect.by)} leaves {effect.low}..{effect.high} at {effect.path}", constants
                )
                reason = f"str({name}) + {tail}"
                lines.append(f"{indent}y = {name} + {by}")
                lines.append(f"{indent}if y > {high} or y < {low}:")
                lines.append(f'{indent}    rejected.append({{"rule": {rid}, "effect": {at}, "reason": {reason}}})')
                lines.append(f"{indent}else:")
                indent += "    "
                lines.append(f"{indent}{name} = y")
            elif effect.low <= effect.high:  # the bound the increment goes towards is tested first
                first, second = (f"> {high}", high), (f"< {low}", low)
                if effect.by < 0:
                    first, second = second, first
                lines.append(f"{indent}{name} += {by}")
                lines.append(f"{indent}if {name} {first[0]}:")
                lines.append(f"{indent}    {name} = {first[1]}")
                lines.append(f"{indent}elif {name} {second[0]}:")
                lines.append(f"{indent}    {name} = {second[1]}")
            else:  # bounds that contradict: as min(max(...)) has it
                lines.append(f"{indent}y = {name} + {by}")
                lines.append(f"{indent}if not {low} <= y <= {high}:")
                lines.append(f"{indent}    y = min(max(y, {low}), {high})")
                lines.append(f"{indent}{name} = y")
        else:
            value = _constant(effect.value, constants)
            if effect.op == "add":
                allowed = _constant(effect.allowed, constants)
                lines.append(f"{indent}if {value} not in {name}:")
                made = _constant({}, constants)  # what _add found for this member and value, by members
                lines.append(f"{indent}    {name} = _add({name}, {value}, {allowed}, {made})")
            else:
                lines.append(f"{indent}if {value} in {name}:")
                lines.append(f"{indent}    {name} = _remove({name}, {value})")
    if not single:
        lines += [f"{indent}{members[key]} = {names[key]}" for key in kinds]
    if guard:
        lines += ["        else:", *(f"    {line}" for line in slow)]
    return lines


def written(rules: Sequence[EffectRule]) -> tuple[str, ...]:
    """The top-level state members some effect of ``rules`` writes."""
    return tuple(dict.fromkeys(key for rule in rules for key in rule[3]))


def effect_rules(rules: Sequence[Any]) -> list[EffectRule]:
    """The rules with effects, as :data:`EffectRule` tuples (``rules`` are :class:`~creatorpack.play.program.Rule`)."""
    return [(rule.id, rule.when, rule.effects, rule.keys) for rule in rules if rule.effects]

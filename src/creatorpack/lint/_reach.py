"""Which achievements, endings and rules can a sequence of turns reach? A bounded breadth-first search.

States are what the runtime keeps between turns (state, answers, completed rules); moves are the
narrator's answers, which are free inputs. When every combination of answers per turn is few
enough (at most 512), every combination is a move and an exhausted search is a proof; otherwise
a move changes at most one answer and the search can only show reachability, never its absence.
Breadth first, so each witness is a shortest sequence of turns.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Final

import orjson

from creatorpack.play.conditions import json_equal
from creatorpack.play.engine import Engine, SessionState, Turn

FULL_BRANCHING: Final = 512

_Raw = tuple[tuple[str | int, ...], str, str]


def _mentioned(node: Any, found: dict[str, list[Any]]) -> None:
    if isinstance(node, Mapping):
        if node.get("op") == "observed" and isinstance(node.get("id"), str):
            values = found.setdefault(node["id"], [])
            if not any(json_equal(node.get("value"), v) for v in values):
                values.append(node.get("value"))
        for value in node.values():
            _mentioned(value, found)
    elif isinstance(node, list):
        for value in node:
            _mentioned(value, found)


def _options(engine: Engine) -> list[list[tuple[str, Any]]]:
    # Answers that no condition tells apart are one class: the values some `observed` condition
    # names, plus one representative of the rest (which also stands for "unanswered").
    mentioned: dict[str, list[Any]] = {}
    _mentioned(engine.pack, mentioned)
    options: list[list[tuple[str, Any]]] = []
    for ident, observation in engine.observations.items():
        answers: list[Any] = (
            [True, False] if observation.get("type") == "boolean" else list(observation.get("choices", {}))
        )
        named = [a for a in answers if any(json_equal(a, m) for m in mentioned.get(ident, []))]
        rest = [a for a in answers if a not in named]
        options.append([(ident, answer) for answer in named + rest[:1]])
    return options


def _moves(options: list[list[tuple[str, Any]]], answers: Mapping[str, Any]) -> list[dict[str, Any]]:
    # "Leave it unanswered" is a move only while the observation is unanswered: afterwards it
    # equals answering the same value again.
    per: list[list[tuple[str | None, Any]]] = [
        [*choices] if choices and choices[0][0] in answers else [(None, None), *choices] for choices in options
    ]
    return [{ident: value for ident, value in combo if ident is not None} for combo in itertools.product(*per)]


def _single_moves(options: list[list[tuple[str, Any]]]) -> list[dict[str, Any]]:
    moves: list[dict[str, Any]] = [{}]
    moves += [{ident: value} for choices in options for ident, value in choices]
    return moves


def _key(session: SessionState) -> bytes:
    return orjson.dumps([session.state, session.answers, sorted(session.completed)], option=orjson.OPT_SORT_KEYS)


def search(
    pack: Mapping[str, Any], max_states: int, max_seconds: float, clock: Callable[[], float]
) -> tuple[dict[str, list[dict[str, Any]]], list[_Raw]]:
    """Witnesses (target id to turns) and findings for the targets not reached."""
    engine = Engine(pack)
    progression = pack.get("progression") if isinstance(pack.get("progression"), Mapping) else {}
    assert isinstance(progression, Mapping)
    targets: dict[str, tuple[str | int, ...]] = {}
    for name in ("achievements", "endings"):
        for position, item in enumerate(progression.get(name, []) if isinstance(progression.get(name), list) else []):
            if isinstance(item, Mapping) and isinstance(item.get("id"), str) and "when" in item:
                targets[item["id"]] = ("progression", name, position)
    for position, rule in enumerate(pack["runtime"].get("rules", [])):
        if isinstance(rule, Mapping) and isinstance(rule.get("id"), str):
            targets.setdefault(rule["id"], ("runtime", "rules", position))
    witnesses: dict[str, list[dict[str, Any]]] = {}
    try:
        start, result = engine.start()
    except Exception:  # noqa: BLE001 - an unplayable start is reported by the other checks
        return {}, []
    for ident in (*result.achievements, *([result.ending] if result.ending else [])):
        witnesses.setdefault(ident, [])
    options = _options(engine)
    total = 1
    for choices in options:
        total *= len(choices) + 1
    complete = total <= FULL_BRANCHING
    single = _single_moves(options)
    deadline = clock() + max_seconds
    seen = {_key(start)}
    queue: deque[tuple[SessionState, list[dict[str, Any]]]] = deque([(start, [])])
    bound = ""
    while queue and len(witnesses) < len(targets):
        if clock() > deadline:
            bound = f"the time bound ({max_seconds:g} s)"
            break
        session, path = queue.popleft()
        if session.ending is not None:
            continue
        for move in _moves(options, session.answers) if complete else single:
            if clock() > deadline:
                bound = f"the time bound ({max_seconds:g} s)"
                queue.clear()
                break
            after, active = engine.advance(session, Turn(move))
            steps = [*path, move]
            news = after.achievements[len(session.achievements) :]
            for ident in (*active, *news, *([after.ending] if after.ending else [])):
                witnesses.setdefault(ident, steps)
            key = _key(after)
            if key in seen:
                continue
            if len(seen) >= max_states:
                bound = f"the state bound ({max_states:,} states)"
                queue.clear()
                break
            seen.add(key)
            queue.append((after, steps))
    findings: list[_Raw] = []
    for ident, where in targets.items():
        if ident in witnesses:
            continue
        kind = str(where[1])[:-1] if where[0] == "progression" else "rule"
        if bound:
            findings.append(
                (
                    where,
                    "reachability-bound",
                    (
                        f"{kind} {ident!r} was not reached before {bound}; "
                        f"{len(seen):,} states explored: not proven unreachable"
                    ),
                )
            )
        elif complete:
            findings.append(
                (
                    where,
                    "unreachable",
                    (
                        f"no sequence of turns reaches {kind} {ident!r} "
                        f"(all {len(seen):,} reachable states explored); "
                        "check its conditions and the effects that feed them"
                    ),
                )
            )
        else:
            findings.append(
                (
                    where,
                    "reachability-bound",
                    (
                        f"{kind} {ident!r} was not reached by turns that change one answer at a "
                        f"time ({len(seen):,} states explored): not proven unreachable"
                    ),
                )
            )
    return witnesses, findings

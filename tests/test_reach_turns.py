"""Turn by turn with shared answers: the boxes hold every reachable state, the solver's turns reach their goals.

Random small packs (seeded, so a failure names its seed) are explored exhaustively: every answer
combination from every reachable state. Each state reached after turn ``t`` must lie in the
trace's box for turn ``t`` (or, past the last box, in the last box when it holds every later
turn, else in one of the boxes), and no goal that :func:`_reach.decide` proves unreachable may
be reached, with a search long enough to explore everything and with one so short that the
boxes decide what it leaves.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

from creatorpack.contract.conditions import Goal, parse
from creatorpack.lint.reach import _bnb, _exhaust, _witness
from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach._abstract import Abstract, Analysis, IntRange, Members, analyse
from creatorpack.lint.reach._turns import Trace, by_turn
from creatorpack.play.conditions import resolve
from creatorpack.play.engine import Engine, SessionState, Turn, TurnResult
from creatorpack.play.step import shown
from creatorpack.scaffold import files
from tests import random_packs
from tests.random_packs import random_condition

Doc = dict[str, Any]
SEEDS = range(48)
SHORT = 12
"""Turns of search too few to explore a random pack: the goals left open go to the boxes turn by turn."""


def random_pack(seed: int) -> Doc:
    """A valid 0.5 pack (:data:`~tests.random_packs.REACH`), with a card's avatar and relationship as goals too."""
    doc = random_packs.random_pack(seed, random_packs.REACH)
    # Parts of a card, shown only with the card (and the avatar with its asset, at times a reward):
    # goals that combine facts from different turns. Their own generator, so the rest stays as it was.
    parts = random.Random(seed + 1_000)
    crop = {"x": 0.0, "y": 0.0, "width": 1.0, "height": 1.0}
    avatar = random_condition(parts, 1, random_packs.REACH.leaf)
    doc["reader_cards"][0]["avatar"] = {"asset_id": "ending_art", "crop": crop, "reveal_when": avatar}
    relationship = random_condition(parts, 1, random_packs.REACH.leaf)
    doc["reader_cards"][0]["relationships"] = [{"actor_id": "c1", "label": "L", "reveal_when": relationship}]
    if parts.random() < 0.5:
        doc["assets"][0]["access"] = "reward_only"
    return doc


def _moves(engine: Engine) -> list[dict[str, Any]]:
    per = [
        [None, *((ident, v) for v in ([True, False] if o["type"] == "boolean" else list(o["choices"])))]
        for ident, o in engine.observations.items()
    ]
    return [{k: v for pair in combo if pair for k, v in [pair]} for combo in itertools.product(*per)]


def _key(session: SessionState) -> str:
    return json.dumps([session.state, session.answers, sorted(session.completed), session.ending], sort_keys=True)


def _layers(engine: Engine, entry: str, depth: int) -> list[list[SessionState]]:
    """The sessions after each turn up to ``depth``, each turn's own."""
    moves = _moves(engine)
    start, _ = engine.start(entry)
    layers = [[start]]
    for _ in range(depth):
        seen: dict[str, SessionState] = {}
        for session in layers[-1]:
            if session.ending is None:
                for move in moves:
                    after, _ = engine.step(session, Turn(move))
                    seen.setdefault(_key(after), after)
        layers.append(list(seen.values()))
    return layers


def _inside(analysis: Analysis, state: Any, box: Abstract) -> bool:
    for tokens, value in zip(analysis.variables, box, strict=True):
        actual = resolve(state, tokens)
        if isinstance(value, IntRange) and not value.low <= actual <= value.high:
            return False
        if isinstance(value, Members) and not value.must <= set(actual) <= value.may:
            return False
    return True


def _check_trace(analysis: Analysis, trace: Trace, layers: list[list[SessionState]], every: list[SessionState]) -> None:
    last = len(trace.after) - 1
    for turn, layer in enumerate(layers):
        for session in layer:
            if turn < last or trace.tail:
                box = trace.after[min(turn, last)]
                assert _inside(analysis, session.state, box), (turn, session.state, box)
    for session in every:
        assert any(_inside(analysis, session.state, box) for box in trace.after), session.state


def _revealed(engine: Engine, session: SessionState) -> set[Goal]:
    """What the reader is shown (as play shows it), as goals."""
    now = shown(engine.program, session)
    return {Goal(goal, i) for kind, goal in _witness.REVEALS.items() for i in now.get(kind, ())}


def _every_turn(engine: Engine, entry: str) -> Iterator[tuple[SessionState, TurnResult]]:
    """Every turn, under every answer, from every session some sequence of turns from ``entry`` reaches."""
    moves = _moves(engine)
    start, _ = engine.start(entry)
    every = {_key(start)}
    queue = [start]
    while queue:
        session = queue.pop()
        if session.ending is not None:
            continue
        for move in moves:
            after, result = engine.step(session, Turn(move))
            yield after, result
            if _key(after) not in every:
                every.add(_key(after))
                queue.append(after)


def _explore(engine: Engine, entry: str) -> tuple[list[SessionState], set[Goal]]:
    """Every session some sequence of turns from ``entry`` reaches, and every goal reached on the way."""
    start, _ = engine.start(entry)
    reached = {Goal("achievement", a) for a in start.achievements} | {Goal("completion", c) for c in start.completed}
    reached |= {Goal("ending", start.ending)} if start.ending is not None else set()
    reached |= _revealed(engine, start)
    every = {_key(start): start}
    for after, result in _every_turn(engine, entry):
        reached.update(Goal("rule", r) for r in result.active_rules)
        reached.update(Goal("achievement", a) for a in after.achievements)
        reached.update(Goal("completion", c) for c in after.completed)
        if after.ending is not None:
            reached.add(Goal("ending", after.ending))
        reached |= _revealed(engine, after)
        every.setdefault(_key(after), after)
    return list(every.values()), reached


@pytest.mark.parametrize("seed", SEEDS)
def test_every_reachable_state_lies_in_the_boxes_turn_by_turn(seed: int) -> None:
    doc = random_pack(seed)
    engine = Engine(doc)
    for entry, name in zip(engine.entries, engine.entry_ids(), strict=True):
        analysis = analyse(engine.program, entry, name)
        trace = by_turn(analysis)
        if trace is None:
            continue
        _check_trace(analysis, trace, _layers(engine, name, len(trace.after) + 1), _explore(engine, name)[0])


@pytest.mark.parametrize("seed", SEEDS)
def test_no_goal_proved_unreachable_is_reached(seed: int) -> None:
    doc = random_pack(seed)
    engine = Engine(doc)
    reached = set().union(*(_explore(engine, name)[1] for name in engine.entry_ids()))
    for turns in (SHORT, 2_000):  # a search too short to explore everything leaves the rest to the boxes
        outcome = _reach.decide(doc, turns, 1e9, time.monotonic)
        assert not set(outcome.proofs) & reached, (seed, turns)
        assert not set(outcome.witnesses) - reached, (seed, turns)
    assert {t.goal for t in outcome.targets} <= set(outcome.proofs) | set(outcome.witnesses), seed


def _goals_along(engine: Engine, entry: str, turns: list[dict[str, Any]]) -> Iterator[set[Goal]]:
    """The goals each turn of playing ``turns`` from ``entry`` reaches, the start first; until an ending."""
    session, _ = engine.start(entry)
    before = _revealed(engine, session)
    reached = {Goal("achievement", a) for a in session.achievements} | before
    yield (
        reached
        | {Goal("completion", c) for c in session.completed}
        | {Goal("ending", e) for e in [session.ending] if e}
    )
    for move in turns:
        if session.ending is not None:
            return
        last = session
        session, result = engine.step(session, Turn(move))
        reached = {Goal("rule", r) for r in result.active_rules}
        reached |= {Goal("achievement", a) for a in result.new_achievements}
        reached |= {Goal("completion", c) for c in session.completed - last.completed}
        reached |= {Goal("ending", session.ending)} if session.ending is not None else set()
        reached |= _revealed(engine, session) - before
        before = _revealed(engine, session)
        yield reached


@pytest.mark.parametrize("seed", SEEDS)
def test_the_exhaustive_search_proves_soundly_and_its_witnesses_replay(seed: int) -> None:
    """With states enough, every random pack is explored whole: its proofs say so, and none is unsound."""
    doc = random_pack(seed)
    engine = Engine(doc)
    reached = set().union(*(_explore(engine, name)[1] for name in engine.entry_ids()))
    goals = _reach.targets(engine)
    exhaustion = _exhaust.explore(engine, goals, 200_000, 1e18, time.monotonic)
    assert exhaustion.complete, seed
    # A decision procedure: it reaches exactly the goals some play reaches; the rest it proves.
    assert set(exhaustion.found) == {t.goal for t in goals} & reached, seed
    outcome = _reach.decide(doc, 200_000, 1e9, time.monotonic)
    assert {t.goal for t in outcome.targets} <= set(outcome.proofs) | set(outcome.witnesses), seed
    assert not set(outcome.proofs) & reached, seed
    for key, witness in [*exhaustion.found.items(), *outcome.witnesses.items()]:  # each replays to its goal
        steps = list(_goals_along(engine, witness.entry, witness.turns))
        assert len(steps) == len(witness.turns) + 1, (seed, key)
        assert key in steps[-1], (seed, key, witness)
    # Random plays (beside the exploration above, on the runtime alone) never reach a proved goal either.
    proved = {t.goal for t in goals} - set(exhaustion.found)
    rng = random.Random(seed)
    moves = _moves(engine)
    for _ in range(30):
        entry = rng.choice(engine.entry_ids())
        turns = [rng.choice(moves) for _ in range(rng.randint(1, 12))]
        for along in _goals_along(engine, entry, turns):
            assert not along & (proved | set(outcome.proofs)), (seed, entry, turns)


def test_the_fuzz_exercises_the_exhaustive_proofs() -> None:
    """Some random packs have goals the exhaustive search proves unreachable (else the soundness fuzz tests little)."""
    proved = 0
    for seed in SEEDS:
        engine = Engine(random_pack(seed))
        goals = _reach.targets(engine)
        exhaustion = _exhaust.explore(engine, goals, 200_000, 1e18, time.monotonic)
        proved += len({t.goal for t in goals} - set(exhaustion.found))
    assert proved >= 5


@pytest.mark.parametrize("seed", SEEDS)
def test_no_goal_the_inductive_box_proves_unreachable_is_reached(seed: int) -> None:
    """The inductive box alone (no boxes turn by turn), on what a search too short to explore leaves."""
    doc = random_pack(seed)
    engine = Engine(doc)
    reached = set().union(*(_explore(engine, name)[1] for name in engine.entry_ids()))
    outcome = _reach.decide(doc, SHORT, 1e9, time.monotonic, turn_rules=0)
    assert not set(outcome.proofs) & reached, seed
    assert not set(outcome.witnesses) - reached, seed


def test_the_fuzz_exercises_the_inductive_box_proofs() -> None:
    """Some random packs have goals that only the inductive box proves (else its soundness fuzz tests little)."""
    proved = 0
    for seed in SEEDS:
        outcome = _reach.decide(random_pack(seed), SHORT, 1e9, time.monotonic, turn_rules=0)
        proved += sum("inductive invariant" in reason for reason in outcome.proofs.values())
    assert proved >= 5


def test_the_fuzz_exercises_the_turn_by_turn_proofs() -> None:
    """Some of the random packs have goals that only the boxes turn by turn prove (else the fuzz tests little)."""
    proved = 0
    for seed in SEEDS:
        outcome = _reach.decide(random_pack(seed), SHORT, 1e9, time.monotonic, inductive=False)
        proved += sum("turn by turn" in reason for reason in outcome.proofs.values())
    assert proved >= 5


def test_the_walk_starts_from_an_entry_that_takes_turns() -> None:
    """Entry e0 of this pack starts where an ending holds; the walk used to play from it and fail."""
    doc = random_pack(16)
    engine = Engine(doc)
    assert [engine.start(name)[0].ending is not None for name in engine.entry_ids()] == [True, False]
    outcome = _reach.decide(doc, SHORT, 1e9, time.monotonic)
    assert 0 < outcome.turns_played <= SHORT
    assert all(witness.entry == "e1" for witness in outcome.witnesses.values() if witness.turns)


# --- the solver on its own --------------------------------------------------------------------


def binary() -> Doc:
    """Four yes/no observations add 1, 2, 4 and 8 to `/n` in one turn; an achievement needs exactly 11."""
    doc: Doc = json.loads(files("0.5")["pack.json"])
    doc["runtime"]["state"]["schema"] = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 40}},
        "required": ["n"],
        "additionalProperties": False,
    }
    doc["runtime"]["entries"] = [{"id": "e0", "initial_state": {"n": 0}}]
    doc["entries"] = [{"id": "e0", "title": "T"}]
    doc["runtime"]["observations"] = [{"type": "boolean", "id": f"o{k}", "question": "q?"} for k in range(4)]
    doc["runtime"]["rules"] = [
        {
            "kind": "effect",
            "id": f"r{k}",
            "when": {"op": "observed", "id": f"o{k}", "value": True},
            "effects": [{"op": "increment", "path": "/n", "by": 2**k}],
        }
        for k in range(4)
    ]
    doc["assets"][0]["reveal_when"] = {"op": "literal", "value": True}
    doc["progression"]["endings"] = []
    doc["progression"]["achievements"] = [
        {
            "id": "eleven",
            "visibility": "visible",
            "title": "A",
            "description": "d",
            "when": {"op": "eq", "path": "/n", "value": 11},
            "artwork_asset_id": "ending_art",
        }
    ]
    return doc


def _solver(doc: Doc) -> tuple[Engine, Analysis, _bnb.Effects, SessionState]:
    engine = Engine(doc)
    analysis = analyse(engine.program, engine.entries[0], engine.entry_ids()[0])
    start, _ = engine.start()
    return engine, analysis, _bnb.Effects(analysis), start


def test_the_solver_finds_the_one_combination_of_answers_and_the_engine_agrees() -> None:
    engine, analysis, effects, start = _solver(binary())
    on = effects.box(start.state)
    formulas = _bnb.Formulas(analysis, on, start.answers)
    writers = effects.writers(formulas, start.completed)
    goal = parse(binary()["progression"]["achievements"][0]["when"])
    move, _ = _bnb.solve(effects, formulas, writers, goal, on, 300)
    assert move == {"o0": True, "o1": True, "o3": True}
    after, _ = engine.step(start, Turn(move))
    assert after.state["n"] == 11
    assert "eleven" in after.achievements
    assert _bnb.solve(effects, formulas, writers, parse({"op": "eq", "path": "/n", "value": 16}), on, 300)[0] is None


def test_the_extremes_of_a_turn_are_exact_with_shared_answers() -> None:
    doc = binary()
    # r4 takes 8 away whenever r3 adds 8: with shared answers /n never goes below where it was.
    doc["runtime"]["rules"].append(
        {
            "kind": "effect",
            "id": "r4",
            "when": {"op": "observed", "id": "o3", "value": True},
            "effects": [{"op": "increment", "path": "/n", "by": -8}],
        }
    )
    _, analysis, effects, start = _solver(doc)
    on = effects.box(start.state)
    formulas = _bnb.Formulas(analysis, on)
    writers = effects.writers(formulas)
    slot = (analysis.variables.index(("n",)), None)
    start_mask = effects.start(slot, IntRange(5, 5))
    low, _ = _bnb.extreme(formulas, writers[slot], start_mask, lowest=True, budget=100)
    high, _ = _bnb.extreme(formulas, writers[slot], start_mask, lowest=False, budget=100)
    assert (low, high) == (5, 12)  # 5 + 0 at least; 5 + 1 + 2 + 4 (+8 - 8) at most


def test_a_goal_one_turn_reaches_only_with_many_answers_at_once_is_witnessed_and_replays() -> None:
    doc = binary()
    for k in range(4, 10):  # more observations than the sweep tries every combination of
        doc["runtime"]["observations"].append({"type": "boolean", "id": f"o{k}", "question": "q?"})
    engine = Engine(doc)
    analysis = analyse(engine.program, engine.entries[0], "e0")
    targets = [t for t in _reach.targets(engine) if t.kind == "achievement"]
    search = _witness.Search(engine, targets, 50, time.monotonic() + 600, time.monotonic, [analysis])
    starts = search.starts()
    search.solve(starts)
    witness = search.found[Goal("achievement", "eleven")]
    assert len(witness.turns) == 1
    session, _ = engine.start(witness.entry)
    for move in witness.turns:
        session, _ = engine.step(session, Turn(move))
    assert "eleven" in session.achievements


def shop() -> Doc:
    """`/coins` starts at 3; a yes to `o0` pays in 2, a no buys the sword for 5 (rejected when short).

    The buy undoes its `add` when its increment rejects, and it fires only on the answer that
    leaves the purse unpaid: no single turn buys the sword, two turns do.
    """
    doc: Doc = json.loads(files("0.5")["pack.json"])
    doc["runtime"]["state"]["schema"] = {
        "type": "object",
        "properties": {
            "coins": {"type": "integer", "minimum": 0, "maximum": 20},
            "pack": {"type": "array", "items": {"enum": ["sword"]}, "uniqueItems": True},
        },
        "required": ["coins", "pack"],
        "additionalProperties": False,
    }
    doc["runtime"]["entries"] = [{"id": "e0", "initial_state": {"coins": 3, "pack": []}}]
    doc["entries"] = [{"id": "e0", "title": "T"}]
    doc["runtime"]["observations"] = [{"type": "boolean", "id": "o0", "question": "q?"}]
    doc["runtime"]["rules"] = [
        {
            "kind": "effect",
            "id": "pay_in",
            "when": {"op": "observed", "id": "o0", "value": True},
            "effects": [{"op": "increment", "path": "/coins", "by": 2}],
        },
        {
            "kind": "effect",
            "id": "buy",
            "when": {"op": "observed", "id": "o0", "value": False},
            "effects": [
                {"op": "increment", "path": "/coins", "by": -5, "overflow": "reject"},
                {"op": "add", "path": "/pack", "value": "sword"},
            ],
        },
    ]
    doc["assets"][0]["reveal_when"] = {"op": "literal", "value": True}
    doc["progression"]["endings"] = []
    doc["progression"]["achievements"] = []
    return doc


def test_an_effect_undone_by_a_sibling_rejection_follows_the_answers_the_sibling_reads() -> None:
    _, analysis, effects, start = _solver(shop())
    pack = analysis.variables.index(("pack",))
    on = effects.box(start.state)
    formulas = _bnb.Formulas(analysis, on)
    slot = (pack, "sword")
    for rejections, can in ((True, False), (False, True)):
        writers = effects.writers(formulas, rejections=rejections)
        most, _ = _bnb.extreme(formulas, writers[slot], effects.start(slot, on[pack]), lowest=False, budget=100)
        assert most == can, rejections  # followed, the buy fires only on the answer that leaves 3 in the purse
    trace = by_turn(analysis)
    assert trace is not None
    boxes = [box[pack] for box in trace.after]
    assert boxes[1] == Members(frozenset(), frozenset())
    assert isinstance(boxes[2], Members)
    assert "sword" in boxes[2].may  # o0 yes, then no: 3 + 2 - 5 = 0, and the sword is bought
    session = start
    for answer in (True, False):
        session, _ = Engine(shop()).step(session, Turn({"o0": answer}))
    assert session.state == {"coins": 0, "pack": ["sword"]}


def test_a_guard_past_its_length_is_judged_once_on_an_abstract_box(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = shop()
    doc["runtime"]["rules"][:0] = [
        {
            "kind": "effect",
            "id": f"tip{k}",
            "when": {"op": "observed", "id": "o0", "value": True},
            "effects": [{"op": "increment", "path": "/coins", "by": 1}],
        }
        for k in range(3)
    ]
    monkeypatch.setattr(_bnb, "GUARDED", 2)  # the purse has 4 writers before the buy
    _, analysis, effects, start = _solver(doc)
    slot = (analysis.variables.index(("pack",)), "sword")
    formulas = _bnb.Formulas(analysis, effects.box(start.state))
    (abstract,) = effects.writers(formulas)[slot]
    assert abstract.guard is None
    assert not abstract.sure
    (concrete,) = effects.writers(formulas, start.completed)[slot]
    assert concrete.guard is not None


def _rules_that_change_the_state(engine: Engine, entry: str) -> set[str]:
    """Every rule some reachable turn from ``entry`` fires without a rejection (so its effects apply)."""
    applied: set[str] = set()
    for _, result in _every_turn(engine, entry):
        rejected = {r["rule"] for r in result.rejected_effects}
        applied.update(r for r in result.active_rules if r not in rejected)
    return applied


def clamped_pack(seed: int) -> Doc:
    """:func:`random_pack` with more limits inside the counters' ranges, and rules that read the counters.

    A clamp past its limit pulls a counter back (a `+1` with `limit: 1` takes 3 down to 1), and a
    later rule that fires only on high values then meets a low one: what `rejected-rule` must follow.
    """
    doc = random_pack(seed)
    rng = random.Random(seed * 7919 + 1)
    for rule in doc["runtime"]["rules"]:
        for effect in rule.get("effects", []):
            if effect["op"] == "increment" and rng.random() < 0.5:
                effect["limit"] = rng.randint(0, 3)
                effect.pop("overflow", None) if rng.random() < 0.5 else effect.update(overflow="reject")
        if rng.random() < 0.5:
            counter = rng.choice(["/i0", "/i1"])
            rule["when"] = {"op": rng.choice(["gte", "lte", "eq"]), "path": counter, "value": rng.randint(0, 4)}
    return doc


@pytest.mark.parametrize("seed", SEEDS)
def test_no_rule_said_never_to_change_the_state_ever_does(seed: int) -> None:
    """`rejected-rule` against every answer from every reachable state: a refused rule never applies."""
    doc = clamped_pack(seed)
    engine = Engine(doc)
    effects = {r["id"] for r in doc["runtime"]["rules"] if r.get("effects")}
    applied = set().union(*(_rules_that_change_the_state(engine, name) for name in engine.entry_ids())) & effects
    outcome = _reach.decide(doc, SHORT, 1e9, time.monotonic)
    refused = {f.message.split("'")[1] for f in outcome.findings if f.code == "rejected-rule"}
    assert not refused & applied, (seed, refused & applied)

"""Runtime speed: turn latency on a big pack, and condition evaluations per second beside json-logic.

The pack (benchmarks/_packgen.py) has 10,000 rules (a quarter with effects) and 1,000
achievements over a state of 40 counters, 10 sets and 20 flags, with conditions up to depth 4.
Turns answer a few random observations, as a narrator does. First a session from
``Session.start(pack)`` plays them turn after turn through ``Session.turn``, as a host playing one
session calls it (and as the issue's figures were taken, in a loop of its own): the bars read that.
Then each turn is played three ways, one after the other on the same input: through another
``Session.turn``, through ``Engine.step``, and (where the code has it) through the plain full
re-evaluation the incremental turn is tested against; there each path's caches are cooled by the
others' work, which the "between the others" rows show. Run it with ``PYTHONPATH`` set to another
checkout's ``src`` to measure that code the same way.

Usage: python benchmarks/runtime.py [--quick]

``--quick`` plays 50 turns instead of 300 and compiles once instead of three times; evaluations are
timed on every compiled condition either way (on 2,000 of them, a quick run's figure swung from 11.6x
to 15.1x json-logic between runs of the same code: 2 ms of calls, and a working set that stays in
the cache better than the pack's).
"""

from __future__ import annotations

import inspect
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from json_logic import jsonLogic

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _packgen import make_runtime_pack
from creatorpack.play import step as _step
from creatorpack.play.engine import Engine, Session, Turn

full_step: Any = _step.step if "full" in inspect.signature(_step.step).parameters else None


def to_json_logic(condition: dict[str, Any]) -> Any:
    """The same condition in JsonLogic, over data {"state": ..., "answers": ...}."""
    op = condition["op"]
    if op == "literal":
        return condition["value"]
    if op in ("all", "any"):
        return {"and" if op == "all" else "or": [to_json_logic(c) for c in condition["conditions"]]}
    if op == "not":
        return {"!": [to_json_logic(condition["condition"])]}
    if op == "observed":
        return {"===": [{"var": f"answers.{condition['id']}"}, condition["value"]]}
    var = {"var": "state." + condition["path"][1:].replace("/", ".")}
    if op == "contains":
        return {"in": [condition["value"], var]}
    symbol = {"eq": "===", "ne": "!==", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}[op]
    return {symbol: [var, condition["value"]]}


def _answers(rng: random.Random, observations: list[Any]) -> dict[str, bool | str]:
    answers: dict[str, bool | str] = {}
    for observation in rng.sample(observations, 3):
        if observation["type"] == "boolean":
            answers[observation["id"]] = rng.random() < 0.5
        else:
            answers[observation["id"]] = rng.choice(list(observation["choices"]))
    return answers


EVALUATION_ROUNDS = 5
"""Rounds of the evaluations comparison (json-logic's rate swings by up to 2x between rounds)."""


def _ms(seconds: list[float]) -> tuple[float, float]:
    """The median and the 95th percentile, in milliseconds."""
    return statistics.median(seconds) * 1000, sorted(seconds)[int(len(seconds) * 0.95)] * 1000


class _Timer:
    """Wall-clock and CPU time (of this thread) of each timed call, kept apart.

    The CPU time leaves out the time the process waited for a core, which on a shared machine
    is most of the difference between two runs of the same code.
    """

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def __call__(self, run: Any, *args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.thread_time()
        result = run(*args, **kwargs)
        self.cpu.append(time.thread_time() - cpu)
        self.wall.append(time.perf_counter() - wall)
        return result


def _evaluations(functions: Any, translated: list[Any], state: Any, answers: dict[str, Any]) -> tuple[float, float]:
    """Evaluations a second (CPU time) of ``functions`` and of json-logic, in alternating chunks.

    Each function is called once: a chunk of 500, then json-logic on the same 500 conditions.
    """
    data = {"state": state, "answers": answers}
    ours = theirs = 0.0
    for start in range(0, len(functions), 500):
        began = time.thread_time()
        for function in functions[start : start + 500]:
            function(state, answers)
        ours += time.thread_time() - began
        began = time.thread_time()
        for rule in translated[start : start + 500]:
            jsonLogic(rule, data)
        theirs += time.thread_time() - began
    return len(functions) / ours, len(translated) / theirs


def main() -> None:
    quick = "--quick" in sys.argv
    rng = random.Random(5)
    pack = make_runtime_pack()
    compiling = _Timer()
    for _ in range(1 if quick else 3):
        engine = compiling(Engine, pack)
    starting = _Timer()
    host = starting(Session.start, pack)  # as a host starts one: validated, compiled, turn 0
    observations = list(engine.observations.values())
    session, _ = engine.start()
    oracle = session
    turns = 50 if quick else 300
    plan = [_answers(rng, observations) for _ in range(turns)]
    # Turn after turn, as a host playing one session calls it (and as the figures were taken):
    alone = _Timer()
    player = Session.start(pack)
    for answers in plan:
        alone(player.turn, answers)
    # Then each path in turn on the same answers, one after the other every turn: each Session.turn
    # follows an Engine.step on another engine and a full re-evaluation, which cool its caches.
    stepped, hosted, full = _Timer(), _Timer(), _Timer()
    for answers in plan:
        session, _ = stepped(engine.step, session, Turn(answers))
        hosted(host.turn, answers)
        if full_step is not None:  # the plain full re-evaluation the incremental turn is tested against
            oracle, *_ = full(full_step, engine.program, oracle, Turn(answers), full=True)
    assert host.state == session, "Session.turn and Engine.step played the same turns differently"
    assert player.state == session, "Session.turn alone and Engine.step played the same turns differently"
    saved = session.to_json(engine.schema)
    loading = _Timer()
    for _ in range(6):  # the first load makes what later ones reuse
        assert loading(engine.load, saved) == session
    conditions = engine._conditions  # the compiled conditions (`CompiledCondition`, whose call gives `evaluate`)
    state, answers = session.state, dict(session.answers)
    verdicts = [c(state, answers) for c in conditions]  # each generic function made (on its first call), then:
    # Each condition's function as a turn calls it: `refresh` calls `program.evaluators[i](state, answers)`, of
    # the program `Engine.step` plays the session with (where the code has it: the typed twin, when the state fits).
    fitted = getattr(engine.program, "fitted", None)
    played = fitted(state) if fitted is not None else engine.program
    functions = list(getattr(played, "evaluators", [c.evaluate for c in conditions]))
    assert [function(state, answers) for function in functions] == verdicts
    functions = list(getattr(played, "evaluators", [c.evaluate for c in conditions]))  # each one made by now
    generic = list(getattr(engine.program, "evaluators", [c.evaluate for c in conditions]))
    translated = [to_json_logic(dict(c.source)) for c in conditions]
    data = {"state": state, "answers": answers}
    agree = sum(bool(jsonLogic(rule, data)) == ours for rule, ours in zip(translated, verdicts, strict=True))
    # Two passes, each condition called once in each: its function, then the CompiledCondition (not both
    # in one chunk, where the second would find the first's code in the cache). json-logic runs in both.
    # json-logic's own rate swings from run to run: the comparison is repeated and its medians kept.
    rounds: list[tuple[float, float, float, float]] = []
    for _ in range(1 if quick else EVALUATION_ROUNDS):
        direct_rate, theirs_first = _evaluations(functions, translated, state, answers)
        ours_rate, theirs_second = _evaluations(conditions, translated, state, answers)
        generic_rate, theirs_third = (
            _evaluations(generic, translated, state, answers) if played is not engine.program else (0, 0)
        )
        theirs = [theirs_first, theirs_second] + ([theirs_third] if generic_rate else [])
        rounds.append((direct_rate, ours_rate, generic_rate, len(theirs) / sum(1 / rate for rate in theirs)))
    direct_rate, ours_rate, generic_rate, theirs_rate = (
        statistics.median(column) for column in zip(*rounds, strict=True)
    )
    direct_ratio = statistics.median(r[0] / r[3] for r in rounds)
    every = getattr(engine.program, "values", None)  # all conditions at once, sharing leaves (as Engine.load does)
    every_rate = None
    if every is not None:
        at_once = _Timer()
        for _ in range(5):
            at_once(every, state, answers)
        every_rate = len(engine._conditions) / statistics.median(at_once.cpu)
    print(
        f"pack: {len(pack['runtime']['rules']):,} rules, {len(pack['progression']['achievements']):,} achievements, "
        f"{len(engine._conditions):,} compiled conditions"
    )
    print(f"\n| {'what':<46} | {'wall clock':>11} | {'CPU time':>11} |")
    print("|" + "-" * 48 + "|" + "-" * 13 + "|" + "-" * 13 + "|")
    rows = [
        ("compile (Engine), median", compiling, False),
        ("Session.start from the pack", starting, False),
        ("Session.turn, median (" + str(turns) + " turns)", alone, False),
        ("Session.turn, 95th percentile", alone, True),
        ("Session.turn between the others, median", hosted, False),
        ("Session.turn between the others, 95th pct.", hosted, True),
        ("Engine.step, median", stepped, False),
        ("Engine.step, 95th percentile", stepped, True),
    ]
    if full.wall:
        rows.append(("full re-evaluation (the oracle), median", full, False))
    first_load = _Timer()
    first_load.wall, first_load.cpu = loading.wall[:1], loading.cpu[:1]
    later_loads = _Timer()
    later_loads.wall, later_loads.cpu = loading.wall[1:], loading.cpu[1:]
    rows += [
        ("Engine.load of a save, the first", first_load, False),
        ("Engine.load, median of the next 5", later_loads, False),
    ]
    for label, timer, p95 in rows:
        wall, cpu = _ms(timer.wall)[p95], _ms(timer.cpu)[p95]
        print(f"| {label:<46} | {wall:>8.2f} ms | {cpu:>8.2f} ms |")
    print(f"\n| {'evaluations a second (CPU time)':<46} | {'value':>14} |")
    print("|" + "-" * 48 + "|" + "-" * 16 + "|")
    print(f"| {'each condition function (as a turn calls it)':<46} | {direct_rate:>14,.0f} |")
    if generic_rate:
        print(f"| {'each generic function (exact on any state)':<46} | {generic_rate:>14,.0f} |")
    print(f"| {'each CompiledCondition called':<46} | {ours_rate:>14,.0f} |")
    if every_rate is not None:
        print(f"| {'all at once, leaves shared (Program.values)':<46} | {every_rate:>14,.0f} |")
    print(f"| {'json-logic (json-logic-qubit)':<46} | {theirs_rate:>14,.0f} |")
    print(
        f"\nspeed-up over json-logic (medians of {len(rounds)} rounds): "
        f"{direct_rate / theirs_rate:.1f}x each condition function called, "
        + (f"{generic_rate / theirs_rate:.1f}x each generic function, " if generic_rate else "")
        + f"{ours_rate / theirs_rate:.1f}x each CompiledCondition called"
        + (f", {every_rate / theirs_rate:.1f}x all at once" if every_rate is not None else "")
        + f"; verdicts agree on {agree:,} of {len(translated):,} conditions"
    )
    host_median, host_p95 = _ms(alone.cpu)
    compile_seconds = statistics.median(compiling.cpu)
    print("bars (CPU time; the turn after turn):")
    print(f"bar: median turn (Session.turn) <= 2 ms: {'met' if host_median <= 2 else 'NOT met'}")
    print(f"bar: 95th percentile <= 3 ms: {'met' if host_p95 <= 3 else 'NOT met'}")
    print(f"bar: compile <= 0.6 s: {'met' if compile_seconds <= 0.6 else 'NOT met'}")
    print(f"bar: evaluations >= 20x json-logic: {'met' if direct_ratio >= 20 else 'NOT met'} ({direct_ratio:.1f}x)")


if __name__ == "__main__":
    main()

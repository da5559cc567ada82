"""Runtime speed: turn latency on a big pack, and condition evaluations per second beside json-logic.

The pack (benchmarks/_packgen.py) has 10,000 rules (a quarter with effects) and 1,000
achievements over a state of 40 counters, 10 sets and 20 flags, with conditions up to depth 4.
Turns answer a few random observations, as a narrator does. Each turn is played three ways, one
after the other on the same input: through ``Session.turn`` as a host calls it (a session from
``Session.start(pack)``), through ``Engine.step``, and (where the code has it) through the plain
full re-evaluation the incremental turn is tested against. Run it with ``PYTHONPATH`` set to
another checkout's ``src`` to measure that code the same way.

Usage: python benchmarks/runtime.py [--quick]
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


def _ms(seconds: list[float]) -> tuple[float, float]:
    """The median and the 95th percentile, in milliseconds."""
    return statistics.median(seconds) * 1000, sorted(seconds)[int(len(seconds) * 0.95)] * 1000


def main() -> None:
    quick = "--quick" in sys.argv
    rng = random.Random(5)
    pack = make_runtime_pack()
    compiles = []
    for _ in range(1 if quick else 3):
        started = time.perf_counter()
        engine = Engine(pack)
        compiles.append(time.perf_counter() - started)
    compile_seconds = statistics.median(compiles)
    started = time.perf_counter()
    host = Session.start(pack)  # as a host starts one: validated, compiled, turn 0
    start_seconds = time.perf_counter() - started
    observations = list(engine.observations.values())
    session, _ = engine.start()
    oracle = session
    turns = 50 if quick else 300
    stepped, hosted, full = [], [], []
    for _ in range(turns):
        answers = _answers(rng, observations)
        began = time.perf_counter()
        session, _ = engine.step(session, Turn(answers))
        stepped.append(time.perf_counter() - began)
        began = time.perf_counter()
        host.turn(answers)
        hosted.append(time.perf_counter() - began)
        if full_step is not None:  # the plain full re-evaluation the incremental turn is tested against
            began = time.perf_counter()
            oracle, *_ = full_step(engine.program, oracle, Turn(answers), full=True)
            full.append(time.perf_counter() - began)
    assert host.state == session, "Session.turn and Engine.step played the same turns differently"
    conditions = engine._conditions  # the benchmark measures the compiled conditions themselves
    state, answers = session.state, dict(session.answers)
    began = time.perf_counter()
    ours = [c(state, answers) for c in conditions]
    ours_seconds = time.perf_counter() - began
    translated = [to_json_logic(dict(c.source)) for c in conditions]
    data = {"state": state, "answers": answers}
    sample = translated if not quick else translated[:2000]
    began = time.perf_counter()
    theirs = [bool(jsonLogic(rule, data)) for rule in sample]
    theirs_seconds = time.perf_counter() - began
    agree = sum(a == b for a, b in zip(ours, theirs, strict=False))
    step_median, step_p95 = _ms(stepped)
    host_median, host_p95 = _ms(hosted)
    print(
        f"pack: {len(pack['runtime']['rules']):,} rules, {len(pack['progression']['achievements']):,} achievements, "
        f"{len(conditions):,} compiled conditions; compile (Engine) {compile_seconds * 1000:.0f} ms, "
        f"Session.start from the pack {start_seconds * 1000:.0f} ms"
    )
    print(f"\n| {'what':<46} | {'value':>14} |")
    print("|" + "-" * 48 + "|" + "-" * 16 + "|")
    print(f"| {'Session.turn, median (' + str(turns) + ' turns)':<46} | {host_median:>11.2f} ms |")
    print(f"| {'Session.turn, 95th percentile':<46} | {host_p95:>11.2f} ms |")
    print(f"| {'Engine.step, median':<46} | {step_median:>11.2f} ms |")
    print(f"| {'Engine.step, 95th percentile':<46} | {step_p95:>11.2f} ms |")
    if full:
        full_median = _ms(full)[0]
        print(f"| {'full re-evaluation (the oracle), median':<46} | {full_median:>11.2f} ms |")
    print(f"| {'creatorpack compiled conditions, evals/s':<46} | {len(conditions) / ours_seconds:>14,.0f} |")
    print(f"| {'json-logic (json-logic-qubit), evals/s':<46} | {len(sample) / theirs_seconds:>14,.0f} |")
    print(
        f"\nspeed-up over json-logic: {(len(conditions) / ours_seconds) / (len(sample) / theirs_seconds):.1f}x; "
        f"verdicts agree on {agree:,} of {len(sample):,} conditions"
    )
    print(f"bar: median turn (Session.turn) <= 2 ms: {'met' if host_median <= 2 else 'NOT met'}")
    print(f"bar: 95th percentile <= 3 ms: {'met' if host_p95 <= 3 else 'NOT met'}")
    print(f"bar: compile <= 0.6 s: {'met' if compile_seconds <= 0.6 else 'NOT met'}")


if __name__ == "__main__":
    main()

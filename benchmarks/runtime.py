"""Runtime speed: turn latency on a big pack, and condition evaluations per second beside json-logic.

The pack (benchmarks/_packgen.py) has 10,000 rules (a quarter with effects) and 1,000
achievements over a state of 40 counters, 10 sets and 20 flags, with conditions up to depth 4.
Turns answer a few random observations, as a narrator does.

Usage: python benchmarks/runtime.py [--quick]
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from json_logic import jsonLogic

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _packgen import make_runtime_pack
from creatorpack.play.engine import Engine, Turn


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


def main() -> None:
    quick = "--quick" in sys.argv
    rng = random.Random(5)
    started = time.perf_counter()
    pack = make_runtime_pack()
    engine = Engine(pack)
    compile_seconds = time.perf_counter() - started
    observations = list(engine.observations.values())
    session, _ = engine.start()
    latencies = []
    turns = 50 if quick else 300
    for _ in range(turns):
        answers: dict[str, bool | str] = {}
        for observation in rng.sample(observations, 3):
            if observation["type"] == "boolean":
                answers[observation["id"]] = rng.random() < 0.5
            else:
                answers[observation["id"]] = rng.choice(list(observation["choices"]))
        began = time.perf_counter()
        session, _ = engine.step(session, Turn(answers))
        latencies.append(time.perf_counter() - began)
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
    median_ms = statistics.median(latencies) * 1000
    p95_ms = sorted(latencies)[int(len(latencies) * 0.95)] * 1000
    print(
        f"pack: {len(pack['runtime']['rules']):,} rules, {len(pack['progression']['achievements']):,} achievements, "
        f"{len(conditions):,} compiled conditions; compile {compile_seconds * 1000:.0f} ms"
    )
    print(f"\n| {'what':<46} | {'value':>14} |")
    print("|" + "-" * 48 + "|" + "-" * 16 + "|")
    print(f"| {'turn latency, median (' + str(turns) + ' turns)':<46} | {median_ms:>11.2f} ms |")
    print(f"| {'turn latency, 95th percentile':<46} | {p95_ms:>11.2f} ms |")
    print(f"| {'creatorpack compiled conditions, evals/s':<46} | {len(conditions) / ours_seconds:>14,.0f} |")
    print(f"| {'json-logic (json-logic-qubit), evals/s':<46} | {len(sample) / theirs_seconds:>14,.0f} |")
    print(
        f"\nspeed-up over json-logic: {(len(conditions) / ours_seconds) / (len(sample) / theirs_seconds):.1f}x; "
        f"verdicts agree on {agree:,} of {len(sample):,} conditions"
    )
    print(f"bar: median turn <= 10 ms: {'met' if median_ms <= 10 else 'NOT met'}")


if __name__ == "__main__":
    main()

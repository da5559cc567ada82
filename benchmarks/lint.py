"""Lint speed: the ~10 MB validation benchmark pack without the reachability search, and the
search's own cost on the runtime benchmark pack (10,000 rules, 1,000 achievements).

Usage: python benchmarks/lint.py [--quick]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

import creatorpack
from _packgen import make_pack, make_runtime_pack
from creatorpack.lint import _reach
from creatorpack.lint.linter import LintConfig, lint


def main() -> None:
    quick = "--quick" in sys.argv
    repeat = 3 if quick else 7
    data = orjson.dumps(make_pack(10_000_000), option=orjson.OPT_INDENT_2)
    validate_times, lint_times = [], []
    for _ in range(repeat):
        began = time.perf_counter()
        creatorpack.validate(data)
        validate_times.append(time.perf_counter() - began)
        began = time.perf_counter()
        report = lint(data, LintConfig(reachability=False))
        lint_times.append(time.perf_counter() - began)
    codes: dict[str, int] = {}
    for finding in report.findings:
        codes[finding.code] = codes.get(finding.code, 0) + 1
    print(f"~10 MB pack ({len(data) / 1e6:.1f} MB), medians of {repeat} runs")
    print(f"| {'what':<52} | {'median':>10} |")
    print("|" + "-" * 54 + "|" + "-" * 12 + "|")
    print(f"| {'creatorpack.validate (for reference)':<52} | {statistics.median(validate_times) * 1000:>7.0f} ms |")
    lint_ms = statistics.median(lint_times) * 1000
    print(f"| {'lint, no reachability search (validation included)':<52} | {lint_ms:>7.0f} ms |")
    print(f"findings: {codes}")
    print(f"bar: lint of the ~10 MB pack <= 2 s: {'met' if statistics.median(lint_times) <= 2 else 'NOT met'}")

    _reachability(quick=quick)


def _decide(pack: dict[str, Any], budget: int) -> tuple[float, _reach.Outcome]:
    began = time.perf_counter()
    outcome = _reach.decide(pack, budget, 600.0, time.monotonic)
    return time.perf_counter() - began, outcome


def _row(name: str, spent: float, outcome: _reach.Outcome, kinds: tuple[str, ...]) -> None:
    goals = [t for t in outcome.targets if t.kind in kinds]
    proved = sum(t.key in outcome.proofs for t in goals)
    witnessed = [outcome.witnesses[t.key] for t in goals if t.key in outcome.witnesses]
    decided = (proved + len(witnessed)) / len(goals) if goals else 1.0
    lengths = sorted(len(w.turns) for w in witnessed)
    median = lengths[len(lengths) // 2] if lengths else 0
    print(
        f"| {name:<34} | {len(goals):>6,} | {proved:>6,} | {len(witnessed):>7,} | {decided:>8.1%} "
        f"| {median:>3} / {lengths[-1] if lengths else 0:>3} | {outcome.turns_played:>6,} | {spent:>6.2f} s |"
    )


def _reachability(*, quick: bool) -> None:
    """Goals decided (proved unreachable or witnessed) by the default bound, and the time it took."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.test_reachability import PLANTED

    budget = LintConfig().max_states
    print(f"\nReachability decided with the default bound ({budget:,} turns; deterministic):")
    print(
        f"| {'pack':<34} | {'goals':>6} | {'proved':>6} | {'witness':>7} | {'decided':>8} "
        f"| med/max | {'turns':>6} | {'time':>8} |"
    )
    print(
        "|"
        + "-" * 36
        + "|"
        + "-" * 8
        + "|"
        + "-" * 8
        + "|"
        + "-" * 9
        + "|"
        + "-" * 10
        + "|"
        + "-" * 9
        + "|"
        + "-" * 8
        + "|"
        + "-" * 10
        + "|"
    )
    every = ("achievement", "ending", "rule", "completion")
    root = Path(__file__).resolve().parent.parent / "examples"
    for version in ("0.3", "0.4", "0.5"):
        pack = orjson.loads((root / version / "rich.json").read_bytes())
        _row(f"rich {version} example", *_decide(pack, budget), every)
    for name, (make, _, _) in PLANTED.items():
        _row(f"rich 0.5 + planted {name}", *_decide(make(), budget), every)
    pack = make_runtime_pack()
    for turns in (budget,) if quick else (budget, 4 * budget):
        spent, outcome = _decide(pack, turns)
        _row(f"runtime pack, {turns:,} turns (rules+achv.)", spent, outcome, ("achievement", "rule"))
        _row(f"runtime pack, {turns:,} turns (all goals)", spent, outcome, every)
    print("bars: every goal of the rich packs decided in <= 2 s; >= 99% of the runtime pack's 11,000 in <= 30 s")


if __name__ == "__main__":
    main()

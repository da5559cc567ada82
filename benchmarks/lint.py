"""Lint speed: the ~10 MB validation benchmark pack without the reachability search, and the
search's own cost on the runtime benchmark pack (10,000 rules, 1,000 achievements).

Usage: python benchmarks/lint.py [--quick]
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from pathlib import Path

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

    pack = make_runtime_pack()
    print("\nThe reachability search alone, on the runtime benchmark pack (10,000 rules, 1,000 achievements):")
    for states, seconds in ((20_000, 10.0), (20_000, 60.0)):
        began = time.perf_counter()
        witnesses, findings = _reach.search(pack, states, seconds, time.monotonic)
        spent = time.perf_counter() - began
        counted = re.search(r"([0-9,]+) states explored", findings[0][2]) if findings else None
        explored = counted.group(1) if counted else "all"
        print(
            f"- bound {states:,} states / {seconds:g} s: stopped after {spent:.1f} s with {explored} states explored; "
            f"{len(witnesses):,} rules and goals reached with witnesses, {len(findings):,} not decided"
        )


if __name__ == "__main__":
    main()

"""Validation speed, side by side with the peers, in one run.

Generates realistic 0.5 packs of about 1 MB and 10 MB (pretty-printed, as tools write them) and
prints the median time and throughput of: orjson.loads alone (the floor), creatorpack.validate
from bytes, python-jsonschema and jsonschema-rs on the same bundled schema, and the
check-jsonschema command on the file. Then the error path (1,000 errors in the 10 MB pack, with
line and column) and a whole `creatorpack validate small.json` process.

Usage: python benchmarks/validate.py [--quick] [--one-mb]

``--one-mb`` runs only the ~1 MB pack against the in-process peers that take milliseconds
(orjson.loads and jsonschema-rs), with 41 runs each: enough runs for a stable median of the
"vs orjson.loads" ratio on a busy machine, without the peers that take seconds a run.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

import creatorpack
from _packgen import make_pack
from creatorpack.contract import schema

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def median_seconds(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def parse_then(check: Callable[[Any], object], parse: Callable[[bytes], Any], data: bytes) -> object:
    return check(parse(data))


def process_seconds(command: list[str], repeat: int) -> float:
    def run() -> None:
        subprocess.run(command, capture_output=True, check=False)

    return median_seconds(run, repeat)


def row(name: str, seconds: float, size: int, floor: float) -> str:
    mbps = size / seconds / 1e6
    return f"| {name:<42} | {seconds * 1000:>10.1f} | {mbps:>8.1f} | {seconds / floor:>8.2f}x |"


def main() -> None:
    quick = "--quick" in sys.argv
    one_mb = "--one-mb" in sys.argv
    fast_repeat = 5 if quick else 41 if one_mb else 21
    slow_repeat = 1 if quick else 3
    bundled = schema.bundle("0.5")
    rs = jsonschema_rs.validator_for(bundled)
    reference = jsonschema.Draft202012Validator(bundled)
    workdir = Path(tempfile.mkdtemp(prefix="creatorpack-bench-"))
    schema_file = workdir / "pack-0.5.schema.json"
    schema_file.write_text(json.dumps(bundled))
    check_jsonschema = shutil.which("check-jsonschema", path=str(BIN)) or shutil.which("check-jsonschema")
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, medians of {fast_repeat} runs (peers: {slow_repeat})"
    )
    header = f"| {'what':<42} | {'median ms':>10} | {'MB/s':>8} | {'vs loads':>9} |"
    rule = "|" + "-" * 44 + "|" + "-" * 12 + "|" + "-" * 10 + "|" + "-" * 11 + "|"
    sizes = (("~1 MB", 1_000_000),) if one_mb else (("~1 MB", 1_000_000), ("~10 MB", 10_000_000))
    for label, target in sizes:
        data = orjson.dumps(make_pack(target), option=orjson.OPT_INDENT_2)
        path = workdir / f"pack-{target}.json"
        path.write_bytes(data)
        assert creatorpack.validate(data).valid
        size = len(data)
        print(f"\n{label} pack: {size / 1e6:.2f} MB, valid")
        print(header)
        print(rule)
        floor = median_seconds(partial(orjson.loads, data), fast_repeat)
        ours = median_seconds(partial(creatorpack.validate, data), fast_repeat)
        rs_time = median_seconds(partial(parse_then, rs.is_valid, orjson.loads, data), fast_repeat)
        print(row("orjson.loads (floor)", floor, size, floor))
        print(row("creatorpack.validate(bytes)", ours, size, floor))
        print(row("jsonschema-rs is_valid(orjson.loads)", rs_time, size, floor))
        if one_mb:
            print(f"creatorpack vs orjson.loads: {ours / floor:.2f}x")
            continue
        ref_time = median_seconds(partial(parse_then, reference.is_valid, json.loads, data), slow_repeat)
        print(row("python-jsonschema is_valid(json.loads)", ref_time, size, floor))
        if check_jsonschema:
            cj = process_seconds([check_jsonschema, "--schemafile", str(schema_file), str(path)], slow_repeat)
            print(row("check-jsonschema (whole process)", cj, size, floor))
        else:
            print("| check-jsonschema: not installed |")
        print(
            f"creatorpack vs orjson.loads: {ours / floor:.2f}x; python-jsonschema / creatorpack: {ref_time / ours:.0f}x"
        )

    if one_mb:
        shutil.rmtree(workdir, ignore_errors=True)
        return
    # The error path: 1,000 errors spread over the 10 MB pack, each with line and column.
    pack = make_pack(10_000_000)
    step = max(1, len(pack["assets"]) // 1000)
    broken = 0
    for asset in pack["assets"][::step][:1000]:
        asset["byte_size"] = 0
        broken += 1
    data = orjson.dumps(pack, option=orjson.OPT_INDENT_2)
    report = creatorpack.validate(data)
    assert len(report.violations) == broken
    assert all(v.line is not None for v in report.violations)
    errors_time = median_seconds(partial(creatorpack.validate, data), max(3, fast_repeat // 4))
    print(
        f"\n{broken:,} errors in a {len(data) / 1e6:.1f} MB pack, with line/column: median {errors_time * 1000:.0f} ms"
    )

    small = ROOT / "examples" / "0.5" / "minimal.json"
    exe = BIN / "creatorpack"
    command = (
        [str(exe), "validate", str(small)]
        if exe.exists()
        else [sys.executable, "-m", "creatorpack", "validate", str(small)]
    )
    whole = process_seconds(command, fast_repeat)
    print(f"`creatorpack validate {small.relative_to(ROOT)}` as a whole process: median {whole * 1000:.0f} ms")
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()

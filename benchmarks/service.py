"""The pack service under load, beside a bare ASGI app on the same server (the ceiling).

The server (uvicorn, one worker process) runs in a subprocess; this process is the load generator: an
asyncio HTTP/1.1 client with keep-alive connections on loopback. Each scenario runs for a fixed time
and prints requests/s, p50 and p99:

- the ceiling: a constant answer from a bare ASGI app (15 bytes, and one of the 100 KB pack's size,
  the ceiling of the 100 KB revision read);
- GET of a stored revision (200) and with If-None-Match (304);
- POST /v1/validate of a 100 KB pack, beside in-process creatorpack.validate of the same bytes;
- POST /v1/packs of new revisions (a 1 KB pack).

On SQLite (the embedded default) and, when CREATORPACK_TEST_POSTGRES_URL is set, on PostgreSQL.
Bars (issue 9): revision GET >= 50% of the ceiling; /v1/validate >= 70% of in-process validate.

Usage: python benchmarks/service.py [--seconds 4] [--connections 8]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

import creatorpack
from _packgen import make_pack

ROOT = Path(__file__).resolve().parent.parent
MINIMAL = json.loads((ROOT / "examples" / "0.5" / "minimal.json").read_text(encoding="utf-8"))

Request = Callable[[int], bytes]  # the connection's index -> the next request
ROUNDS = 3  # each scenario alternates with its peer this many times


def _request(method: str, path: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def _connection(
    port: int, index: int, make: Request, until: float, latencies: list[float], statuses: dict[int, int]
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.perf_counter() < until:
            start = time.perf_counter()
            writer.write(make(index))
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            if length:
                await reader.readexactly(length)
            latencies.append(time.perf_counter() - start)
            statuses[status] = statuses.get(status, 0) + 1
    finally:
        writer.close()


def load(port: int, make: Request, seconds: float, connections: int) -> tuple[float, float, float, dict[int, int]]:
    """Requests/s, p50 and p99 (ms) and the status counts of ``seconds`` of load."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}

    async def run() -> float:
        start = time.perf_counter()
        until = start + seconds
        await asyncio.gather(*(_connection(port, i, make, until, latencies, statuses) for i in range(connections)))
        return time.perf_counter() - start

    elapsed = asyncio.run(run())
    cuts = statistics.quantiles(latencies, n=100)
    return len(latencies) / elapsed, cuts[49] * 1000, cuts[98] * 1000, statuses


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server(target: str, env: dict[str, str], *, factory: bool) -> Iterator[int]:
    port = _free_port()
    command = [sys.executable, "-m", "uvicorn", target, "--port", str(port), "--log-level", "warning"]
    command += ["--no-access-log", "--no-server-header"]
    if factory:
        command.append("--factory")
    process = subprocess.Popen(command, env={**os.environ, **env}, cwd=Path(__file__).resolve().parent)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.1)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


def _row(name: str, rps: float, p50: float, p99: float, statuses: dict[int, int]) -> None:
    codes = ",".join(f"{k}x{v}" for k, v in sorted(statuses.items()))
    print(f"  {name:<34} {rps:>9,.0f} req/s  p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  [{codes}]", flush=True)


def in_process_validate(body: bytes, seconds: float) -> float:
    creatorpack.validate(body)
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        creatorpack.validate(body)
        count += 1
    return count / (time.perf_counter() - start)


def _constant(request: bytes) -> Request:
    return lambda _: request


def bench_backend(
    name: str, env: dict[str, str], args: argparse.Namespace, big: bytes, ceiling_port: int
) -> dict[str, float]:
    from creatorpack.service.app import open_database, wire
    from creatorpack.service.settings import Settings

    settings = Settings.from_env(env, migrate=True)
    database = open_database(settings)
    services = wire(settings, database)
    token, _ = services.auth.issue("bench", "creator")
    stored = services.packs.submit("bench", big)
    small = orjson.dumps({**MINIMAL, "manifest": {**MINIMAL["manifest"], "pack_id": "small.bench"}})
    small_stored = services.packs.submit("bench", small)
    database.dispose()
    auth = {"Authorization": f"Bearer {token}"}
    path = f"/v1/packs/{stored.revision.pack_id}/revisions/{stored.revision.revision}"
    etag = f'"{stored.revision.sha256}"'
    get200 = _request("GET", path, auth)
    get304 = _request("GET", path, {**auth, "If-None-Match": etag})
    get_small = _request("GET", f"/v1/packs/small.bench/revisions/{small_stored.revision.revision}", auth)
    health = _request("GET", "/v1/health", {})
    validate = _request("POST", "/v1/validate", {"Content-Type": "application/json"}, big)
    numbers = itertools.count(1)
    template = orjson.dumps({**MINIMAL, "manifest": {**MINIMAL["manifest"], "pack_id": "upload.N", "revision": 0}})

    def upload(index: int) -> bytes:
        # One pack per connection, so that concurrent uploads never race for one revision number.
        body = template.replace(b'"revision":0', f'"revision":{next(numbers)}'.encode(), 1)
        body = body.replace(b'"upload.N"', f'"upload.c{index}"'.encode(), 1)
        return _request("POST", "/v1/packs", {**auth, "Content-Type": "application/json"}, body)

    ceiling_small = _request("GET", "/", {})
    ceiling_big = _request("GET", f"/bytes/{len(big)}", {})
    figures: dict[str, float] = {}
    print(f"\n{name}: one uvicorn worker, {args.connections} connections, {args.seconds:g} s per scenario", flush=True)
    print("  (each GET alternates with its ceiling, /v1/validate with in-process validate: ratios are paired)")
    with server("creatorpack.service.app:create_app", env, factory=True) as port:
        for label, make, connections, peer in (
            ("GET /v1/health (framework floor)", lambda _: health, args.connections, ceiling_small),
            ("GET revision (200, 1 KB)", lambda _: get_small, args.connections, ceiling_small),
            ("GET revision (200, 100 KB)", lambda _: get200, args.connections, ceiling_big),
            ("GET revision (304)", lambda _: get304, args.connections, ceiling_small),
            ("POST /v1/validate (100 KB)", lambda _: validate, 4, None),
            ("POST /v1/packs (new revision, 1 KB)", upload, 4, None),
        ):
            if args.only and args.only not in label:
                continue
            rounds: list[tuple[float, float]] = []
            shown: list[tuple[float, float, float, dict[int, int]]] = []
            for _ in range(ROUNDS):
                if peer is not None:
                    peer_rps = load(ceiling_port, _constant(peer), args.seconds / ROUNDS, connections)[0]
                elif "validate" in label:
                    peer_rps = in_process_validate(big, args.seconds / ROUNDS)
                else:
                    peer_rps = 0.0
                rps, p50, p99, statuses = load(port, make, args.seconds / ROUNDS, connections)
                rounds.append((rps, peer_rps))
                shown.append((rps, p50, p99, statuses))
            _row(label, *sorted(shown, key=lambda row: row[0])[len(shown) // 2])  # the median round
            figures[label] = statistics.median(r for r, _ in rounds)
            if peer is not None or "validate" in label:
                ratio = statistics.median(r / p for r, p in rounds)
                what = (
                    "in-process validate"
                    if peer is None
                    else ("its ceiling" if peer is ceiling_small else "the same-size ceiling")
                )
                print(f"    ratio to {what}: {ratio:.0%} (median of {ROUNDS} paired rounds)", flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--only", help="run only the scenarios whose label contains this text")
    args = parser.parse_args()

    pack = make_pack(100_000)
    pack["manifest"]["revision"] = 1
    big = json.dumps(pack, indent=2).encode()
    print(
        f"Service benchmark: validate body {len(big):,} bytes; Python {sys.version.split()[0]}; {os.cpu_count()} CPUs"
    )

    ceiling_get = _request("GET", "/", {})
    ceiling_big = _request("GET", f"/bytes/{len(big)}", {})
    print("\nCeiling: bare ASGI constant on the same server")
    stack = contextlib.ExitStack()
    ceiling_port = stack.enter_context(server("_ceiling:app", {}, factory=False))
    rps, p50, p99, statuses = load(ceiling_port, lambda _: ceiling_get, args.seconds, args.connections)
    _row("GET / (constant)", rps, p50, p99, statuses)
    rps, p50, p99, statuses = load(ceiling_port, lambda _: ceiling_big, args.seconds, args.connections)
    _row(f"GET /bytes/{len(big)} (constant)", rps, p50, p99, statuses)
    inproc = in_process_validate(big, args.seconds)
    print(f"\nIn-process creatorpack.validate (100 KB): {inproc:,.0f} validations/s")

    off = {"CREATORPACK_RATE_PER_IP": "0", "CREATORPACK_RATE_PER_TOKEN": "0"}
    backends: list[tuple[str, dict[str, str]]] = []
    with tempfile.TemporaryDirectory() as data:
        backends.append(("SQLite", {**off, "CREATORPACK_DATA_DIR": data}))
        postgres = os.environ.get("CREATORPACK_TEST_POSTGRES_URL")
        schema = f"cp_bench_{secrets.token_hex(4)}"
        if postgres:
            from creatorpack.service.store import connect

            admin = connect(postgres)
            with admin.write() as conn:
                conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
            backends.append(
                (
                    "PostgreSQL",
                    {
                        **off,
                        "CREATORPACK_DATA_DIR": str(Path(data) / "pg"),
                        "CREATORPACK_DATABASE_URL": postgres,
                        "CREATORPACK_DATABASE_SCHEMA": schema,
                    },
                )
            )
        try:
            for name, env in backends:
                bench_backend(name, env, args, big, ceiling_port)
        finally:
            if postgres:
                with admin.write() as conn:
                    conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
                admin.dispose()
            stack.close()


if __name__ == "__main__":
    main()

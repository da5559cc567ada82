"""The pack service under load, beside a bare ASGI app on the same server (the ceiling).

The server (uvicorn, one worker process) runs in a subprocess; this process is the load generator: an
asyncio HTTP/1.1 client with keep-alive connections on loopback. Each scenario runs for a fixed time
and prints requests/s, p50 and p99:

- the ceiling: a constant answer from a bare ASGI app (15 bytes, and one of the big pack's size,
  the ceiling of the big revision read);
- GET of a stored revision (200) and with If-None-Match (304);
- POST /v1/validate of the big pack (benchmarks/_packgen.py's make_pack(100_000) as indented JSON:
  about 135 KB; its size is printed and used in the labels), beside in-process creatorpack.validate
  of the same bytes;
- POST /v1/packs of new revisions (a 1 KB pack);
- POST /v1/sessions/{id}/turns on the rich 0.5 example (published through Packs.publish, played by a
  host) and on the runtime benchmark pack (benchmarks/_packgen.py; its random rules do not lint clean,
  so it is not published and its owner plays it: the same narrator's path), one connection (latency)
  and four (turns/s), beside the in-process engine's Engine.step on the very same turns;
- with --packs published packs (10,000 by default, each uploaded and published through the domain:
  validated, linted, its reader view built): GET of a reader view (anonymous, a different pack on
  every request, beside the same-size ceiling) and GET /v1/catalog searches (a different word on
  every request, from rare to very common), the newest-first front page and a tag filter.

On SQLite (the embedded default) and, when CREATORPACK_TEST_POSTGRES_URL is set, on PostgreSQL.
Bars (issue 9): revision GET >= 50% of the ceiling; /v1/validate >= 70% of in-process validate.
Bars (issue 10): reader view >= 50% of the ceiling; catalog search p99 <= 50 ms at 10,000 packs.
Bar (issue 11): p50 HTTP turn (one connection) <= in-process turn + 5 ms on the rich example.
Bar (issue 27): the web pages beside the JSON routes they render, one connection, median p50 of paired
rounds: the catalog page (GET /) vs GET /v1/catalog?limit=12 (its page size), the pack page
(GET /packs/{id}) vs GET /v1/packs/{id}/reader; each within 2x (label "web page", with --packs).

--processes 1,2,4 (issue 30) runs ``creatorpack serve --workers N`` as deployed (JSON logs, metrics,
an access line per request), beside the bare ceiling under ``uvicorn --workers N``, for each N:
GET /v1/health and GET of a 1 KB revision (token check, cache), alternating with the ceiling.
--processes alone (``--only processes``) skips the other scenarios.
Each bar is printed as a "bar ...: met" or "bar ...: NOT met" line where it is measured (a catalog
bar measured with fewer than 10,000 packs says so), and all of them again at the end.

Usage: python benchmarks/service.py [--seconds 4] [--connections 8] [--packs 10000] [--only TEXT]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
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
from typing import Any
from urllib.parse import quote

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

import creatorpack
from _packgen import make_pack, make_runtime_pack
from creatorpack.play import Engine, Turn

ROOT = Path(__file__).resolve().parent.parent
MINIMAL = json.loads((ROOT / "examples" / "0.5" / "minimal.json").read_text(encoding="utf-8"))
RICH = json.loads((ROOT / "examples" / "0.5" / "rich.json").read_text(encoding="utf-8"))

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
            try:
                request = make(index)
            except StopIteration:  # its sessions are played out before the time is up: this connection stops
                break
            writer.write(request)
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


def warm(port: int, requests: list[bytes], connections: int) -> None:
    """Send each request once (spread over ``connections``), e.g. to fill a cache."""

    async def one(share: list[bytes]) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            for request in share:
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (int(line[15:]) for line in head.split(b"\r\n") if line[:15].lower() == b"content-length:"), 0
                )
                await reader.readexactly(length)
        finally:
            writer.close()

    async def run() -> None:
        await asyncio.gather(*(one(requests[i::connections]) for i in range(connections)))

    asyncio.run(run())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server(target: str, env: dict[str, str], *, factory: bool, workers: int = 1) -> Iterator[int]:
    port = _free_port()
    command = [sys.executable, "-m", "uvicorn", target, "--port", str(port), "--log-level", "warning"]
    command += ["--no-access-log", "--no-server-header"]
    if factory:
        command.append("--factory")
    if workers > 1:
        command += ["--workers", str(workers)]
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


BARS: list[str] = []
CATALOG_BAR_PACKS = 10_000


def bar(backend: str, text: str, *, met: bool, note: str = "") -> None:
    """Print (and remember for the summary) whether a bar is met."""
    line = f"bar ({backend}) {text}: {'met' if met else 'NOT met'}{note}"
    BARS.append(line)
    print(f"    {line}", flush=True)


def _kb(size: int) -> str:
    return f"{size / 1000:,.0f} KB"


def in_process_validate(body: bytes, seconds: float) -> float:
    creatorpack.validate(body)
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        creatorpack.validate(body)
        count += 1
    return count / (time.perf_counter() - start)


def _constant(request: bytes) -> Request:
    return lambda _: request


# -- play sessions (issue 11) ----------------------------------------------------------------------


class Scripts:
    """Turn bodies for sessions that never reach an ending, and the in-process engine's time for each turn.

    Each session gets random answers (seeded) to a few observations per turn, as a narrator gives them;
    an answer that would end the session is drawn again, and the script stops when none is found.
    """

    def __init__(self, pack: dict[str, object], turns: int, answers: int, longest: int, seed: int = 11) -> None:
        rng = random.Random(seed)
        engine = Engine(pack)
        observations = list(engine.observations.values())
        self.sessions: list[tuple[str, list[bytes]]] = []
        self.in_process: list[float] = []
        made = 0
        while made < turns:
            entry = rng.choice(engine.entry_ids())
            state, _ = engine.start(entry)
            script: list[bytes] = []
            while made < turns and len(script) < longest:
                for _ in range(10):
                    asked: dict[str, bool | str] = {}
                    for observation in rng.sample(observations, min(answers, len(observations))):
                        ident = str(observation["id"])
                        if observation["type"] == "boolean":
                            asked[ident] = rng.random() < 0.5
                        else:
                            asked[ident] = rng.choice(list(observation["choices"]))
                    began = time.perf_counter()
                    after, _ = engine.step(state, Turn(asked))
                    elapsed = time.perf_counter() - began
                    if after.ending is None:
                        break
                else:
                    break
                self.in_process.append(elapsed)
                state = after
                script.append(orjson.dumps({"turn": len(script) + 1, "observations": asked}))
                made += 1
            if script:
                self.sessions.append((entry, script))

    def p50_ms(self) -> float:
        """The in-process engine's median turn."""
        return statistics.median(self.in_process) * 1000


def start_sessions(port: int, pack_id: str, auth: dict[str, str], scripts: Scripts) -> list[tuple[str, list[bytes]]]:
    """Start one session per script over HTTP (so the server holds them as a host's would); ids and scripts.

    The last session is played once, untimed, to compile the engine, and is not returned.
    """
    import httpx

    started = []
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=auth, timeout=120) as client:
        for entry, script in scripts.sessions:
            response = client.post(f"/v1/packs/{pack_id}/sessions", json={"entry": entry})
            response.raise_for_status()
            started.append((str(response.json()["session_id"]), script))
        warm_id, warm = started.pop()  # the server compiles the pack's engine on its first turn: not timed
        client.post(f"/v1/sessions/{warm_id}/turns", content=warm[0]).raise_for_status()
    return started


def turns_of(sessions: list[tuple[str, list[bytes]]], auth: dict[str, str]) -> Request:
    """Each connection plays its own sessions' scripts in order, taking the next session when one is done."""
    pool = iter(sessions)
    current: dict[int, tuple[str, Iterator[bytes]]] = {}
    headers = {**auth, "Content-Type": "application/json"}

    def make(index: int) -> bytes:
        while True:
            if index not in current:
                session_id, script = next(pool)  # sized so that it lasts; StopIteration ends the connection
                current[index] = (session_id, iter(script))
            session_id, bodies = current[index]
            body = next(bodies, None)
            if body is not None:
                return _request("POST", f"/v1/sessions/{session_id}/turns", headers, body)
            del current[index]

    return make


Playable = dict[str, tuple[str, dict[str, object]]]  # label -> (pack_id, pack)


def bench_turns(
    name: str, port: int, args: argparse.Namespace, players: dict[str, dict[str, str]], packs: Playable
) -> dict[str, float]:
    """Turns over HTTP beside Engine.step, per pack (each played by its player's token); the bar on the rich one."""
    figures: dict[str, float] = {}
    for label, (pack_id, pack) in packs.items():
        rich = label == "rich"
        for connections in (1, 4):
            title = f"POST turn, {label} ({connections} conn.)"
            if args.only and args.only not in title:
                continue
            budget = int(args.seconds * (3000 if rich else 400) * (1 if connections == 1 else 2))
            # At least two sessions per connection (and one to warm up), so that no connection runs dry.
            scripts = Scripts(pack, budget, answers=2 if rich else 3, longest=min(200, budget // (2 * connections + 1)))
            player = players[label]
            sessions = start_sessions(port, pack_id, player, scripts)
            rps, p50, p99, statuses = load(port, turns_of(sessions, player), args.seconds, connections)
            _row(title, rps, p50, p99, statuses)
            figures[title] = p50
            if connections == 1:
                inproc = scripts.p50_ms()
                print(f"    in-process Engine.step p50 {inproc:.2f} ms; HTTP adds {p50 - inproc:.2f} ms", flush=True)
                if rich:
                    text = f"issue 11: p50 HTTP turn {p50:.2f} ms <= in-process {inproc:.2f} ms + 5 ms (rich example)"
                    bar(name, text, met=p50 <= inproc + 5)
    return figures


def _vocabulary(size: int, rng: random.Random) -> list[str]:
    syllables = ["ka", "lo", "mer", "sal", "tin", "vor", "el", "an", "dri", "qu", "os", "ne", "ha", "rim", "to"]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def _zipf(words: list[str], rng: random.Random, count: int) -> str:
    # word i is drawn with weight 1/(i+1): a few very common words, a long tail of rare ones
    return " ".join(rng.choices(words, weights=[1 / (i + 1) for i in range(len(words))], k=count))


def seed_catalog(services: Any, count: int) -> tuple[list[str], list[str], list[str]]:
    """``count`` public packs uploaded and published through the domain; their ids, search words and tags."""
    from creatorpack.service.ports import Actor

    rng = random.Random(10)
    words = _vocabulary(2000, rng)
    tags = [f"tag{n}" for n in range(200)]
    ids = []
    start = time.perf_counter()
    for n in range(count):
        pack_id = f"catalog.{n:05}"
        publication = {
            "tagline": _zipf(words, rng, 8).capitalize(),
            "description": _zipf(words, rng, 40).capitalize() + ".",
            "creator_credit": f"Author {n % 300}",
            "rights": {"basis": "original", "statement": "Original work."},
            "genres": [rng.choice(["Mystery", "Drama", "Cozy", "Horror", "Romance"])],
            "tags": rng.sample(tags, 4),
            "age_rating": "adult" if n % 20 == 0 else "general",
            "visibility": "public",
        }
        manifest = {**MINIMAL["manifest"], "pack_id": pack_id, "title": _zipf(words, rng, 4).title()}
        body = orjson.dumps({**MINIMAL, "manifest": manifest, "publication": publication})
        services.packs.submit("publisher", body)
        services.packs.publish(Actor("publisher"), pack_id, manifest["revision"])
        ids.append(pack_id)
    elapsed = time.perf_counter() - start
    print(f"  published {count:,} packs in {elapsed:.0f} s ({elapsed / max(count, 1) * 1000:.1f} ms each)", flush=True)
    # Searches that never repeat within a run (the service remembers pages until the catalog changes):
    # every word once per sort, from the most common (in nearly every pack) to the rarest, interleaved
    # with two-word searches among the 300 most common words.
    singles = [f"q={quote(w)}&sort={sort}" for sort in ("relevance", "newest", "title") for w in words]
    pairs = [f"q={quote(a + ' ' + b)}" for a in words[:300] for b in words[:300] if a < b]
    random.Random(3).shuffle(singles)
    random.Random(4).shuffle(pairs)
    queries = [q for pair in zip(singles, pairs, strict=False) for q in pair]
    return ids, queries, tags


def bench_backend(
    name: str, env: dict[str, str], args: argparse.Namespace, big: bytes, ceiling_port: int
) -> dict[str, float]:
    from creatorpack.service.app import open_database, wire
    from creatorpack.service.ports import Actor
    from creatorpack.service.settings import Settings

    settings = Settings.from_env(env, migrate=True)
    database = open_database(settings)
    services = wire(settings, database)
    token, _ = services.auth.issue("bench", "creator")
    host_token, _ = services.auth.issue("host", "host")
    stored = services.packs.submit("bench", big)
    small = orjson.dumps({**MINIMAL, "manifest": {**MINIMAL["manifest"], "pack_id": "small.bench"}})
    small_stored = services.packs.submit("bench", small)
    rich = {**RICH, "publication": {**RICH["publication"], "visibility": "public"}}
    playable = {"rich": rich, "runtime pack": make_runtime_pack()}
    for pack in playable.values():
        services.packs.submit("bench", orjson.dumps(pack))
    services.packs.publish(Actor("bench"), str(rich["manifest"]["pack_id"]), int(rich["manifest"]["revision"]))
    ids, queries, tags = seed_catalog(services, args.packs) if args.packs else ([], [], [])
    reader_size = len(services.packs.reader(None, ids[0]).data) if ids else 0
    if not database.is_sqlite:  # fresh statistics, as autovacuum would gather them a little later
        with database.write() as conn:
            conn.exec_driver_sql("ANALYZE")
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
    ceiling_reader = _request("GET", f"/bytes/{reader_size}", {})
    readers = itertools.count()
    searches = itertools.count()

    def reader_view(_index: int) -> bytes:
        return _request("GET", f"/v1/packs/{ids[next(readers) % len(ids)]}/reader", {})

    def search(_index: int) -> bytes:
        return _request("GET", f"/v1/catalog?{queries[next(searches) % len(queries)]}", {})

    popular = [_request("GET", f"/v1/catalog?{q}", {}) for q in queries[:50]]

    def popular_search(_index: int) -> bytes:
        return popular[next(searches) % len(popular)]

    tag_queries = [f"tag={t}&sort={o}&limit={n}" for n in range(10, 31) for o in ("title", "newest") for t in tags]
    random.Random(5).shuffle(tag_queries)

    def tagged(_index: int) -> bytes:
        return _request("GET", f"/v1/catalog?{tag_queries[next(searches) % len(tag_queries)]}", {})

    catalog_front = _request("GET", "/v1/catalog", {})
    figures: dict[str, float] = {}
    print(f"\n{name}: one uvicorn worker, {args.connections} connections, {args.seconds:g} s per scenario", flush=True)
    print("  (each GET alternates with its ceiling, /v1/validate with in-process validate: ratios are paired)")
    with server("creatorpack.service.app:create_app", env, factory=True) as port:
        for label, make, connections, peer in (
            ("GET /v1/health (framework floor)", lambda _: health, args.connections, ceiling_small),
            ("GET revision (200, 1 KB)", lambda _: get_small, args.connections, ceiling_small),
            (f"GET revision (200, {_kb(len(big))})", lambda _: get200, args.connections, ceiling_big),
            ("GET revision (304)", lambda _: get304, args.connections, ceiling_small),
            (f"POST /v1/validate ({_kb(len(big))})", lambda _: validate, 4, None),
            ("POST /v1/packs (new revision, 1 KB)", upload, 4, None),
            *(
                [
                    (f"GET reader view ({reader_size:,} B, warm)", reader_view, args.connections, ceiling_reader),
                    ("GET /v1/catalog?q= (search, never repeated)", search, args.connections, None),
                    ("GET /v1/catalog?q= (search, 50 popular)", popular_search, args.connections, None),
                    ("GET /v1/catalog (front page, remembered)", lambda _: catalog_front, args.connections, None),
                    ("GET /v1/catalog?tag= (never repeated)", tagged, args.connections, None),
                ]
                if ids
                else []
            ),
        ):
            if args.only and not any(part in label for part in args.only.split(",")):
                continue
            if make is reader_view:  # every pack's reader view read once: the warm cache the bar is about
                warm(port, [_request("GET", f"/v1/packs/{i}/reader", {}) for i in ids], connections)
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
                if make is reader_view:
                    bar(name, f"issue 10: reader view {ratio:.0%} >= 50% of the ceiling", met=ratio >= 0.5)
            if make is search:
                p99 = sorted(shown, key=lambda row: row[0])[len(shown) // 2][2]
                short = len(ids) < CATALOG_BAR_PACKS
                note = (
                    f" (the bar is at {CATALOG_BAR_PACKS:,} packs: run with --packs {CATALOG_BAR_PACKS})"
                    if short
                    else ""
                )
                text = f"issue 10: catalog search p99 {p99:.1f} ms <= 50 ms at {len(ids):,} packs"
                bar(name, text, met=p99 <= 50, note=note)
        if ids and (not args.only or any(part in "web page" for part in args.only.split(","))):
            figures |= bench_pages(name, port, args, ids)
        host = {"Authorization": f"Bearer {host_token}"}
        packs = {label: (str(pack["manifest"]["pack_id"]), pack) for label, pack in playable.items()}
        figures |= bench_turns(name, port, args, {"rich": host, "runtime pack": auth}, packs)
    return figures


def bench_pages(name: str, port: int, args: argparse.Namespace, ids: list[str]) -> dict[str, float]:
    """The catalog and pack pages beside the JSON routes they render (issue 27): p50 at one connection, paired."""
    pages = itertools.count()
    apis = itertools.count()

    def pack_page(_index: int) -> bytes:
        return _request("GET", f"/packs/{ids[next(pages) % len(ids)]}", {})

    def reader_json(_index: int) -> bytes:
        return _request("GET", f"/v1/packs/{ids[next(apis) % len(ids)]}/reader", {})

    front_page = _request("GET", "/", {})
    front_json = _request("GET", "/v1/catalog?limit=12", {})
    figures: dict[str, float] = {}
    print("  web pages beside their JSON routes (one connection; median p50 of paired rounds):", flush=True)
    for label, page, api in (
        ("web page: catalog GET / vs GET /v1/catalog?limit=12", lambda _: front_page, lambda _: front_json),
        ("web page: pack GET /packs/{id} vs GET /v1/packs/{id}/reader", pack_page, reader_json),
    ):
        rounds: list[tuple[float, float]] = []
        for _ in range(ROUNDS):
            _, page_p50, _, page_statuses = load(port, page, args.seconds / ROUNDS, 1)
            _, api_p50, _, api_statuses = load(port, api, args.seconds / ROUNDS, 1)
            assert set(page_statuses) == {200}, page_statuses
            assert set(api_statuses) == {200}, api_statuses
            rounds.append((page_p50, api_p50))
        page_ms = statistics.median(p for p, _ in rounds)
        api_ms = statistics.median(a for _, a in rounds)
        ratio = statistics.median(p / a for p, a in rounds)
        print(f"  {label:<62} page p50 {page_ms:6.2f} ms  JSON p50 {api_ms:6.2f} ms  {ratio:.2f}x", flush=True)
        figures[label] = ratio
        bar(name, f"issue 27: {label.split(' GET')[0]} page p50 {ratio:.2f}x of its JSON route <= 2x", met=ratio <= 2)
    return figures


@contextmanager
def serve(env: dict[str, str], workers: int) -> Iterator[int]:
    """``creatorpack serve --workers N`` as deployed (its JSON logs to /dev/null), answering ``/v1/ready``."""
    port = _free_port()
    command = [sys.executable, "-m", "creatorpack", "serve", "--port", str(port), "--workers", str(workers)]
    command += ["--log-format", "json"]
    process = subprocess.Popen(command, env={**os.environ, **env}, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.1)
        warm(port, [_request("GET", "/v1/ready", {})] * workers * 4, workers)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


def bench_processes(args: argparse.Namespace, counts: list[int]) -> None:
    """Throughput of 1, 2, 4... server processes of one deployment, each beside the ceiling with as many."""
    from creatorpack.service.app import open_database, wire
    from creatorpack.service.settings import Settings

    print("\nProcesses (issue 30): creatorpack serve --workers N beside uvicorn --workers N of the ceiling, SQLite")
    print(f"  {os.cpu_count()} CPUs; the load generator is this one process, on the same CPUs")
    with tempfile.TemporaryDirectory() as data:
        env = {"CREATORPACK_RATE_PER_IP": "0", "CREATORPACK_RATE_PER_TOKEN": "0", "CREATORPACK_DATA_DIR": data}
        settings = Settings.from_env(env, migrate=True)
        database = open_database(settings)
        services = wire(settings, database)
        token, _ = services.auth.issue("bench", "creator")
        small = orjson.dumps({**MINIMAL, "manifest": {**MINIMAL["manifest"], "pack_id": "small.bench"}})
        stored = services.packs.submit("bench", small)
        database.dispose()
        auth = {"Authorization": f"Bearer {token}"}
        scenarios = [
            ("GET /v1/health", _request("GET", "/v1/health", {})),
            (
                "GET revision (200, 1 KB)",
                _request("GET", f"/v1/packs/small.bench/revisions/{stored.revision.revision}", auth),
            ),
        ]
        ceiling = _request("GET", "/", {})
        table: list[tuple[int, str, float, float]] = []
        for count in counts:
            with server("_ceiling:app", {}, factory=False, workers=count) as ceiling_port, serve(env, count) as port:
                connections = max(args.connections, 4 * count)
                for label, request in scenarios:
                    ours: list[float] = []
                    peers: list[float] = []
                    for _ in range(ROUNDS):
                        rps, p50, p99, statuses = load(port, _constant(request), args.seconds / ROUNDS, connections)
                        ours.append(rps)
                        peers.append(load(ceiling_port, _constant(ceiling), args.seconds / ROUNDS, connections)[0])
                    _row(
                        f"{count} process{'es' if count > 1 else ''}: {label}",
                        statistics.median(ours),
                        p50,
                        p99,
                        statuses,
                    )
                    table.append((count, label, statistics.median(ours), statistics.median(peers)))
    print("\n  | processes | request | req/s | ceiling req/s | ratio | vs 1 process |")
    print("  |---|---|---|---|---|---|")
    for count, label, rps, peer in table:
        single = next(r for c, lab, r, _ in table if lab == label and c == counts[0])
        print(f"  | {count} | {label} | {rps:,.0f} | {peer:,.0f} | {rps / peer:.0%} | {rps / single:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--only", help="run only the scenarios whose label contains this text (comma: any of)")
    parser.add_argument("--packs", type=int, default=10_000, help="published packs for the catalog (0: none)")
    parser.add_argument("--processes", default="1,2,4", help="server process counts to compare (issue 30)")
    args = parser.parse_args()
    counts = [int(n) for n in args.processes.split(",") if n.strip()]
    if args.only == "processes":
        bench_processes(args, counts)
        return

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
    print(f"\nIn-process creatorpack.validate ({_kb(len(big))}): {inproc:,.0f} validations/s")

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
    if counts and not args.only:
        bench_processes(args, counts)
    print("\nBars:" if BARS else "\nBars: none measured (see --only and --packs)")
    for line in BARS:
        print(f"  {line}")


if __name__ == "__main__":
    main()

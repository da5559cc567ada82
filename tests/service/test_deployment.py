"""One deployment, many processes: two ``creatorpack serve`` on one PostgreSQL schema, one S3 store, one Redis.

Each process is a real server (``--workers 1``) on a free loopback port; the test drives both at
once with httpx and checks what the deployment promises: one winner among concurrent uploads of a
revision, a publication seen by the other process within the cache time, rate limits shared, a
session's turns taken by either process with none lost or doubled, and a process killed outright
mid-upload losing nothing. Everything is bounded in time and stays on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.service.conftest import JSON, NO_POSTGRES, NO_REDIS, POSTGRES_URL, REDIS_URL, pack_bytes, published_bytes
from tests.service.sessions_support import harbour_bytes

pytestmark = [
    pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES),
    pytest.mark.skipif(not REDIS_URL, reason=NO_REDIS),
]

RATE = 20
"""Requests per token per hour (the deployment's whole budget for one token, across both processes)."""
CACHE_SECONDS = 1.0
"""CREATORPACK_TOKEN_CACHE_SECONDS, the documented bound on what another process may still serve."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    """A ``creatorpack serve`` process, its address and the file its logs go to."""

    process: subprocess.Popen[bytes]
    base: str
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


@dataclass
class Deployment:
    """The shared stores, the environment every process gets, and two running processes."""

    env: dict[str, str]
    tmp: Path
    schema: str
    servers: list[Server]

    def start(self, name: str, workers: int = 1) -> Server:
        """One more server (``workers`` processes) of this deployment, answering ``/v1/ready``."""
        port = _free_port()
        log = self.tmp / f"{name}.log"
        command = [sys.executable, "-m", "creatorpack", "serve", "--port", str(port), "--workers", str(workers)]
        env = {**self.env, "CREATORPACK_DATA_DIR": str(self.tmp / name)}
        with log.open("wb") as out:
            process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=out)
        server = Server(process, f"http://127.0.0.1:{port}", log)
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(server.base + "/v1/ready", timeout=5).status_code == 200:
                    return server
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                server.stop()
                raise AssertionError(f"{name} did not start: {log.read_text()[-2000:]}")
            time.sleep(0.1)

    def token(self, account: str = "alice", scope: str = "creator") -> dict[str, str]:
        """Authorization headers of a new token (issued straight in the shared database)."""
        from creatorpack.service.auth import Auth
        from creatorpack.service.ports import SystemClock
        from creatorpack.service.store import SqlTokenStore, connect

        assert POSTGRES_URL is not None
        database = connect(POSTGRES_URL, schema=self.schema)
        try:
            token, _ = Auth(SqlTokenStore(database), SystemClock()).issue(account, scope)
        finally:
            database.dispose()
        return {"Authorization": f"Bearer {token}"}

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        """A ``creatorpack`` command on the deployment's settings."""
        env = {**self.env, "CREATORPACK_DATA_DIR": str(self.tmp / "cli")}
        return subprocess.run(  # noqa: PLW1510 - the caller checks the exit code
            [sys.executable, "-m", "creatorpack", *args], env=env, capture_output=True, text=True, timeout=120
        )


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """A fresh schema (migrated by ``creatorpack db upgrade``, as the deployment's one-shot job), S3 and Redis."""
    from moto.server import ThreadedMotoServer

    from creatorpack.service.store import connect

    assert POSTGRES_URL is not None
    assert REDIS_URL is not None
    tmp = tmp_path_factory.mktemp("deployment")
    schema = f"cp_deploy_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}_{secrets.token_hex(4)}"
    admin = connect(POSTGRES_URL)
    with admin.write() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    s3_port = _free_port()
    s3 = ThreadedMotoServer(ip_address="127.0.0.1", port=s3_port, verbose=False)
    s3.start()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp),
        "PYTHONDONTWRITEBYTECODE": "1",
        "CREATORPACK_DATABASE_URL": POSTGRES_URL,
        "CREATORPACK_DATABASE_SCHEMA": schema,
        "CREATORPACK_BLOB_URL": "s3://deploy/packs",
        "CREATORPACK_S3_ENDPOINT_URL": f"http://127.0.0.1:{s3_port}",
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": "us-east-1",
        "CREATORPACK_REDIS_URL": REDIS_URL,
        "CREATORPACK_REDIS_PREFIX": f"cp-deploy-{secrets.token_hex(6)}",
        "CREATORPACK_RATE_PER_TOKEN": f"{RATE}/3600",
        "CREATORPACK_RATE_PER_IP": "0",
        "CREATORPACK_TOKEN_CACHE_SECONDS": str(CACHE_SECONDS),
        "CREATORPACK_LOG_FORMAT": "json",
    }
    import boto3

    bucket = boto3.client(
        "s3",
        endpoint_url=env["CREATORPACK_S3_ENDPOINT_URL"],
        aws_access_key_id="test",
        aws_secret_access_key="test",
        region_name="us-east-1",
    )
    bucket.create_bucket(Bucket="deploy")
    bucket.close()
    found = Deployment(env, tmp, schema, [])
    try:
        migrated = found.cli("db", "upgrade")
        assert migrated.returncode == 0, migrated.stderr
        with ThreadPoolExecutor(2) as pool:
            found.servers = list(pool.map(found.start, ["one", "two"]))
        yield found
    finally:
        for server in found.servers:
            server.stop()
        s3.stop()
        with admin.write() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def _post(base: str, path: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(base + path, content=body, headers={**headers, **JSON}, timeout=60)


def test_concurrent_uploads_of_one_revision_through_both_processes(deployment: Deployment) -> None:
    headers = deployment.token()
    first = pack_bytes("race.one", 1)
    other = pack_bytes("race.one", 1, title="Another title")
    bodies = [first, other] * 4
    bases = [s.base for s in deployment.servers] * 4
    barrier = threading.Barrier(len(bodies))

    def upload(index: int) -> tuple[bytes, int]:
        barrier.wait(10)
        return bodies[index], _post(bases[index], "/v1/packs", bodies[index], headers).status_code

    with ThreadPoolExecutor(len(bodies)) as pool:
        answers = list(pool.map(upload, range(len(bodies))))
    statuses = sorted(status for _, status in answers)
    assert statuses.count(201) == 1, answers
    (winner,) = [body for body, status in answers if status == 201]
    for body, status in answers:
        if status != 201:
            assert status == (200 if body == winner else 409), answers
    for server in deployment.servers:  # the bytes are whole, the same, wherever they are read
        stored = httpx.get(server.base + "/v1/packs/race.one/revisions/1", headers=headers, timeout=30)
        assert stored.status_code == 200
        assert hashlib.sha256(stored.content).hexdigest() == hashlib.sha256(winner).hexdigest()


def test_a_publication_through_one_process_is_read_through_the_other_within_the_cache_time(
    deployment: Deployment,
) -> None:
    one, two = deployment.servers
    headers = deployment.token("bob")
    assert _post(one.base, "/v1/packs", published_bytes("shared.view"), headers).status_code == 201
    reader = deployment.token("rita", "reader")
    assert httpx.get(two.base + "/v1/packs/shared.view/reader", headers=reader, timeout=30).status_code == 404
    published = httpx.post(
        one.base + "/v1/packs/shared.view/publish", json={"revision": 1}, headers=headers, timeout=60
    )
    assert published.status_code == 200, published.text
    at = time.monotonic()
    while True:
        seen = httpx.get(two.base + "/v1/packs/shared.view/reader", headers=reader, timeout=30)
        if seen.status_code == 200:
            break
        assert time.monotonic() - at < CACHE_SECONDS + 1.0, "the other process still did not serve the publication"
        time.sleep(0.1)
    assert seen.json()["revision"] == 1


def test_rate_limits_are_shared_by_the_processes(deployment: Deployment) -> None:
    headers = deployment.token("carol")
    bases = [s.base for s in deployment.servers]

    def hit(index: int) -> int:
        return httpx.get(bases[index % 2] + "/v1/tokens", headers=headers, timeout=30).status_code

    with ThreadPoolExecutor(6) as pool:
        statuses = list(pool.map(hit, range(RATE + 15)))
    assert statuses.count(200) <= RATE
    assert statuses.count(200) >= RATE - 2  # Redis answered: no process fell back to counting alone
    assert statuses.count(429) == len(statuses) - statuses.count(200)


def test_a_sessions_turns_alternate_between_processes_none_lost_or_doubled(deployment: Deployment) -> None:
    headers = deployment.token("dora")
    one, two = deployment.servers
    assert _post(one.base, "/v1/packs", harbour_bytes(), headers).status_code == 201
    started = _post(two.base, "/v1/packs/harbour/sessions", b"{}", headers)
    assert started.status_code == 201, started.text
    sid = started.json()["session_id"]
    played = 0
    for number in range(1, 7):
        base = (one, two)[number % 2].base
        body = json.dumps({"turn": number, "observations": {}}).encode()
        answer = _post(base, f"/v1/sessions/{sid}/turns", body, headers)
        if answer.status_code == 409 and answer.json().get("type", "").endswith("session-over"):
            break
        assert answer.status_code == 200, answer.text
        assert answer.json()["turn"] == number
        retried = _post((one, two)[(number + 1) % 2].base, f"/v1/sessions/{sid}/turns", body, headers)
        assert retried.status_code == 200  # a retry through the other process: the same turn, not a new one
        assert retried.content == answer.content
        played = number
    assert played >= 2
    for server in (one, two):
        session = httpx.get(f"{server.base}/v1/sessions/{sid}", headers=headers, timeout=30).json()
        assert session["turn"] == played
    transcript = httpx.get(f"{one.base}/v1/sessions/{sid}/transcript", headers=headers, timeout=30).json()
    turns = [entry["turn"] for entry in transcript["entries"] if entry["kind"] != "start"]
    assert turns == list(range(1, played + 1))


def _large_pack(pack_id: str, megabytes: int) -> bytes:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        from _packgen import make_pack
    finally:
        sys.path.pop(0)
    doc: dict[str, Any] = make_pack(megabytes * 1024 * 1024)
    doc["manifest"]["pack_id"] = pack_id
    doc["manifest"]["revision"] = 1
    return json.dumps(doc).encode()


def test_a_process_killed_mid_upload_loses_nothing(deployment: Deployment) -> None:
    victim = deployment.start("victim")
    survivor = deployment.servers[0]
    headers = deployment.token("erin")
    body = _large_pack("big.one", 8)
    sent = threading.Event()

    def slowly() -> Iterator[bytes]:
        for at in range(0, len(body), 256 * 1024):
            if at >= 1024 * 1024:
                sent.set()
                time.sleep(0.05)
            yield body[at : at + 256 * 1024]

    def upload() -> int | str:
        try:
            return httpx.post(
                victim.base + "/v1/packs", content=slowly(), headers={**headers, **JSON}, timeout=30
            ).status_code
        except httpx.HTTPError as exc:
            return type(exc).__name__

    try:
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(upload)
            assert sent.wait(30), "the upload never got going"
            os.kill(victim.process.pid, signal.SIGKILL)
            outcome = pending.result(timeout=60)
        assert outcome != 201, "the upload finished before the kill; nothing was tested"
        victim.process.wait(timeout=10)
    finally:
        with contextlib.suppress(ProcessLookupError):
            victim.process.kill()
        victim.stop()
    assert httpx.get(survivor.base + "/v1/ready", timeout=10).status_code == 200
    assert httpx.get(survivor.base + "/v1/packs/big.one", headers=headers, timeout=30).status_code == 404
    retried = _post(survivor.base, "/v1/packs", body, headers)
    assert retried.status_code == 201, retried.text
    stored = httpx.get(survivor.base + "/v1/packs/big.one/revisions/1", headers=headers, timeout=60)
    assert stored.content == body
    checked = deployment.cli("db", "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_every_process_logs_json_access_lines(deployment: Deployment) -> None:
    for server in deployment.servers:
        assert httpx.get(server.base + "/v1/health", headers={"X-Request-ID": "deploy-check"}, timeout=10).is_success
    time.sleep(0.2)
    for server in deployment.servers:
        lines = [json.loads(line) for line in server.log.read_text().splitlines() if line.startswith("{")]
        assert any(r.get("request_id") == "deploy-check" and r["route"] == "/v1/health" for r in lines)


def _health_count(base: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(base + "/metrics", timeout=10).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "creatorpack_http_requests_total" and sample.labels["route"] == "/v1/health"
    )


def test_metrics_add_up_over_the_workers_of_one_serve(deployment: Deployment) -> None:
    server = deployment.start("workers", workers=2)
    try:
        before = _health_count(server.base)
        with ThreadPoolExecutor(4) as pool:  # new connections: the kernel spreads them over both workers
            list(pool.map(lambda _: httpx.get(server.base + "/v1/health", timeout=10), range(40)))
        counts = [_health_count(server.base) - before for _ in range(6)]  # whichever worker answers the scrape
    finally:
        server.stop()
    assert counts == [40.0] * 6

"""``creatorpack serve``, ``token create|list|revoke`` and ``db upgrade|gc|refresh-views``."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from creatorpack.cli import app as cli_app
from creatorpack.service.app import create_app
from creatorpack.service.cli import EXIT_NOT_MIGRATED
from creatorpack.service.ports import NewPublication
from creatorpack.service.settings import Settings
from creatorpack.service.store import MigrationRequiredError, SqlPackStore
from tests.service.conftest import JSON, Backend, pack_bytes
from tests.service.test_assets import JPEG, MP4, PNG, _put, pack_with_assets, sha

WORKERS = 2  # several server processes share one database
TOKEN = re.compile(r"cpt_[A-Za-z0-9_-]{43}\n")
_NO_DATABASE = {"CREATORPACK_DATABASE_URL": "", "CREATORPACK_DATABASE_SCHEMA": "", "CREATORPACK_BLOB_URL": ""}
"""The environment of a command on the embedded defaults under its ``--data-dir``."""


def _env(settings: Settings) -> dict[str, str]:
    return {
        "CREATORPACK_DATA_DIR": str(settings.data_dir),
        "CREATORPACK_DATABASE_URL": settings.database_url or "",
        "CREATORPACK_DATABASE_SCHEMA": settings.database_schema or "",
    }


def _run(settings: Settings, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli_app, list(args), env=_env(settings))
    return result.exit_code, result.stdout, result.stderr


def test_token_create_list_revoke(settings: Settings) -> None:
    assert _run(settings, "db", "upgrade")[0] == 0
    code, out, _ = _run(settings, "token", "create", "--account", "alice", "--scope", "creator")
    assert code == 0
    assert TOKEN.fullmatch(out), out  # the token alone on stdout
    _run(settings, "token", "create", "--account", "bob", "--scope", "host")
    code, listing, _ = _run(settings, "token", "list")
    assert code == 0
    rows = [line.split("\t") for line in listing.splitlines()]
    assert [(r[1], r[2], r[4]) for r in rows] == [("alice", "creator", "-"), ("bob", "host", "-")]
    assert out.strip() not in listing  # the secret is never shown again
    code, only_bob, _ = _run(settings, "token", "list", "--account", "bob")
    assert len(only_bob.splitlines()) == 1
    assert _run(settings, "token", "revoke", rows[0][0])[0] == 0
    assert _run(settings, "token", "revoke", rows[0][0])[0] == 1
    assert _run(settings, "token", "list", "--account", "alice")[1].split("\t")[4].strip() != "-"


def test_bad_token_options_exit_2(settings: Settings) -> None:
    code, out, err = _run(settings, "token", "create", "--account", "alice", "--scope", "owner")
    assert (code, out) == (2, "")
    assert "scope" in err


def test_an_unreachable_database_is_a_clear_error(tmp_path: Path) -> None:
    env = {"CREATORPACK_DATA_DIR": str(tmp_path), "CREATORPACK_DATABASE_URL": "postgresql://nobody@127.0.0.1:9/x"}
    result = CliRunner().invoke(cli_app, ["token", "list"], env=env)
    assert result.exit_code == 2
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", [["token", "list"], ["db", "upgrade"], ["serve", "--port", "8799"]])
def test_a_data_dir_that_is_a_file_is_a_usage_error(tmp_path: Path, command: list[str]) -> None:
    afile = tmp_path / "pack.json"
    afile.write_text("{}")
    result = CliRunner().invoke(cli_app, [*command, "--data-dir", str(afile)], env={"CREATORPACK_DATABASE_URL": ""})
    assert result.exit_code == 2
    assert f"the data directory {afile} is a file, not a directory" in result.stderr
    assert "Traceback" not in result.output
    assert afile.read_text() == "{}"


@pytest.mark.parametrize("port", ["99999", "-1", "65536"])
def test_serve_refuses_a_port_out_of_range(tmp_path: Path, port: str) -> None:
    result = CliRunner().invoke(cli_app, ["serve", "--port", port, "--data-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "--port" in result.stderr
    assert not (tmp_path / "creatorpack.db").exists()  # refused before anything was set up


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e15", "99999999999999", "1e11", "-1", "3153600001"])
def test_db_gc_refuses_a_grace_period_that_makes_no_date(tmp_path: Path, value: str) -> None:
    """NaN, infinity, a negative number or more than 100 years: one line naming the option, exit 2, nothing opened."""
    result = CliRunner().invoke(
        cli_app, ["db", "gc", "--older-than", value, "--data-dir", str(tmp_path / "data")], env=_NO_DATABASE
    )
    assert result.exit_code == 2
    assert (result.stdout, len(result.stderr.splitlines())) == ("", 1), result.stderr
    assert result.stderr.startswith("creatorpack: --older-than is a number of seconds from 0 to 3153600000")
    assert not (tmp_path / "data").exists()  # refused before anything was set up


def test_db_gc_takes_a_grace_period_of_100_years(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli_app, ["db", "gc", "--older-than", "3153600000", "--data-dir", str(tmp_path)], env=_NO_DATABASE
    )
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == "removed 0 blobs and 0 temporary files\n"


def test_service_commands_do_not_load_the_web_stack() -> None:
    probe = (
        "import sys, creatorpack.cli.app; "
        "print(' '.join(m for m in ('fastapi', 'sqlalchemy', 'uvicorn', 'alembic', 'redis') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


def _serve(data_dir: Path, port: int, workers: int = 1) -> Iterator[str]:
    command = [sys.executable, "-m", "creatorpack", "serve", "--port", str(port), "--data-dir", str(data_dir)]
    env = {"PATH": "/usr/bin:/bin", "CREATORPACK_RATE_PER_IP": "0"}
    server = subprocess.Popen([*command, "--workers", str(workers)], env=env, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(base + "/v1/health").status_code == 200:
                    break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)
        assert server.stderr is not None
        server.stderr.close()


def test_serve_needs_no_setup_and_data_survives_a_restart(data_dir: Path) -> None:
    port = _free_port()
    body = pack_bytes()
    for base in _serve(data_dir, port, workers=WORKERS):
        token = CliRunner().invoke(
            cli_app, ["token", "create", "--account", "alice", "--scope", "creator", "--data-dir", str(data_dir)]
        )
        headers = {"Authorization": f"Bearer {token.stdout.strip()}"}
        created = httpx.post(base + "/v1/packs", content=body, headers={**headers, **JSON}, timeout=60)
        assert created.status_code == 201
        assert httpx.get(base + "/v1/health", headers={"X-Big": "a" * 60_000}).status_code in (400, 431)
    assert (data_dir / "creatorpack.db").exists()
    for base in _serve(data_dir, port):
        again = httpx.get(base + "/v1/packs/moon.garden/revisions/1", headers=headers)
        assert again.status_code == 200
        assert again.content == body


def test_a_database_never_migrated_is_refused_at_start(
    backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the server started: {args} {kwargs}")

    monkeypatch.setattr("uvicorn.run", never)
    url = backend.url or f"sqlite:///{tmp_path / 'elsewhere.db'}"  # not the embedded default: not migrated on start
    settings = Settings(data_dir=tmp_path / "data", database_url=url, database_schema=backend.schema)
    with pytest.raises(MigrationRequiredError, match="creatorpack db upgrade"):
        create_app(settings)
    code, out, err = _run(settings, "serve", "--port", str(_free_port()))
    assert (code, out) == (EXIT_NOT_MIGRATED, "")
    assert "never migrated" in err
    assert "run `creatorpack db upgrade`" in err
    assert "Traceback" not in err
    assert _run(settings, "token", "list")[0] == EXIT_NOT_MIGRATED
    code, _, err = _run(settings, "db", "upgrade")
    assert (code, err) == (0, "database migrated from nothing to migration 0004\n")
    app = create_app(settings)  # at the head now
    app.state.database.dispose()
    assert _run(settings, "db", "upgrade")[::2] == (0, "database is up to date (migration 0004)\n")


def test_db_refresh_views_rebuilds_views_published_by_older_rules(settings: Settings) -> None:
    """A view stored by an older release (one that showed a reward_only cover) is rebuilt; the rest stay."""
    app = create_app(settings)
    with TestClient(app) as client:
        token, _ = app.state.services.auth.issue("alice", "creator")
        alice = {"Authorization": f"Bearer {token}"}
        for data in (JPEG, MP4, PNG):
            _put(client, data, alice)
        doc = json.loads(pack_with_assets())
        next(a for a in doc["assets"] if a["id"] == "cover")["access"] = "reward_only"
        for pack_id, body in (("moon.garden", doc), ("sun.garden", json.loads(pack_with_assets("sun.garden")))):
            body["manifest"]["pack_id"] = pack_id
            assert client.post("/v1/packs", content=json.dumps(body), headers={**alice, **JSON}).status_code == 201
            assert client.post(f"/v1/packs/{pack_id}/publish", json={"revision": 1}, headers=alice).status_code == 200
        now = client.get("/v1/packs/moon.garden/reader").json()
        assert now["publication"]["cover"]["asset_id"] is None
        # what the release before the reward_only-cover fix stored: the cover named, and served to anyone
        old = json.loads(json.dumps(now))
        old["publication"]["cover"] = {**now["publication"]["cover"], "asset_id": "cover"}
        store = SqlPackStore(app.state.database)
        stored = store.publication("moon.garden")
        assert stored is not None
        older = NewPublication(
            "moon.garden", 1, stored.visibility, stored.published, json.dumps(old).encode(), {"cover": sha(JPEG)}
        )
        assert store.refresh_publication(older)
        assert not store.refresh_publication(NewPublication("moon.garden", 2, "public", stored.published, b"{}"))
        earlier = stored.published - timedelta(seconds=1)  # what a refresh read before a publish of the same revision
        assert not store.refresh_publication(NewPublication("moon.garden", 1, "public", earlier, b"{}"))
        time.sleep(settings.token_cache_seconds + 0.1)  # the reader view cache of this process
        assert client.get("/v1/packs/moon.garden/reader").json()["publication"]["cover"]["asset_id"] == "cover"
        assert client.get("/v1/packs/moon.garden/assets/cover").status_code == 200

        status, out, err = _run(settings, "db", "refresh-views")
        assert (status, out) == (0, "moon.garden\n"), err
        assert err.endswith("checked 2 publications: 1 rebuilt, 1 unchanged, 0 not rebuilt\n")
        time.sleep(settings.token_cache_seconds + 0.1)
        assert client.get("/v1/packs/moon.garden/reader").json() == now  # the time of publication kept
        assert client.get("/v1/packs/moon.garden/assets/cover").status_code == 404
        listed = {item["pack_id"]: item["cover"]["asset_id"] for item in client.get("/v1/catalog").json()["items"]}
        assert listed == {"moon.garden": None, "sun.garden": "cover"}
        assert _run(settings, "db", "refresh-views")[:2] == (0, "")  # nothing left to rebuild
    app.state.database.dispose()


def test_db_check_finds_rows_without_their_bytes(settings: Settings) -> None:
    """Exit 0 and a summary when every blob is there; one line per problem and exit 1 when not."""
    app = create_app(settings)
    with TestClient(app) as client:
        token, _ = app.state.services.auth.issue("alice", "creator")
        alice = {"Authorization": f"Bearer {token}"}
        assert _put(client, PNG, alice).status_code == 201
        response = client.post("/v1/packs", content=pack_bytes(), headers={**alice, **JSON})
        revision = response.json()["sha256"]
    assert _run(settings, "db", "check") == (0, "", "checked 1 revision and 1 asset: 0 missing, 0 corrupt\n")
    blobs = settings.data_dir / "blobs"
    (blobs / revision[:2] / revision[2:4] / revision).unlink()
    (blobs / sha(PNG)[:2] / sha(PNG)[2:4] / sha(PNG)).write_bytes(PNG + b"!")
    code, out, err = _run(settings, "db", "check")
    assert code == 1
    assert out.splitlines() == [
        f"missing\trevision\tmoon.garden\t1\t{revision}",
        f"corrupt\tasset\t-\t-\t{sha(PNG)}\t{len(PNG) + 1} bytes, not the {len(PNG)} recorded",
    ]
    assert err == "checked 1 revision and 1 asset: 1 missing, 1 corrupt\n"
    assert _run(settings, "db", "check", "--older-than", "1")[0] == 2  # a usage error, as for the other commands


def _children(pid: int) -> set[int]:
    """The live (not zombie) processes whose parent is ``pid``, from /proc."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _port_free(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return False
    except OSError:
        pass
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_end_when_serve_is_killed(data_dir: Path) -> None:
    """``kill -9`` of the serve process: its server processes exit and let go of the port within seconds."""
    port = _free_port()
    command = [sys.executable, "-m", "creatorpack", "serve", "--port", str(port), "--data-dir", str(data_dir)]
    env = {"PATH": "/usr/bin:/bin", "CREATORPACK_RATE_PER_IP": "0"}
    server = subprocess.Popen([*command, "--workers", "2"], env=env, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 or not _healthy(port):
            assert time.monotonic() < deadline, "the server did not start"
            assert server.poll() is None, "the server stopped"
            workers = {pid for pid in _children(server.pid) if "multiprocessing" in _command_line(pid)}
            time.sleep(0.2)
        server.kill()
        server.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) or not _port_free(port):
            assert time.monotonic() < deadline, ([p for p in workers if _alive(p)], _port_free(port))
            time.sleep(0.2)
    finally:
        if server.poll() is None:
            server.kill()
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""

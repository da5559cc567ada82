"""What an operator meets: bad settings, a database a newer release migrated, busy ports, readiness."""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from creatorpack.cli import app as cli_app
from creatorpack.service.api import meta
from creatorpack.service.cli import EXIT_NOT_MIGRATED
from creatorpack.service.settings import Settings, SettingsError
from creatorpack.service.store import MigrationRequiredError, connect
from creatorpack.service.store.database import DatabaseSettingsError
from tests.service.conftest import NO_POSTGRES, POSTGRES_URL, Backend

SECRET = "S3CRET"
ASYNCPG = f"postgresql+asyncpg://u:{SECRET}@h/db"
VARIABLES = (
    "CREATORPACK_DATABASE_URL",
    "CREATORPACK_DATABASE_SCHEMA",
    "CREATORPACK_BLOB_URL",
    "CREATORPACK_REDIS_URL",
    "CREATORPACK_LINT_MAX_SECONDS",
    "CREATORPACK_TOKEN_CACHE_SECONDS",
)


@pytest.fixture(autouse=True)
def _no_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test here starts a server; ``serve`` sets CREATORPACK_DATA_DIR, which monkeypatch restores."""

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the server started: {args} {kwargs}")

    monkeypatch.setattr("uvicorn.run", never)
    monkeypatch.setenv("CREATORPACK_DATA_DIR", str(tmp_path / "data"))


def _run(data_dir: Path, *args: str, **env: str) -> tuple[int, str, str]:
    variables = dict.fromkeys(VARIABLES, "") | env
    result = CliRunner().invoke(cli_app, [*args, "--data-dir", str(data_dir)], env=variables)
    return result.exit_code, result.stdout, result.stderr


def _env(settings: Settings) -> dict[str, str]:
    return {
        "CREATORPACK_DATABASE_URL": settings.database_url or "",
        "CREATORPACK_DATABASE_SCHEMA": settings.database_schema or "",
    }


# 1. Settings only the server processes use are checked before they start.


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("CREATORPACK_LINT_MAX_SECONDS", "-5"),
        ("CREATORPACK_LINT_MAX_SECONDS", "nan"),
        ("CREATORPACK_LINT_MAX_SECONDS", "inf"),
        ("CREATORPACK_TOKEN_CACHE_SECONDS", "inf"),
        ("CREATORPACK_TOKEN_CACHE_SECONDS", "nan"),
        ("CREATORPACK_TOKEN_CACHE_SECONDS", "-1"),
        ("CREATORPACK_TOKEN_CACHE_SECONDS", "soon"),
        ("CREATORPACK_REDIS_URL", "garbage"),
        ("CREATORPACK_REDIS_URL", "redis://h:port/0"),
        ("CREATORPACK_BLOB_URL", "ftp://x"),
        ("CREATORPACK_BLOB_URL", "s3://"),
        ("CREATORPACK_DATABASE_SCHEMA", '"S 1"'),
        ("CREATORPACK_DATABASE_SCHEMA", "1st"),
        ("CREATORPACK_DATABASE_SCHEMA", "s" * 64),
    ],
)
def test_a_bad_setting_names_its_variable(variable: str, value: str, tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=variable):
        Settings.from_env({variable: value})
    for command in (["serve", "--workers", "2"], ["token", "list"], ["db", "upgrade"]):
        code, out, err = _run(tmp_path / "data", *command, **{variable: value})
        assert (code, out) == (2, ""), (command, err)
        assert err.startswith(f"creatorpack: {variable} "), err
        assert len(err.splitlines()) == 1


def test_good_settings_pass() -> None:
    settings = Settings.from_env(
        {
            "CREATORPACK_LINT_MAX_SECONDS": "0",
            "CREATORPACK_TOKEN_CACHE_SECONDS": "2.5",
            "CREATORPACK_DATABASE_SCHEMA": "Cp_" + "x" * 60,
            "CREATORPACK_REDIS_URL": "rediss://:pw@cache:6380/1",
            "CREATORPACK_BLOB_URL": "s3://bucket/prefix",
        }
    )
    assert (settings.lint_max_seconds, settings.token_cache_seconds) == (0.0, 2.5)


def test_a_redis_password_is_not_shown() -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({"CREATORPACK_REDIS_URL": f"redis://u:{SECRET}@h:port/0"})
    assert SECRET not in str(raised.value)
    assert "u:***@h" in str(raised.value)


def _file(tmp_path: Path) -> Path:
    afile = tmp_path / "a-file"
    afile.write_text("not a directory")
    return afile


@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_builds_what_workers_build_before_starting_them(tmp_path: Path, workers: str) -> None:
    """A Redis URL the client refuses, and a blob directory that cannot be made, stop serve itself."""
    data = tmp_path / "data"
    redis = "redis://127.0.0.1:6379/0?socket_timeout=abc"
    code, _, err = _run(data, "serve", "--workers", workers, CREATORPACK_REDIS_URL=redis)
    assert code == 2
    assert err == "creatorpack: ValueError: Invalid value for 'socket_timeout' in connection URL.\n"
    blobs = str(_file(tmp_path) / "blobs")
    code, _, err = _run(data, "serve", "--workers", workers, CREATORPACK_BLOB_URL=blobs)
    assert code == 2
    assert err.startswith("creatorpack: NotADirectoryError: ")
    assert len(err.splitlines()) == 1


# 2. A database a newer release migrated.


def _migrate_to(settings: Settings, revision: str) -> None:
    database = connect(settings.url, schema=settings.database_schema)
    try:
        database.upgrade()
        with database.write() as conn:
            conn.exec_driver_sql(f"UPDATE alembic_version SET version_num = '{revision}'")
    finally:
        database.dispose()


def test_a_database_a_newer_release_migrated_is_exit_3_everywhere(backend: Backend, tmp_path: Path) -> None:
    url = backend.url or f"sqlite:///{tmp_path / 'elsewhere.db'}"
    _newer_release_everywhere(Settings(data_dir=tmp_path / "data", database_url=url, database_schema=backend.schema))


def test_the_embedded_default_a_newer_release_migrated_is_exit_3_everywhere(tmp_path: Path) -> None:
    _newer_release_everywhere(Settings(data_dir=tmp_path / "data", database_url=None))


def _newer_release_everywhere(settings: Settings) -> None:
    _migrate_to(settings, "9999")
    database = connect(settings.url, schema=settings.database_schema)
    try:
        with pytest.raises(MigrationRequiredError, match="a newer release migrated it"):
            database.upgrade()
    finally:
        database.dispose()
    expected = (
        "is at migration 9999, which this release does not know (a newer release migrated it): run that release\n"
    )
    for command in (["serve"], ["token", "list"], ["db", "upgrade"], ["db", "gc"], ["token", "revoke", "x"]):
        code, out, err = _run(settings.data_dir, *command, **_env(settings))
        assert (code, out) == (EXIT_NOT_MIGRATED, ""), (command, err)
        assert err.startswith("creatorpack: the database "), (command, err)
        assert err.endswith(expected), (command, err)


# 3 and 4. Admin commands fail in one line, without the password.


@pytest.mark.parametrize(
    "command", [["token", "list"], ["token", "revoke", "x"], ["db", "upgrade"], ["db", "gc"], ["serve"]]
)
def test_an_unsupported_database_url_is_exit_2_without_its_password(tmp_path: Path, command: list[str]) -> None:
    for url, shown in (
        (ASYNCPG, "unsupported database URL 'postgresql+asyncpg://u:***@h/db'"),
        ("mysql://x@y/z", "unsupported database URL 'mysql://x@y/z'"),
        (f"postgresql+asyncpg//u:{SECRET}@h/db", "the database URL does not parse as a URL"),
        (f"postgresql://u:{SECRET}@h:port/db", "the database URL does not parse as a URL"),
    ):
        code, out, err = _run(tmp_path / "data", *command, CREATORPACK_DATABASE_URL=url)
        assert (code, out) == (2, ""), (url, err)
        assert err.startswith(f"creatorpack: {shown}"), err
        assert SECRET not in err
        assert len(err.splitlines()) == 1


def test_connect_never_shows_the_password() -> None:
    for url in (ASYNCPG, f"postgresql+asyncpg//u:{SECRET}@h/db", f"postgresql://u:{SECRET}@h:port/db"):
        with pytest.raises(DatabaseSettingsError) as raised:
            connect(url)
        assert SECRET not in str(raised.value)
    with pytest.raises(DatabaseSettingsError, match="not a plain SQL identifier"):
        connect("postgresql://u@h/db", schema='"S 1"')


def test_an_unreachable_database_is_one_line_without_its_password(tmp_path: Path) -> None:
    url = f"postgresql://nobody:{SECRET}@127.0.0.1:9/x"
    code, _, err = _run(tmp_path / "data", "token", "list", CREATORPACK_DATABASE_URL=url)
    assert code == 2
    assert err.startswith("creatorpack: the database postgresql://nobody:***@127.0.0.1:9/x failed: OperationalError")
    assert SECRET not in err
    assert len(err.splitlines()) == 1


def test_a_blob_store_that_cannot_be_used_is_exit_2(settings: Settings, tmp_path: Path) -> None:
    data = settings.data_dir
    assert _run(data, "db", "upgrade", **_env(settings))[0] == 0
    blobs = str(_file(tmp_path) / "blobs")
    for command in (["db", "gc"], ["token", "list"], ["db", "refresh-views"]):
        code, out, err = _run(data, *command, **_env(settings), CREATORPACK_BLOB_URL=blobs)
        assert (code, out) == (2, ""), (command, err)
        assert err.startswith("creatorpack: NotADirectoryError: "), err
    code, _, err = _run(data, "token", "list", **_env(settings), CREATORPACK_BLOB_URL="ftp://x")
    assert (code, err) == (2, "creatorpack: CREATORPACK_BLOB_URL is a directory or s3://bucket/prefix, not 'ftp://x'\n")


# 5. An address serve cannot listen on is exit 2, never uvicorn's 3.


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_port_in_use_is_exit_2(tmp_path: Path, busy_port: int, workers: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # uvicorn itself, as without the check it would answer 3
    monkeypatch.setenv("CREATORPACK_DATA_DIR", str(tmp_path / "data"))
    code, _, err = _run(tmp_path / "data", "serve", "--port", str(busy_port), "--workers", workers)
    assert code == 2
    assert err == f"creatorpack: could not listen on 127.0.0.1:{busy_port}: Address already in use\n"


def test_a_host_that_does_not_resolve_is_exit_2(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path / "data", "serve", "--host", "no-such-host.invalid")
    assert code == 2
    assert err.startswith("creatorpack: could not listen on no-such-host.invalid:8000: ")


def test_uvicorn_startup_failure_is_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever else makes uvicorn give up at start (its exit 3) is not EXIT_NOT_MIGRATED."""

    def gives_up(*_args: object, **_kwargs: object) -> None:
        sys.exit(3)

    monkeypatch.setattr("uvicorn.run", gives_up)
    code, _, err = _run(tmp_path / "data", "serve", "--port", "8799")
    assert code == 2
    assert err.endswith("creatorpack: could not listen on 127.0.0.1:8799, or the server could not start (above)\n")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_hands_the_proxy_and_connection_settings_to_uvicorn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Behind a load balancer elsewhere, X-Forwarded-For must be trusted from it, or every client is one IP."""
    seen: list[dict[str, object]] = []
    monkeypatch.setattr("uvicorn.run", lambda *_args, **kwargs: seen.append(kwargs))
    port = str(_free_port())
    assert _run(tmp_path / "data", "serve", "--port", port)[0] == 0
    extra = ["--limit-concurrency", "500", "--timeout-keep-alive", "15"]
    proxies = {"CREATORPACK_FORWARDED_ALLOW_IPS": "10.0.0.0/8"}
    code, _, err = _run(tmp_path / "data", "serve", "--port", port, *extra, **proxies)
    assert code == 0, err
    picked = [{k: run[k] for k in ("forwarded_allow_ips", "limit_concurrency", "timeout_keep_alive")} for run in seen]
    assert picked == [
        {"forwarded_allow_ips": None, "limit_concurrency": None, "timeout_keep_alive": 5},  # uvicorn's own
        {"forwarded_allow_ips": "10.0.0.0/8", "limit_concurrency": 501, "timeout_keep_alive": 15},  # 500 served
    ]


# 6. The PostgreSQL schema.


def test_a_schema_that_does_not_exist_is_named(tmp_path: Path) -> None:
    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    for command in (["db", "upgrade"], ["token", "list"], ["serve"]):
        env = {"CREATORPACK_DATABASE_URL": POSTGRES_URL, "CREATORPACK_DATABASE_SCHEMA": "NoSuch_schema"}
        code, out, err = _run(tmp_path / "data", *command, **env)
        assert (code, out) == (2, ""), (command, err)
        assert err.startswith("creatorpack: schema 'nosuch_schema' does not exist in postgresql+psycopg://"), err
        assert err.endswith(": create it (CREATE SCHEMA nosuch_schema) or unset CREATORPACK_DATABASE_SCHEMA\n")


@pytest.mark.parametrize("name", ["my$schema", "données", "_x1"])
def test_a_schema_postgresql_takes_unquoted_is_a_setting(name: str) -> None:
    """Letters of any script, digits, _ and $: what search_path took as it is before names were checked."""
    assert Settings.from_env({"CREATORPACK_DATABASE_SCHEMA": name}).database_schema == name


@pytest.mark.parametrize("name", ["my$schema", "données", "_x1", "Données", "Äb"])
def test_a_schema_postgresql_takes_unquoted_is_migrated_into(tmp_path: Path, name: str) -> None:
    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    admin = connect(POSTGRES_URL)
    try:
        with admin.write() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA IF EXISTS {name} CASCADE")
            conn.exec_driver_sql(f"CREATE SCHEMA {name}")
        env = {"CREATORPACK_DATABASE_URL": POSTGRES_URL, "CREATORPACK_DATABASE_SCHEMA": name}
        code, _, err = _run(tmp_path / "data", "db", "upgrade", **env)
        assert (code, err) == (0, "database migrated from nothing to migration 0004\n")
    finally:
        with admin.write() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        admin.dispose()


@pytest.mark.parametrize("name", ["1abc", "$x", "a b", '"S 1"', "a-b", "x" * 64, "é" * 32])
def test_a_schema_that_is_no_plain_identifier_is_refused(name: str) -> None:
    with pytest.raises(SettingsError, match="CREATORPACK_DATABASE_SCHEMA is a plain SQL identifier"):
        Settings.from_env({"CREATORPACK_DATABASE_SCHEMA": name})


# 7. Readiness.


def test_ready_answers_while_the_stores_do(client: TestClient) -> None:
    ready = client.get("/v1/ready")
    assert (ready.status_code, ready.json()) == (200, {"status": "ready"})
    assert client.head("/v1/ready").status_code == 200


def test_ready_is_503_while_the_database_does_not_answer(client: TestClient) -> None:
    state = client.app.state  # type: ignore[attr-defined]
    working = state.database
    state.database = connect(f"postgresql://nobody:{SECRET}@127.0.0.1:9/x")
    try:
        ready = client.get("/v1/ready")
    finally:
        state.database.dispose()
        state.database = working
    assert ready.status_code == 503
    assert ready.headers["content-type"] == "application/problem+json"
    problem = ready.json()
    assert problem["type"] == "urn:creatorpack:problem:not-ready"
    assert problem["detail"].startswith("the database does not answer (OperationalError)")
    assert SECRET not in ready.text
    assert "nobody" not in ready.text
    assert client.get("/v1/health").status_code == 200  # liveness does not ask the database
    assert client.get("/v1/ready").status_code == 200


def test_ready_is_503_while_the_blob_directory_is_gone(client: TestClient) -> None:
    blobs = client.app.state.blobs  # type: ignore[attr-defined]
    (blobs.root / "tmp").rename(blobs.root / "elsewhere")
    ready = client.get("/v1/ready")
    detail = "the blob directory cannot be written; the server log says more"
    assert (ready.status_code, ready.json()["detail"]) == (503, detail)
    (blobs.root / "elsewhere").rename(blobs.root / "tmp")
    assert client.get("/v1/ready").status_code == 200


def test_ready_is_503_while_the_blob_directory_cannot_be_written(client: TestClient) -> None:
    """A directory that is there but takes no file (a read-only volume) is not ready either: uploads would fail."""
    blobs = client.app.state.blobs  # type: ignore[attr-defined]
    (blobs.root / "tmp").rename(blobs.root / "elsewhere")
    (blobs.root / "tmp").symlink_to("/proc/self")  # a directory no one, root included, can create files in
    try:
        ready = client.get("/v1/ready")
    finally:
        (blobs.root / "tmp").unlink()
        (blobs.root / "elsewhere").rename(blobs.root / "tmp")
    assert ready.status_code == 503
    assert ready.json()["detail"] == "the blob directory cannot be written; the server log says more"
    assert client.get("/v1/ready").status_code == 200


def test_serve_stops_on_a_blob_directory_that_cannot_be_written(tmp_path: Path) -> None:
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    (blobs / "tmp").symlink_to("/proc/self")
    code, _, err = _run(tmp_path / "data", "serve", CREATORPACK_BLOB_URL=str(blobs))
    assert code == 2
    assert err.startswith("creatorpack: FileNotFoundError: [Errno 2] "), err  # the class that fits the cause
    assert f"the blob directory {blobs} cannot be written: " in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("database", ["abc", "0x1", "1.0"])
def test_a_redis_database_that_is_not_a_number_is_refused(database: str) -> None:
    """redis-py reads ``/abc`` as database 0: the limits would go where no one meant them to."""
    for url in (f"redis://127.0.0.1:6379/{database}", f"redis://127.0.0.1:6379?db={database}"):
        with pytest.raises(SettingsError, match="names its database by number"):
            Settings.from_env({"CREATORPACK_REDIS_URL": url})
    for fine in ("redis://127.0.0.1:6379/7", "redis://127.0.0.1:6379", "redis://h/", "unix:///run/redis.sock"):
        assert Settings.from_env({"CREATORPACK_REDIS_URL": fine}).redis_url == fine


def test_a_database_that_hangs_holds_one_check(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Probes that come while a check hangs answer 503 at their time bound and start no other check."""
    database = client.app.state.database  # type: ignore[attr-defined]
    release, calls = threading.Event(), []

    def hanging() -> None:
        calls.append(1)
        assert release.wait(30)

    monkeypatch.setattr(database, "ping", hanging)
    monkeypatch.setattr(meta, "READY_SECONDS", 0)
    try:
        for _ in range(3):
            ready = client.get("/v1/ready")
            assert ready.status_code == 503
            assert ready.json()["detail"] == "the database did not answer within 0 s"
        assert calls == [1]
    finally:
        release.set()


def test_a_serve_error_naming_a_hostile_host_stays_on_one_line(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path / "data", "serve", "--host", "bad\nhost\x1b[31m")
    assert code == 2
    assert err.count("\n") == 1, err
    assert err.startswith("creatorpack: could not listen on bad\\nhost\\x1b[31m:8000: ")


@pytest.mark.parametrize("proxies", ["not an ip", "300.1.1.1", "10.0.0.0/8,lb-1", "127.0.0.1/8", "*, 10.0.0.1"])
def test_a_proxy_list_that_names_no_address_is_exit_2(tmp_path: Path, proxies: str) -> None:
    """uvicorn would keep the entry as a name no client matches: no balancer trusted, silently."""
    code, _, err = _run(tmp_path / "data", "serve", CREATORPACK_FORWARDED_ALLOW_IPS=proxies)
    assert code == 2
    assert "is not an address or a network" in err

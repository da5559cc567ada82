"""Engines: the driver for a URL, SQLite's WAL and write locking, and migrations on demand."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from creatorpack import CreatorpackError
from creatorpack.service.settings import plain_identifier

__all__ = [
    "CONNECT_TIMEOUT",
    "Database",
    "DatabaseSettingsError",
    "MigrationRequiredError",
    "SchemaMissingError",
    "connect",
    "shown_url",
]

_MIGRATIONS: Final = Path(__file__).resolve().parent / "migrations"
_MIGRATION_LOCK: Final = 0x63705F6D  # PostgreSQL advisory lock id: one migrating process at a time
_USE: Final = "use sqlite:///path or postgresql://user@host:port/db"
CONNECT_TIMEOUT: Final = 10
"""Seconds PostgreSQL gets to accept a connection, unless the URL says (``?connect_timeout=N``)."""


class MigrationRequiredError(CreatorpackError, RuntimeError):
    """The database is not at this release's migration head (never migrated, behind, or ahead of it)."""


class DatabaseSettingsError(CreatorpackError, ValueError):
    """A database URL or schema name this code cannot use (the message never shows the password)."""


class SchemaMissingError(CreatorpackError, ValueError):
    """The PostgreSQL schema the settings name does not exist (the tables would have nowhere to go)."""


class Database:
    """An engine with a ``write()`` transaction that serializes writers on SQLite (``BEGIN IMMEDIATE``)."""

    def __init__(self, engine: Engine, schema: str | None = None) -> None:
        self.engine = engine
        self.schema = schema
        self.is_sqlite = engine.dialect.name == "sqlite"

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only transaction (on SQLite, statements in autocommit: one consistent snapshot each)."""
        with self.engine.connect() as conn:
            if self.is_sqlite:
                conn = conn.execution_options(creatorpack_read=True)  # noqa: PLW2901 - the same connection
            with conn.begin():
                yield conn

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A read-only transaction whose statements all see one state of the database.

        SQLite: a deferred transaction (WAL keeps its snapshot); PostgreSQL: REPEATABLE READ.
        """
        with self.engine.connect() as conn:
            if not self.is_sqlite:
                conn = conn.execution_options(isolation_level="REPEATABLE READ")  # noqa: PLW2901 - the same one
            with conn.begin():
                yield conn

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction: committed on success, rolled back on error."""
        with self.engine.connect() as conn:
            if self.is_sqlite:
                conn = conn.execution_options(creatorpack_write=True)  # noqa: PLW2901 - the same connection
            with conn.begin():
                yield conn

    def upgrade(self, target: str = "head") -> None:
        """Apply every migration not applied yet, up to ``target`` (safe to run from several processes at once).

        A database a newer release migrated is :class:`MigrationRequiredError`, as in :meth:`check_migrated`.
        """
        from alembic import command  # noqa: PLC0415 - Alembic loads only to migrate
        from alembic.migration import MigrationContext  # noqa: PLC0415

        config = _config()
        with self.write() as conn:
            self._check_schema(conn)
            if not self.is_sqlite:
                conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _MIGRATION_LOCK})
            self._check_known(MigrationContext.configure(conn).get_current_heads())
            config.attributes["connection"] = conn
            command.upgrade(config, target)

    def migrations(self) -> tuple[frozenset[str], frozenset[str]]:
        """The migrations the database is at, and this release's heads (equal when it is up to date)."""
        from alembic.migration import MigrationContext  # noqa: PLC0415 - Alembic loads only to check
        from alembic.script import ScriptDirectory  # noqa: PLC0415

        heads = frozenset(ScriptDirectory.from_config(_config()).get_heads())
        with self.read() as conn:
            self._check_schema(conn)
            return frozenset(MigrationContext.configure(conn).get_current_heads()), heads

    def check_migrated(self) -> None:
        """Raise :class:`MigrationRequiredError` unless the database is at this release's migration head."""
        current, heads = self.migrations()
        if current == heads:
            return
        self._check_known(current)
        where = shown_url(self.engine.url)
        state = (
            f"is at migration {', '.join(sorted(current))}, not {', '.join(sorted(heads))}"
            if current
            else "has no tables of this service (it was never migrated)"
        )
        raise MigrationRequiredError(
            f"the database {where} {state}: run `creatorpack db upgrade` with the same "
            "CREATORPACK_DATABASE_URL (and CREATORPACK_DATABASE_SCHEMA) first"
        )

    def ping(self) -> None:
        """Run a trivial query (readiness): raises what the driver raises when the database does not answer."""
        with self.read() as conn:
            conn.execute(text("SELECT 1"))

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    def _check_known(self, current: Iterable[str]) -> None:
        """Refuse a database at a migration this release does not have (Alembic would only say it cannot find it)."""
        from alembic.script import ScriptDirectory  # noqa: PLC0415 - Alembic loads only to check

        script = ScriptDirectory.from_config(_config())
        revisions = sorted(current)
        if any(_unknown(script, revision) for revision in revisions):
            raise MigrationRequiredError(
                f"the database {shown_url(self.engine.url)} is at migration {', '.join(revisions)}, which this "
                "release does not know (a newer release migrated it): run that release"
            )

    def _check_schema(self, conn: Connection) -> None:
        """On PostgreSQL, refuse a ``search_path`` schema that does not exist (tables would fail to be created)."""
        if self.is_sqlite or not self.schema:
            return
        name = _folded(self.schema)  # unquoted in search_path, so folded as PostgreSQL folds it
        found = conn.execute(text("SELECT 1 FROM pg_namespace WHERE nspname = :name"), {"name": name}).first()
        if found is None:
            raise SchemaMissingError(
                f"schema {name!r} does not exist in {shown_url(self.engine.url)}: create it (CREATE SCHEMA "
                f"{name}) or unset CREATORPACK_DATABASE_SCHEMA"
            )


def _folded(name: str) -> str:
    """An unquoted identifier as PostgreSQL stores it: ASCII letters lower-cased, every other letter kept."""
    return "".join(c.lower() if c.isascii() else c for c in name)


def _config() -> Any:
    from alembic.config import Config  # noqa: PLC0415

    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    return config


def _unknown(script: Any, revision: str) -> bool:
    from alembic.util import CommandError  # noqa: PLC0415

    try:
        return script.get_revision(revision) is None
    except CommandError:
        return True


def shown_url(url: str | URL) -> str:
    """``url`` fit to print: its password hidden, or a placeholder when it does not parse as a URL."""
    try:
        return (make_url(url) if isinstance(url, str) else url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return "(a database URL that does not parse)"


def connect(url: str, *, schema: str | None = None, **engine_options: Any) -> Database:
    """A :class:`Database` for ``sqlite:///path`` or ``postgresql://...`` (psycopg 3 is chosen for you).

    ``schema`` (PostgreSQL) puts every table in that schema (``search_path``), as the tests do; it must
    be a plain identifier (:func:`~creatorpack.service.settings.plain_identifier`: it goes into
    ``search_path`` as it is, and PostgreSQL folds it to lower case). Else :class:`DatabaseSettingsError`.
    """
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise DatabaseSettingsError(f"the database URL does not parse as a URL: {_USE}") from None
    if schema and not plain_identifier(schema):
        raise DatabaseSettingsError(
            f"the database schema {schema!r} is not a plain SQL identifier (letters, digits, _ and $)"
        )
    if parsed.drivername in ("postgresql", "postgres", "postgresql+psycopg"):
        parsed = parsed.set(drivername="postgresql+psycopg")
        connect_args: dict[str, Any] = {}
        if "connect_timeout" not in parsed.query:
            connect_args["connect_timeout"] = CONNECT_TIMEOUT  # libpq's default is to wait for ever
        if schema:
            connect_args["options"] = f"-csearch_path={schema}"
        options: dict[str, Any] = {"pool_pre_ping": True}
        if "poolclass" not in engine_options:
            options |= {"pool_size": 10, "max_overflow": 20}
        options.update(engine_options)
        return Database(create_engine(parsed, connect_args=connect_args, **options), schema or None)
    if parsed.drivername in ("sqlite", "sqlite+pysqlite"):
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": 30, "check_same_thread": False}, **engine_options)
        _sqlite_events(engine)
        return Database(engine)
    raise DatabaseSettingsError(f"unsupported database URL {shown_url(parsed)!r}: {_USE}")


def _sqlite_events(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun below, not by the driver
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # A writer takes the write lock up front, so that two writers never deadlock on an upgrade.
        options = conn.get_execution_options()
        if options.get("creatorpack_read"):
            return  # a read: each statement is its own snapshot, no BEGIN/COMMIT round trip
        conn.exec_driver_sql("BEGIN IMMEDIATE" if options.get("creatorpack_write") else "BEGIN")

"""The service's commands: ``serve``, ``token ...``, ``account ...`` and ``db upgrade|gc|check|refresh-views``.

:func:`register` adds them to the ``creatorpack`` Typer app. Everything heavy (uvicorn, SQLAlchemy,
FastAPI) is imported inside the commands, so ``creatorpack validate`` starts as fast as before.

Exit codes: 0 done; 1 ``token revoke`` found no live token, an ``account`` command no such account,
``db refresh-views`` could not rebuild some publication (its stored view is kept), or ``db check``
found a row without its bytes (or with other bytes); 2 bad settings (any ``CREATORPACK_*`` variable,
those only the server processes use included), a database, schema or blob store that cannot be used,
or (``serve``) an address it cannot listen on; :data:`EXIT_NOT_MIGRATED` (3) the database is not at
this release's migrations (run ``creatorpack db upgrade``; the embedded SQLite default is migrated on
start), or a newer release migrated it. Errors are one line on stderr, passwords hidden.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Final

import typer

from creatorpack._text import one_line

if TYPE_CHECKING:
    from creatorpack.service.api.deps import Services
    from creatorpack.service.settings import Settings

__all__ = [
    "EXIT_NOT_MIGRATED",
    "MAX_GRACE_SECONDS",
    "account_disable",
    "account_enable",
    "account_list",
    "account_set_role",
    "db_check",
    "db_gc",
    "db_refresh_views",
    "db_seed_examples",
    "db_upgrade",
    "register",
    "serve",
    "token_create",
    "token_list",
    "token_revoke",
]

EXIT_NOT_MIGRATED: Final = 3
_MULTIPROC_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"  # metrics.MULTIPROC_ENV, named without importing it
_METRICS_PREFIX: Final = "creatorpack-metrics-"
MAX_GRACE_SECONDS: Final = 100 * 365 * 86_400
"""The largest ``db gc --older-than``: 100 years (today less that is still a date, with room to spare)."""

DataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir", help="Data directory (default: $CREATORPACK_DATA_DIR, else ~/.local/share/creatorpack)."
    ),
]


def _complain(message: str) -> None:
    """An error of these commands: one line on standard error (a path's newline or escape escaped)."""
    typer.echo(f"creatorpack: {one_line(message)}", err=True)


def _settings(data_dir: Path | None) -> Settings:
    from creatorpack.service.settings import Settings, SettingsError  # noqa: PLC0415

    try:
        settings = Settings.from_env(data_dir=data_dir)
    except SettingsError as exc:
        _complain(f"{exc}")
        raise typer.Exit(2) from None
    if settings.data_dir.exists() and not settings.data_dir.is_dir():
        _complain(f"the data directory {settings.data_dir} is a file, not a directory")
        raise typer.Exit(2)
    return settings


def _fail(exc: Exception, settings: Settings) -> typer.Exit:
    """Print ``exc`` as one line without the passwords of the settings' URLs; the exit for it (3 or 2)."""
    from creatorpack.service.store import MigrationRequiredError  # noqa: PLC0415

    _complain(f"{_describe(exc, settings)}")
    return typer.Exit(EXIT_NOT_MIGRATED if isinstance(exc, MigrationRequiredError) else 2)


def _describe(exc: Exception, settings: Settings) -> str:
    from urllib.parse import unquote, urlsplit  # noqa: PLC0415

    from sqlalchemy.exc import DBAPIError, SQLAlchemyError  # noqa: PLC0415

    from creatorpack import CreatorpackError  # noqa: PLC0415
    from creatorpack.service.store.database import shown_url  # noqa: PLC0415

    if isinstance(exc, CreatorpackError):
        text = str(exc)  # ours: it says what to do
    elif isinstance(exc, DBAPIError) and exc.orig is not None:  # the driver's words, without the SQL
        text = f"the database {shown_url(settings.url)} failed: {type(exc.orig).__name__}: {exc.orig}"
    elif isinstance(exc, SQLAlchemyError):
        text = f"the database {shown_url(settings.url)} failed: {type(exc).__name__}: {exc}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    text = " ".join(line.strip() for line in text.splitlines() if line.strip())
    secrets: set[str] = set()
    for url in (settings.database_url, settings.redis_url, settings.blob_url):
        with contextlib.suppress(ValueError):
            if password := urlsplit(url or "").password:
                secrets |= {password, unquote(password)}
    for secret in secrets:
        text = text.replace(secret, "***")
    return text


@contextlib.contextmanager
def _services(data_dir: Path | None, *, migrate: bool | None = None) -> Iterator[Services]:
    """The wired services; any failure to build them, or to use a store, is a one-line error (exit 2 or 3)."""
    from sqlalchemy.exc import SQLAlchemyError  # noqa: PLC0415

    from creatorpack.service.app import open_database, wire  # noqa: PLC0415

    settings = _settings(data_dir)
    if migrate is not None:
        settings = settings.with_changes(migrate=migrate)
    try:
        database = open_database(settings)
    except Exception as exc:  # noqa: BLE001 - any failure to open the database ends the command cleanly
        raise _fail(exc, settings) from None
    try:
        services = wire(settings, database)
    except Exception as exc:  # noqa: BLE001 - a blob store or setting that cannot work, as in serve
        database.dispose()
        raise _fail(exc, settings) from None
    try:
        yield services
    except (SQLAlchemyError, OSError) as exc:
        raise _fail(exc, settings) from None
    finally:
        database.dispose()


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    data_dir: DataDir = None,
    workers: Annotated[int, typer.Option(min=1, help="Server processes (they share the database).")] = 1,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            envvar="CREATORPACK_FORWARDED_ALLOW_IPS",
            help=(
                "Proxies whose X-Forwarded-For names the client (comma-separated addresses or networks; * for any). "
                "Default: uvicorn's (FORWARDED_ALLOW_IPS, else the loopback addresses)."
            ),
        ),
    ] = None,
    limit_concurrency: Annotated[
        int | None,
        typer.Option(min=1, help="Most connections a server process serves at once (503 beyond)."),
    ] = None,
    timeout_keep_alive: Annotated[
        int, typer.Option(min=1, help="Seconds an idle kept-alive connection stays open.")
    ] = 5,
    log_format: Annotated[
        str | None,
        typer.Option(
            envvar="CREATORPACK_LOG_FORMAT",
            help="json or text (default: text on a terminal, JSON lines otherwise).",
        ),
    ] = None,
    log_level: Annotated[
        str,
        typer.Option(
            envvar="CREATORPACK_LOG_LEVEL", help="debug, info (one access line per request), warning or error."
        ),
    ] = "info",
) -> None:
    """Run the pack service (HTTP) with uvicorn; SQLite and a blob directory under the data directory by default.

    The database is migrated first (the embedded default) or must be migrated already (exit 3 otherwise).
    What a server process builds is built once here first, so that a setting that cannot work stops
    the command (exit 2) instead of every server process.
    """
    import os  # noqa: PLC0415

    proxies = _proxies(forwarded_allow_ips)
    log_format, log_level = _log_options(log_format, log_level)
    settings = _settings(data_dir)
    os.environ["CREATORPACK_DATA_DIR"] = str(settings.data_dir)  # the worker processes read their settings
    with _metrics_directory(workers):
        _serve(settings, host, port, workers, proxies, limit_concurrency, timeout_keep_alive, log_format, log_level)


def _log_options(log_format: str | None, log_level: str) -> tuple[str, str]:
    """``--log-format`` and ``--log-level`` checked (exit 2 otherwise), the format resolved for every process."""
    import sys  # noqa: PLC0415

    from creatorpack.service.logs import LOG_FORMATS, LOG_LEVELS  # noqa: PLC0415

    chosen = (log_format or ("text" if sys.stderr.isatty() else "json")).strip().lower()
    if chosen not in LOG_FORMATS:
        _complain(f"--log-format (CREATORPACK_LOG_FORMAT) is json or text, not {log_format!r}")
        raise typer.Exit(2)
    level = log_level.strip().lower()
    if level not in LOG_LEVELS:
        _complain(f"--log-level (CREATORPACK_LOG_LEVEL) is one of {', '.join(LOG_LEVELS)}, not {log_level!r}")
        raise typer.Exit(2)
    return chosen, level


@contextlib.contextmanager
def _metrics_directory(workers: int) -> Iterator[None]:
    """With more than one server process, a fresh ``PROMETHEUS_MULTIPROC_DIR`` for their counts; removed at the end.

    A directory the environment names already is used as it is (and kept): the operator manages it.
    The directory's name carries the serve process's pid, and those of serve processes that are gone
    (killed outright: nothing removed theirs) are removed first.
    """
    import os  # noqa: PLC0415
    import shutil  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    if workers == 1 or os.environ.get(_MULTIPROC_ENV):
        yield
        return
    _sweep_metrics_directories()
    directory = tempfile.mkdtemp(prefix=f"{_METRICS_PREFIX}{os.getpid()}-")
    os.environ[_MULTIPROC_ENV] = directory  # before any process imports prometheus_client
    try:
        yield
    finally:
        os.environ.pop(_MULTIPROC_ENV, None)
        shutil.rmtree(directory, ignore_errors=True)


def _sweep_metrics_directories() -> None:
    """Remove the metrics directories of serve processes that no longer exist."""
    import os  # noqa: PLC0415
    import shutil  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    root = Path(tempfile.gettempdir())
    for found in root.glob(f"{_METRICS_PREFIX}*-*"):
        pid = found.name.removeprefix(_METRICS_PREFIX).partition("-")[0]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(found, ignore_errors=True)
        except OSError:  # alive, but another user's
            continue


def _serve(
    settings: Settings,
    host: str,
    port: int,
    workers: int,
    proxies: str | None,
    limit_concurrency: int | None,
    timeout_keep_alive: int,
    log_format: str,
    log_level: str,
) -> None:
    import os  # noqa: PLC0415

    import uvicorn  # noqa: PLC0415
    from uvicorn.config import STARTUP_FAILURE  # noqa: PLC0415

    from creatorpack.service.app import preflight  # noqa: PLC0415
    from creatorpack.service.logs import FORMAT_ENV, LEVEL_ENV, configured_logging  # noqa: PLC0415
    from creatorpack.service.worker import PARENT_ENV  # noqa: PLC0415

    os.environ[FORMAT_ENV], os.environ[LEVEL_ENV] = log_format, log_level  # every process logs alike
    os.environ[PARENT_ENV] = str(os.getpid())  # the workers end when this process does, however it ends
    with configured_logging(log_format, log_level):  # as it was before, should serve stop early
        try:
            preflight(settings)
        except Exception as exc:  # noqa: BLE001 - any failure to build the app ends the command cleanly
            raise _fail(exc, settings) from None
        address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        _check_listen(host, port, address)
        typer.echo(
            f"creatorpack service on http://{one_line(address)} (data in {one_line(str(settings.data_dir))})", err=True
        )
        try:
            uvicorn.run(
                "creatorpack.service.worker:create_app",  # create_app, in a process that dies with this one
                factory=True,
                host=host,
                port=port,
                workers=workers,
                forwarded_allow_ips=proxies,
                # uvicorn refuses a connection once N are open, the new one counted: N + 1 serves N at once.
                limit_concurrency=None if limit_concurrency is None else limit_concurrency + 1,
                timeout_keep_alive=timeout_keep_alive,
                log_config=None,  # ours (configure_logging), in each server process too
                log_level=log_level,
                access_log=False,  # one access line per request is ours, with the route template and request id
                server_header=False,
            )
        except SystemExit as exc:
            if exc.code != STARTUP_FAILURE:  # uvicorn's 3 is not EXIT_NOT_MIGRATED
                raise
            _complain(f"could not listen on {address}, or the server could not start (above)")
            raise typer.Exit(2) from None


def _proxies(value: str | None) -> str | None:
    """``--forwarded-allow-ips`` checked: each entry an address or a network, or ``*`` (exit 2 otherwise).

    uvicorn keeps any other entry as a name that no client's address matches, so a typo would trust
    no balancer, silently, and every client behind them would share one per-IP limit.
    """
    import ipaddress  # noqa: PLC0415

    if value is None:
        return None
    if value.strip() == "*":
        return "*"  # uvicorn trusts everyone only for the value "*" alone
    for entry in (e.strip() for e in value.split(",")):
        try:
            ipaddress.ip_network(entry)  # strict, as uvicorn reads it: 127.0.0.1/8 matches no one there
        except ValueError:
            _complain(
                f"--forwarded-allow-ips (CREATORPACK_FORWARDED_ALLOW_IPS): {entry!r} is not an address or a "
                "network without host bits (such as 10.0.0.0/8); * stands alone, for any proxy"
            )
            raise typer.Exit(2) from None
    return value


def _check_listen(host: str, port: int, address: str) -> None:
    """Exit 2 unless ``host:port`` can be bound now (uvicorn would exit with its own 3, and a traceback-like log)."""
    import errno  # noqa: PLC0415
    import socket  # noqa: PLC0415

    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        _complain(f"could not listen on {address}: {exc.strerror or exc}")
        raise typer.Exit(2) from None
    problems: list[OSError] = []
    for family, kind, proto, _, where in found:
        try:
            with socket.socket(family, kind, proto) as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
                sock.bind(where)
        except OSError as exc:
            problems.append(exc)
    unusable = [e for e in problems if e.errno != errno.EADDRNOTAVAIL]  # asyncio skips those addresses too
    if unusable or len(problems) == len(found):
        first = (unusable or problems)[0]
        _complain(f"could not listen on {address}: {first.strerror or first}")
        raise typer.Exit(2)


_DURATION: Final = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


def _expiry(value: str, now: datetime) -> datetime:
    """``--expires``: a duration (``90d``, ``12h``, ``30m``, ``45s``, ``2w``) from now, or an ISO date or time.

    A date or time without a zone is UTC.
    """
    text = value.strip()
    number, unit = text[:-1], text[-1:].lower()
    if unit in _DURATION and number.isdigit() and number.isascii():
        seconds = int(number) * _DURATION[unit]
        if 0 < seconds <= MAX_GRACE_SECONDS:
            return now + timedelta(seconds=seconds)
        raise ValueError(f"--expires {value!r}: a duration above 0 and at most 100 years")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"--expires {value!r}: write a duration (90d, 12h, 30m) or an ISO date or time (2027-01-31)"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def token_create(
    account: Annotated[str, typer.Option("--account", help="Account name (created on first use).")],
    scope: Annotated[str, typer.Option("--scope", help="creator, reader, host or admin.")],
    expires: Annotated[
        str | None,
        typer.Option("--expires", help="When it stops working: a duration (90d, 12h, 30m) or an ISO date or time."),
    ] = None,
    pack: Annotated[
        list[str] | None, typer.Option("--pack", help="Limit it to this pack id (repeatable; any spelling).")
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="A label, shown by token list.")] = None,
    data_dir: DataDir = None,
) -> None:
    """Create a token and print it alone on stdout (it is stored only as a hash: keep it)."""
    from creatorpack.service.ports import SCOPES  # noqa: PLC0415

    if scope not in SCOPES:  # a usage error whatever state the database is in
        _complain(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
        raise typer.Exit(2)
    try:
        until = _expiry(expires, datetime.now(UTC)) if expires is not None else None
        with _services(data_dir) as services:
            token, _ = services.auth.issue(account, scope, expires=until, packs=pack or None, name=name)
    except ValueError as exc:
        _complain(f"{exc}")
        raise typer.Exit(2) from None
    sys.stdout.write(token + "\n")


def token_list(
    account: Annotated[str | None, typer.Option("--account", help="Only this account's tokens.")] = None,
    data_dir: DataDir = None,
) -> None:
    """List tokens: id, account, scope, created, revoked, expires, last used, packs, name (tab-separated)."""
    with _services(data_dir) as services:
        records = services.auth.tokens(account)
    for record in records:
        when = [
            moment.isoformat(timespec="seconds") if moment else "-"
            for moment in (record.created, record.revoked, record.expires, record.last_used)
        ]
        packs = ",".join(record.packs) if record.packs is not None else "-"
        label = one_line(record.name) if record.name else "-"
        fields = [record.id, one_line(record.account), record.scope, *when, packs, label]
        sys.stdout.write("\t".join(fields) + "\n")


def token_revoke(
    token_id: Annotated[str, typer.Argument(help="The token's id (see token list).")],
    data_dir: DataDir = None,
) -> None:
    """Revoke a token: it answers 401 from now on."""
    with _services(data_dir) as services:
        revoked = services.auth.revoke(token_id)
    if not revoked:
        _complain(f"no live token with id {token_id!r}")
        raise typer.Exit(1)
    typer.echo(f"revoked {token_id}", err=True)


AccountArgument = Annotated[str, typer.Argument(help="The account's name.")]


def account_list(data_dir: DataDir = None) -> None:
    """List accounts: name, role, created, disabled, reason (tab-separated; - for none)."""
    with _services(data_dir) as services:
        found = services.moderation.all_accounts()
    for record in found:
        disabled = record.disabled.isoformat(timespec="seconds") if record.disabled else "-"
        reason = one_line(record.disabled_reason) if record.disabled_reason else "-"
        created = record.created.isoformat(timespec="seconds")
        sys.stdout.write(f"{one_line(record.name)}\t{record.role}\t{created}\t{disabled}\t{reason}\n")


def account_set_role(
    account: AccountArgument,
    role: Annotated[str, typer.Argument(help="admin (a platform admin: moderates) or member.")],
    data_dir: DataDir = None,
) -> None:
    """Make an account a platform admin (its admin tokens moderate), or a member again."""
    from creatorpack.service.errors import NotFoundError  # noqa: PLC0415
    from creatorpack.service.ports import ROLES  # noqa: PLC0415

    chosen = next((r for r in ROLES if r == role), None)
    if chosen is None:
        _complain(f"unknown role {role!r}; use one of {', '.join(ROLES)}")
        raise typer.Exit(2)
    try:
        with _services(data_dir) as services:
            services.moderation.set_role(account, chosen)
    except NotFoundError as exc:
        _complain(str(exc))
        raise typer.Exit(1) from None
    typer.echo(f"{one_line(account)} is now {chosen}", err=True)


def account_disable(
    account: AccountArgument,
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the platform's journal).")],
    data_dir: DataDir = None,
) -> None:
    """Disable an account: its tokens stop working and its packs are hidden."""
    _set_disabled(account, reason, data_dir)


def account_enable(account: AccountArgument, data_dir: DataDir = None) -> None:
    """Enable a disabled account: its tokens work again and its packs are shown as published."""
    _set_disabled(account, None, data_dir)


def _set_disabled(account: str, reason: str | None, data_dir: Path | None) -> None:
    from creatorpack.service.errors import NotFoundError  # noqa: PLC0415

    if reason is not None and not reason.strip():
        _complain("--reason needs some text")
        raise typer.Exit(2)
    try:
        with _services(data_dir) as services:
            services.moderation.set_disabled(account, reason.strip() if reason is not None else None)
    except NotFoundError as exc:
        _complain(str(exc))
        raise typer.Exit(1) from None
    typer.echo(f"{one_line(account)} is {'disabled' if reason is not None else 'enabled'}", err=True)


def db_upgrade(data_dir: DataDir = None) -> None:
    """Apply the database migrations (automatic on the embedded SQLite default)."""
    from creatorpack.service.store import connect  # noqa: PLC0415

    settings = _settings(data_dir)
    try:
        database = connect(settings.url, schema=settings.database_schema)
        try:
            before, heads = database.migrations()
            database.upgrade()
        finally:
            database.dispose()
    except Exception as exc:  # noqa: BLE001 - any failure to open or migrate the database ends the command cleanly
        raise _fail(exc, settings) from None
    at = ", ".join(sorted(heads))
    if before == heads:
        typer.echo(f"database is up to date (migration {at})", err=True)
    else:
        typer.echo(f"database migrated from {', '.join(sorted(before)) or 'nothing'} to migration {at}", err=True)


def _grace_seconds(value: float) -> float:
    """``--older-than`` as given, if it is a finite number of seconds from 0 to :data:`MAX_GRACE_SECONDS`.

    Anything else is a usage error on one line (exit 2) before any store is opened: NaN and infinity
    make no timedelta, and a larger value no date to compare write times with.
    """
    if not 0 <= value <= MAX_GRACE_SECONDS:  # NaN compares false both ways
        typer.echo(
            f"creatorpack: --older-than is a number of seconds from 0 to {MAX_GRACE_SECONDS} (100 years), "
            f"not {value!r}",
            err=True,
        )
        raise typer.Exit(2)
    return value


def db_gc(
    data_dir: DataDir = None,
    older_than: Annotated[
        float,
        typer.Option(
            callback=_grace_seconds,
            help=f"Keep unreferenced blobs younger than this many seconds (0 to {MAX_GRACE_SECONDS}).",
        ),
    ] = 3600.0,
) -> None:
    """Delete blobs no revision references (orphans of interrupted uploads, deleted revisions), and stale temp files."""
    from datetime import UTC, datetime, timedelta  # noqa: PLC0415

    from creatorpack.service.blobs import blob_store_from_url  # noqa: PLC0415

    grace = timedelta(seconds=older_than)
    with _services(data_dir) as services:
        swept = services.packs.collect_garbage(grace)
        settings = services.settings
    for digest in swept:
        sys.stdout.write(digest + "\n")
    try:
        blobs = blob_store_from_url(settings.blob_url, settings.data_dir / "blobs")
        temporary = blobs.sweep_temporary(datetime.now(UTC) - grace)
    except OSError as exc:
        raise _fail(exc, settings) from None
    typer.echo(
        f"removed {len(swept)} blob{'s' if len(swept) != 1 else ''} "
        f"and {len(temporary)} temporary file{'s' if len(temporary) != 1 else ''}",
        err=True,
    )


def db_check(data_dir: DataDir = None) -> None:
    """Check that every live revision and uploaded asset has its bytes in the blob store, of its size and sha256.

    Prints one line per problem (``missing`` or ``corrupt``, tab-separated with the revision or the
    asset and the sha256), then a summary on standard error; exit 1 when anything is wrong.
    """
    with _services(data_dir) as services:
        done = services.packs.check_storage()
    for problem in done.problems:
        sys.stdout.write(problem.line() + "\n")  # ids, numbers and hashes: nothing to escape
    missing = sum(1 for p in done.problems if p.kind == "missing")
    typer.echo(
        f"checked {done.revisions} revision{'s' if done.revisions != 1 else ''} and {done.assets} "
        f"asset{'s' if done.assets != 1 else ''}: {missing} missing, {len(done.problems) - missing} corrupt",
        err=True,
    )
    if not done.ok:
        raise typer.Exit(1)


def db_refresh_views(data_dir: DataDir = None) -> None:
    """Rebuild every publication's reader view by this release's rules (run after upgrading creatorpack).

    A publication keeps the reader view it was published with; a release that changes what readers
    may see applies to older publications once this has run. Prints each rebuilt pack id.
    """
    with _services(data_dir) as services:
        done = services.packs.refresh_publications()
    for pack_id in done.rebuilt:
        sys.stdout.write(pack_id + "\n")
    for pack_id, why in done.failed:
        _complain(f"{pack_id}: not rebuilt, its stored view is kept: {why}")
    typer.echo(
        f"checked {done.checked} publication{'s' if done.checked != 1 else ''}: {len(done.rebuilt)} rebuilt, "
        f"{done.checked - len(done.rebuilt) - len(done.failed)} unchanged, {len(done.failed)} not rebuilt",
        err=True,
    )
    if done.failed:
        raise typer.Exit(1)


def db_seed_examples(
    examples: Annotated[
        Path, typer.Option("--examples", help="The repository's examples directory (0.3, 0.4 and 0.5 rich.json).")
    ] = Path("examples"),
    data_dir: DataDir = None,
) -> None:
    """Upload and publish the bundled rich examples under the 'examples' account (for a catalog to browse)."""
    from creatorpack.service.seed import EXAMPLE_VERSIONS, seed_examples  # noqa: PLC0415

    missing = [v for v in EXAMPLE_VERSIONS if not (examples / v / "rich.json").is_file()]
    if missing:
        _complain(f"{examples} has no {', '.join(v + '/rich.json' for v in missing)}; pass --examples DIR")
        raise typer.Exit(2)
    with _services(data_dir, migrate=True) as services:
        seeded = seed_examples(services, examples)
    failed = False
    for item in seeded:
        if item.problem is None:
            typer.echo(f"published {item.pack_id} revision {item.revision} ({item.visibility})")
        else:
            failed = True
            _complain(f"{item.path}: {item.problem}")
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``serve``, ``token`` and ``db`` to the ``creatorpack`` app."""
    app.command("serve")(serve)
    tokens = typer.Typer(help="Create, list and revoke service tokens.", no_args_is_help=True)
    tokens.command("create")(token_create)
    tokens.command("list")(token_list)
    tokens.command("revoke")(token_revoke)
    app.add_typer(tokens, name="token")
    accounts = typer.Typer(help="Accounts: list, platform admins, disable and enable.", no_args_is_help=True)
    accounts.command("list")(account_list)
    accounts.command("set-role")(account_set_role)
    accounts.command("disable")(account_disable)
    accounts.command("enable")(account_enable)
    app.add_typer(accounts, name="account")
    database = typer.Typer(
        help="Service database: migrations, blob garbage collection and checks, reader views rebuilt.",
        no_args_is_help=True,
    )
    database.command("upgrade")(db_upgrade)
    database.command("gc")(db_gc)
    database.command("check")(db_check)
    database.command("refresh-views")(db_refresh_views)
    database.command("seed-examples")(db_seed_examples)
    app.add_typer(database, name="db")

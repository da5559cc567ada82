"""The service's logs: one record per line, JSON (for a collector) or plain text (for a terminal), via structlog.

Everything is logged through the standard library (the service's logger ``creatorpack.service``,
uvicorn's ``uvicorn.error``, the access logger :data:`ACCESS_LOGGER`), and one handler on the root
logger renders each record with structlog's :class:`~structlog.stdlib.ProcessorFormatter`. A record
logged while a request is served carries that request's id (and its account, once the token is
checked), so a warning can be matched with its access line. A traceback stays in its record (the
``exception`` field), never spread over lines a collector would split.

:func:`configure_logging` is called by ``creatorpack serve`` and by each of its server processes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from contextvars import ContextVar
from typing import IO, Any, Final, Literal

__all__ = [
    "ACCESS_LOGGER",
    "FORMAT_ENV",
    "LEVEL_ENV",
    "LOG_FORMATS",
    "LOG_LEVELS",
    "RequestInfo",
    "configure_logging",
    "configured_logging",
    "current_request",
    "log_access",
    "note_account",
    "request_id",
]

ACCESS_LOGGER: Final = "creatorpack.access"
"""The logger of the access lines: one per request, fields in the record's ``creatorpack`` extra."""
FORMAT_ENV: Final = "CREATORPACK_LOG_FORMAT"
LEVEL_ENV: Final = "CREATORPACK_LOG_LEVEL"
LOG_FORMATS: Final = ("json", "text")
LOG_LEVELS: Final = ("debug", "info", "warning", "error")
_REQUEST_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+=-]{0,127}")
"""An ``X-Request-ID`` taken as the client (or proxy) sent it: a UUID, a hex string, a trace id; at most 128 chars."""
_HANDLER_NAME: Final = "creatorpack"
_CHATTY: Final = ("alembic", "botocore", "boto3", "httpcore", "httpx", "s3transfer", "urllib3")


class RequestInfo:
    """What the logs know of the request being served: its id, and its account once a token was checked.

    One mutable object per request, held in a context variable: the token check may run in a worker
    thread (a copy of the context), and what it notes here is still seen by the access line.
    """

    __slots__ = ("account", "request_id")

    def __init__(self, request_id: str) -> None:
        self.request_id = request_id
        self.account: str | None = None


_current: ContextVar[RequestInfo | None] = ContextVar("creatorpack_request", default=None)
_std_access: Final = logging.getLogger(ACCESS_LOGGER)
_access: Any = None
"""The access lines' own structlog logger once :func:`configure_logging` ran (None: through the stdlib)."""


def current_request() -> ContextVar[RequestInfo | None]:
    """The context variable holding the :class:`RequestInfo` of the request being served (None outside one)."""
    return _current


def note_account(account: str) -> None:
    """Record the account whose token the request carries (never the token): the access line names it."""
    info = _current.get()
    if info is not None:
        info.account = account


def request_id(sent: str | None) -> str:
    """The request id: the client's ``X-Request-ID`` if it has a sane form, else a new one (32 hex digits)."""
    if sent is not None and _REQUEST_ID.fullmatch(sent):
        return sent
    return os.urandom(16).hex()  # as random as uuid4().hex, at a tenth of the cost


def log_access(fields: dict[str, Any], failure: BaseException | None = None) -> None:
    """Write the access line of a request: ``error`` with the traceback when it failed or answered 5xx, else ``info``.

    Once :func:`configure_logging` ran, the line goes through a structlog logger of its own straight to
    the stream (orjson for JSON): a request pays a few microseconds for it, not the ~100 that a stdlib
    record through the formatter costs. Before that, through the stdlib logger :data:`ACCESS_LOGGER`.
    """
    logger = _access
    failed = failure is not None or fields["status"] >= 500
    event = "request failed" if failure is not None else "request"
    if logger is None:
        _std_access.log(
            logging.ERROR if failed else logging.INFO, event, exc_info=failure, extra={"creatorpack": fields}
        )
        return
    try:
        if failed:
            logger.error(event, exc_info=failure, **fields)
        else:
            logger.info(event, **fields)
    except (OSError, ValueError):  # a closed or broken stream: a log line never fails the request
        _std_access.debug("the access line could not be written", exc_info=True)


class _Stderr:
    """Whatever ``sys.stderr`` is when a line is written (a test runner swaps it, and closes its own)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return sys.stderr.isatty()


def _access_name(_logger: Any, _name: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    event["logger"] = ACCESS_LOGGER
    return event


def _orjson(value: Any, **_options: Any) -> str:
    import orjson  # noqa: PLC0415

    return orjson.dumps(value, default=str).decode()


def _add_request(_logger: Any, _name: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Add the fields of an access line, and the id and account of the request being served."""
    record = event.get("_record")
    fields: Mapping[str, Any] | None = getattr(record, "creatorpack", None)
    if fields:
        event.update(fields)
    info = _current.get()
    if info is not None:
        event.setdefault("request_id", info.request_id)
        if info.account is not None:
            event.setdefault("account", info.account)
    return event


def _resolve_format(fmt: str | None, stream: IO[str]) -> Literal["json", "text"]:
    """``fmt`` if given, else ``CREATORPACK_LOG_FORMAT``, else text on a terminal and JSON otherwise."""
    chosen = (fmt or os.environ.get(FORMAT_ENV) or "").strip().lower()
    if chosen in LOG_FORMATS:
        return "json" if chosen == "json" else "text"
    isatty = getattr(stream, "isatty", None)
    return "text" if isatty is not None and isatty() else "json"


def configure_logging(
    fmt: str | None = None, level: str | None = None, *, stream: IO[str] | None = None
) -> logging.Handler:
    """Send every log record (ours, uvicorn's, the libraries') to ``stream`` (stderr) as one line each.

    ``fmt`` is ``json`` or ``text`` (default: ``CREATORPACK_LOG_FORMAT``, else text when the stream is
    a terminal, JSON otherwise); ``level`` is debug, info (the default: access lines), warning or
    error (default: ``CREATORPACK_LOG_LEVEL``). Replaces the handler an earlier call installed; the
    root logger's other handlers are left alone. Returns the handler.
    """
    import structlog  # noqa: PLC0415 - only the service (and only once it starts) needs it

    out: Any = stream if stream is not None else _Stderr()
    chosen = _resolve_format(fmt, out)
    name = (level or os.environ.get(LEVEL_ENV) or "info").strip().lower()
    if name not in LOG_LEVELS:
        raise ValueError(f"a log level is one of {', '.join(LOG_LEVELS)}, not {name!r}")
    shared: list[Any] = [
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _add_request,
    ]
    renderer: Any
    if chosen == "json":
        tail: list[Any] = [structlog.processors.format_exc_info]
        renderer = structlog.processors.JSONRenderer()
    else:
        tail = []
        renderer = structlog.dev.ConsoleRenderer(
            colors=False, exception_formatter=structlog.dev.plain_traceback, sort_keys=False
        )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *tail, renderer],
    )
    handler = logging.StreamHandler(out)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(name.upper())
    for logger in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        logging.getLogger(logger).handlers = []
        logging.getLogger(logger).propagate = True
    logging.getLogger("uvicorn.access").disabled = True  # ours replaces it (ACCESS_LOGGER)
    for chatty in _CHATTY:  # their info lines (credentials found, URLs with queries) are noise, or secrets
        logging.getLogger(chatty).setLevel(max(logging.WARNING, root.level))
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    global _access  # noqa: PLW0603 - one access logger per process, as the root handler
    fast_renderer = structlog.processors.JSONRenderer(serializer=_orjson) if chosen == "json" else renderer
    _access = structlog.wrap_logger(
        structlog.WriteLogger(out),
        processors=[
            structlog.processors.add_log_level,
            _access_name,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            *tail,
            fast_renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, name.upper())),
    )
    return handler


@contextlib.contextmanager
def configured_logging(fmt: str | None = None, level: str | None = None) -> Iterator[None]:
    """:func:`configure_logging` for the time of a ``with`` block; the process's logging as it was afterwards.

    ``serve`` runs in it, so that a ``serve`` that stops early (a bad setting, a port in use), run
    in-process as the tests run commands, leaves no handler behind for the commands after it.
    """
    global _access  # noqa: PLW0603
    root = logging.getLogger()
    handlers, level_before, access = list(root.handlers), root.level, _access
    configure_logging(fmt, level)
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level_before)
        _access = access
        logging.getLogger("uvicorn.access").disabled = False

"""The service's configuration: a frozen dataclass, read from ``CREATORPACK_*`` environment variables.

:meth:`Settings.from_env` refuses every value that could not work (:class:`SettingsError`), also those
only the server processes use, so that a bad one stops ``creatorpack serve`` before it starts them.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final
from urllib.parse import SplitResult, parse_qsl, urlsplit

from creatorpack import CreatorpackError

__all__ = [
    "DEFAULT_DATA_DIR",
    "RateLimit",
    "Settings",
    "SettingsError",
    "hide_password",
    "parse_cors_origins",
    "plain_identifier",
]

DEFAULT_DATA_DIR: Final = Path("~/.local/share/creatorpack").expanduser()
_MIB: Final = 1024 * 1024
_SCHEMA: Final = re.compile(r"[^\W\d][\w$]*")
"""PostgreSQL's unquoted identifier: a letter (any script) or _, then letters, digits, _ and $."""
_REDIS_SCHEMES: Final = ("redis", "rediss", "unix")
_ORIGIN: Final = re.compile(r"(https?)://([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\])(?::([0-9]{1,5}))?")
"""An origin as a browser sends it in ``Origin`` (matched lower-cased): scheme, ASCII host, optional port."""
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


class SettingsError(CreatorpackError, ValueError):
    """A configuration value that cannot be used."""


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most ``requests`` per ``seconds`` (a fixed window); ``requests == 0`` turns the limit off."""

    requests: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> RateLimit:
        """``"300/10"`` (300 requests per 10 s), ``"20"`` (per second) or ``"0"`` (off)."""
        requests, _, seconds = text.strip().partition("/")
        try:
            parsed = cls(int(requests), int(seconds) if seconds else 1)
        except ValueError:
            raise SettingsError(f"a rate limit is REQUESTS/SECONDS, like 300/10, not {text!r}") from None
        if parsed.requests < 0 or parsed.seconds < 1:
            raise SettingsError(f"a rate limit needs requests >= 0 and seconds >= 1, not {text!r}")
        return parsed

    @property
    def enabled(self) -> bool:
        """Whether this limit applies at all."""
        return self.requests > 0


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything :func:`creatorpack.service.app.create_app` needs; see docs/service.md."""

    data_dir: Path = DEFAULT_DATA_DIR
    database_url: str | None = None  # None: SQLite in data_dir (migrated on start)
    database_schema: str | None = None  # PostgreSQL: the schema holding the tables (search_path)
    blob_url: str | None = None  # None: data_dir/blobs
    redis_url: str | None = None  # None: in-process rate limits
    redis_prefix: str = "creatorpack:rl"
    max_body_bytes: int = 64 * _MIB  # as the CLI
    max_header_bytes: int = 16 * 1024
    rate_per_token: RateLimit = field(default_factory=lambda: RateLimit(300, 10))  # 30/s: a host drives 20/s
    rate_per_ip: RateLimit = field(default_factory=lambda: RateLimit(1000, 10))
    rate_reports: RateLimit = field(default_factory=lambda: RateLimit(5, 3600))  # readers' reports of packs
    lint_max_seconds: float = 5.0
    token_cache_seconds: float = 1.0  # how long a server process trusts a checked token (revocation delay)
    migrate: bool | None = None  # None: only on the embedded SQLite default
    cors_origins: tuple[str, ...] = ()  # browser origins that may call the API ("*": any); (): no CORS at all
    model_url: str | None = None  # the narrator's OpenAI-compatible base URL; None: no narration (503)
    model_name: str = "default"
    model_key: str | None = field(default=None, repr=False)
    model_context_tokens: int = 4096
    rate_narrate: RateLimit = field(default_factory=lambda: RateLimit(30, 60))  # narrated turns per account
    metrics: bool = True  # GET /metrics on the service's port
    metrics_token: str | None = None  # None: /metrics open to anyone who reaches the port

    @property
    def sqlite_path(self) -> Path:
        """The embedded database file."""
        return self.data_dir / "creatorpack.db"

    @property
    def url(self) -> str:
        """The database URL in use."""
        return self.database_url or f"sqlite:///{self.sqlite_path}"

    @property
    def migrate_on_start(self) -> bool:
        """Whether the app applies migrations when it starts."""
        return self.migrate if self.migrate is not None else self.database_url is None

    def with_changes(self, **changes: Any) -> Settings:
        """A copy with some fields changed."""
        return replace(self, **changes)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from ``CREATORPACK_*`` variables, then ``overrides`` (command-line options) on top."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        if env.get("CREATORPACK_DATA_DIR"):
            values["data_dir"] = Path(env["CREATORPACK_DATA_DIR"]).expanduser()
        for name, key in (
            ("database_url", "CREATORPACK_DATABASE_URL"),
            ("database_schema", "CREATORPACK_DATABASE_SCHEMA"),
            ("blob_url", "CREATORPACK_BLOB_URL"),
            ("redis_url", "CREATORPACK_REDIS_URL"),
            ("redis_prefix", "CREATORPACK_REDIS_PREFIX"),
        ):
            if env.get(key):
                values[name] = env[key]
        if "database_schema" in values:
            _check_schema(values["database_schema"])
        if "blob_url" in values:
            _check_blob_url(values["blob_url"])
        if "redis_url" in values:
            _check_redis_url(values["redis_url"])
        for name, key in (
            ("max_body_bytes", "CREATORPACK_MAX_BODY_BYTES"),
            ("max_header_bytes", "CREATORPACK_MAX_HEADER_BYTES"),
        ):
            if env.get(key):
                values[name] = _positive_int(key, env[key])
        if env.get("CREATORPACK_RATE_PER_TOKEN"):
            values["rate_per_token"] = RateLimit.parse(env["CREATORPACK_RATE_PER_TOKEN"])
        if env.get("CREATORPACK_RATE_PER_IP"):
            values["rate_per_ip"] = RateLimit.parse(env["CREATORPACK_RATE_PER_IP"])
        if env.get("CREATORPACK_RATE_REPORTS"):
            values["rate_reports"] = RateLimit.parse(env["CREATORPACK_RATE_REPORTS"])
        for name, key in (
            ("lint_max_seconds", "CREATORPACK_LINT_MAX_SECONDS"),
            ("token_cache_seconds", "CREATORPACK_TOKEN_CACHE_SECONDS"),
        ):
            if env.get(key):
                values[name] = _seconds(key, env[key])
        if env.get("CREATORPACK_MODEL_URL"):
            values["model_url"] = _model_url(env["CREATORPACK_MODEL_URL"])
        if env.get("CREATORPACK_MODEL"):
            values["model_name"] = env["CREATORPACK_MODEL"]
        if env.get("CREATORPACK_MODEL_KEY"):
            values["model_key"] = env["CREATORPACK_MODEL_KEY"]
        if env.get("CREATORPACK_MODEL_CONTEXT_TOKENS"):
            values["model_context_tokens"] = _positive_int(
                "CREATORPACK_MODEL_CONTEXT_TOKENS", env["CREATORPACK_MODEL_CONTEXT_TOKENS"]
            )
        if env.get("CREATORPACK_RATE_NARRATE"):
            values["rate_narrate"] = RateLimit.parse(env["CREATORPACK_RATE_NARRATE"])
        if env.get("CREATORPACK_METRICS"):
            values["metrics"] = _switch("CREATORPACK_METRICS", env["CREATORPACK_METRICS"])
        if env.get("CREATORPACK_METRICS_TOKEN"):
            values["metrics_token"] = env["CREATORPACK_METRICS_TOKEN"]
        if env.get("CREATORPACK_CORS_ORIGINS"):
            values["cors_origins"] = parse_cors_origins(env["CREATORPACK_CORS_ORIGINS"])
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def _model_url(text: str) -> str:
    """``CREATORPACK_MODEL_URL``: an http(s) base URL of an OpenAI-compatible API (``…/v1``), no trailing slash."""
    url = text.strip().rstrip("/")
    if not url.lower().startswith(("http://", "https://")) or len(url) > 2048:
        raise SettingsError(f"CREATORPACK_MODEL_URL is an http(s) base URL like http://127.0.0.1:8080/v1, not {text!r}")
    return url


def parse_cors_origins(text: str) -> tuple[str, ...]:
    """``CREATORPACK_CORS_ORIGINS``: comma-separated origins (``https://reader.example``), or ``*`` alone.

    Each origin is returned as a browser serializes it in ``Origin`` (lower case, no default port),
    since the CORS middleware compares strings: ``https://Reader.example:443`` would otherwise never match.
    A path, even ``/``, a user, a query or another scheme than http(s) cannot be an origin.
    """
    items = [item.strip() for item in text.split(",")]
    if items == ["*"]:
        return ("*",)
    origins: list[str] = []
    for item in items:
        origin = _origin(item)
        if origin not in origins:
            origins.append(origin)
    return tuple(origins)


def _origin(text: str) -> str:
    if text == "*":
        raise SettingsError("CREATORPACK_CORS_ORIGINS is either * alone or a list of origins, not both")
    match = _ORIGIN.fullmatch(text.lower())
    port = int(match[3]) if match and match[3] else None
    if match is None or port == 0 or (port is not None and port > 65535):
        raise SettingsError(
            "CREATORPACK_CORS_ORIGINS lists origins as scheme://host[:port] (http or https; an ASCII host, xn-- for an "
            f"internationalized one; no path, not even /), comma-separated, or *; not {text!r}"
        )
    scheme, host = match[1], match[2]
    return f"{scheme}://{host}" if port in (None, _DEFAULT_PORTS[scheme]) else f"{scheme}://{host}:{port}"


def _switch(name: str, text: str) -> bool:
    value = text.strip().lower()
    if value in ("on", "true", "1", "yes"):
        return True
    if value in ("off", "false", "0", "no"):
        return False
    raise SettingsError(f"{name} is on or off, not {text!r}")


def _positive_int(name: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise SettingsError(f"{name} is a whole number, not {text!r}") from None
    if value < 1:
        raise SettingsError(f"{name} must be at least 1")
    return value


def _seconds(name: str, text: str) -> float:
    """A finite number of seconds, 0 or more (``inf`` would make a cached token outlive its revocation)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise SettingsError(f"{name} is a number of seconds, 0 or more, not {text!r}")
    return value


def plain_identifier(name: str) -> bool:
    """Whether ``name`` is an unquoted SQL identifier PostgreSQL takes as it is (at most 63 bytes)."""
    return bool(_SCHEMA.fullmatch(name)) and len(name.encode("utf-8")) <= 63


def _check_schema(text: str) -> None:
    if not plain_identifier(text):
        raise SettingsError(
            "CREATORPACK_DATABASE_SCHEMA is a plain SQL identifier (letters, digits, _ and $, not starting with a "
            f"digit or $, at most 63 bytes), not {text!r}"
        )


def _check_blob_url(url: str) -> None:
    parts = _split("CREATORPACK_BLOB_URL", url)
    if parts.scheme == "s3" and not parts.netloc:
        raise SettingsError(f"CREATORPACK_BLOB_URL names an S3 bucket: s3://bucket/prefix, not {hide_password(url)!r}")
    if parts.scheme not in ("", "s3", "file"):
        raise SettingsError(f"CREATORPACK_BLOB_URL is a directory or s3://bucket/prefix, not {hide_password(url)!r}")


def _check_redis_url(url: str) -> None:
    parts = _split("CREATORPACK_REDIS_URL", url)
    if parts.scheme not in _REDIS_SCHEMES:
        raise SettingsError(
            f"CREATORPACK_REDIS_URL is redis://host:port/db (or rediss://, unix://), not {hide_password(url)!r}"
        )
    numbers = [parts.path.strip("/")] if parts.scheme != "unix" else []
    numbers += [v for k, v in parse_qsl(parts.query, keep_blank_values=True) if k == "db"]
    if any(database and not (database.isascii() and database.isdigit()) for database in numbers):
        raise SettingsError(
            f"CREATORPACK_REDIS_URL names its database by number (redis://host:port/0), not {hide_password(url)!r}"
        )


def _split(name: str, url: str) -> SplitResult:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise SettingsError(f"{name} does not parse as a URL: {hide_password(url)!r}") from None
    return parts


def hide_password(url: str) -> str:
    """``url`` with its password (if any) shown as ``***``, fit to print."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        parts, password = None, None
    if parts is None or (not parts.netloc and "@" in url):
        return "(a URL that does not parse)" if "@" in url else url
    if password is None:
        return url
    user, _, host = parts.netloc.rpartition("@")
    return parts._replace(netloc=f"{user.partition(':')[0]}:***@{host}").geturl()

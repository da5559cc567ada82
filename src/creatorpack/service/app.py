"""``create_app(settings)``: the one place where the store, blobs, domain, limits and routes are wired."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Final

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware

from creatorpack import __version__
from creatorpack.service import metrics, tracing, web
from creatorpack.service.api import (
    admin,
    assets,
    catalog,
    checks,
    docs,
    errors,
    meta,
    narration,
    packs,
    publishing,
    scrape,
    sessions,
    tokens,
)
from creatorpack.service.api.checkpath import ValidateFastPath
from creatorpack.service.api.cors import cors_options
from creatorpack.service.api.deps import Services
from creatorpack.service.api.fastpath import RevisionFastPath
from creatorpack.service.api.middleware import (
    FastPathGate,
    HeaderLimitMiddleware,
    HeadMiddleware,
    RateLimitMiddleware,
    SingleValuedQueryMiddleware,
)
from creatorpack.service.api.observe import ObserveMiddleware
from creatorpack.service.api.readerpath import ReaderFastPath
from creatorpack.service.api.schemas import Problem
from creatorpack.service.assets import Assets
from creatorpack.service.auth import Auth
from creatorpack.service.blobs import LocalBlobStore, S3BlobStore, blob_store_from_url
from creatorpack.service.catalog import Catalog
from creatorpack.service.engines import Engines
from creatorpack.service.moderation import Moderation
from creatorpack.service.narration import Narration
from creatorpack.service.packs import Packs
from creatorpack.service.ports import Clock, SystemClock
from creatorpack.service.ratelimit import Limiter, MemoryLimiter, RedisLimiter
from creatorpack.service.sessions import Sessions
from creatorpack.service.settings import Settings
from creatorpack.service.shelf import Shelf
from creatorpack.service.store import (
    Database,
    SqlAssetStore,
    SqlCatalogStore,
    SqlKeyStore,
    SqlModerationStore,
    SqlPackStore,
    SqlSessionStore,
    SqlTokenStore,
    connect,
)

if TYPE_CHECKING:
    from creatorpack.narrate import ModelClient

__all__ = ["create_app", "open_database", "openapi_json", "preflight", "wire"]

_log: Final = logging.getLogger("creatorpack.service")
_DESCRIPTION = """Accept, validate, store and return creator packs. Every error is `application/problem+json`
(RFC 9457) with a stable `type` URI; see docs/service.md."""


def open_database(settings: Settings) -> Database:
    """The database the settings name, migrated first when they say so.

    Otherwise it must be at this release's migration head, else
    :class:`~creatorpack.service.store.MigrationRequiredError` (which tells the operator to run
    ``creatorpack db upgrade``), rather than a service that answers 500 to every request.
    """
    database = connect(settings.url, schema=settings.database_schema)
    try:
        if settings.migrate_on_start:
            database.upgrade()
        else:
            database.check_migrated()
    except BaseException:
        database.dispose()
        raise
    return database


def wire(
    settings: Settings,
    database: Database,
    clock: Clock | None = None,
    *,
    blobs: LocalBlobStore | S3BlobStore | None = None,
) -> Services:
    """The domain objects over the SQL stores and the blob store (default: the configured one)."""
    from creatorpack import LintConfig  # noqa: PLC0415 - the linter loads on first use

    clock = clock or SystemClock()
    if blobs is None:
        blobs = blob_store_from_url(settings.blob_url, settings.data_dir / "blobs")
    lint_config = LintConfig(max_seconds=settings.lint_max_seconds)
    from creatorpack import Validator  # noqa: PLC0415

    validator = Validator(max_bytes=settings.max_body_bytes)
    pack_store, asset_store = SqlPackStore(database), SqlAssetStore(database)
    domain = Packs(pack_store, blobs, clock, validator=validator, lint_config=lint_config, assets=asset_store)
    sessions = Sessions(
        SqlSessionStore(database),
        pack_store,
        blobs,
        Engines(blobs),
        clock,
        revision_seconds=settings.token_cache_seconds,
    )
    token_store = SqlTokenStore(database)
    auth = Auth(token_store, clock, cache_seconds=settings.token_cache_seconds)
    return Services(
        settings,
        domain,
        auth,
        sessions=sessions,
        catalog=Catalog(SqlCatalogStore(database), SqlKeyStore(database)),
        assets=Assets(asset_store, pack_store, blobs, clock),
        moderation=Moderation(SqlModerationStore(database), token_store, auth, domain, clock),
        narration=Narration(sessions, _model(settings), context_tokens=settings.model_context_tokens),
    )


def _model(settings: Settings) -> ModelClient | None:
    """The narrator's model client, when the settings name a model server (``CREATORPACK_MODEL_URL``)."""
    if settings.model_url is None:
        return None
    from creatorpack.narrate import ModelSettings, OpenAIClient  # noqa: PLC0415 - httpx loads only when used

    return OpenAIClient(ModelSettings(settings.model_url, settings.model_name, settings.model_key))


def create_app(
    settings: Settings | None = None, *, clock: Clock | None = None, limiter: Limiter | None = None
) -> FastAPI:
    """The ASGI application for ``settings`` (default: from the environment)."""
    settings = settings or Settings.from_env()
    database = open_database(settings)
    try:
        blobs = blob_store_from_url(settings.blob_url, settings.data_dir / "blobs")
        services = wire(settings, database, clock, blobs=blobs)
        if limiter is None:
            limiter = RedisLimiter(settings.redis_url, settings.redis_prefix) if settings.redis_url else MemoryLimiter()
    except BaseException:
        database.dispose()
        raise

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await limiter.close()
        services.narration.close()
        database.dispose()

    app = FastAPI(
        title="creatorpack service",
        version=__version__,
        description=_DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        redirect_slashes=False,  # a path with a trailing slash is an unknown route (404), not a redirect
    )
    app.state.services = services
    app.state.database = database
    app.state.blobs = blobs
    app.state.limiter = limiter
    app.state.not_ready = lambda: _not_ready(app.state.database, app.state.blobs)
    errors.install(app)
    routers = [
        *(group.router for group in (meta, checks, packs, publishing, catalog, assets, sessions, narration, tokens)),
        docs.router,
        admin.reports_router,
        admin.admin_router,
    ]
    if settings.metrics:
        routers.append(scrape.router(settings.metrics_token))
    for router in routers:
        app.include_router(router)
    app.state.routes = [r for router in routers for r in router.routes]  # app.routes holds one per router
    app.state.shelf = Shelf(SqlModerationStore(database))
    web.install(app, SqlKeyStore(database))  # the pages (docs/web.md): after the API, outside its route list
    fast = {"auth": services.auth, "packs": services.packs, "ttl_seconds": settings.token_cache_seconds}
    checks_fast = {"packs": services.packs, "max_body_bytes": settings.max_body_bytes}
    app.add_middleware(
        FastPathGate,
        fast_paths=[(ReaderFastPath, fast), (RevisionFastPath, fast)],
        exact={"/v1/validate": (ValidateFastPath, checks_fast)},
    )
    app.add_middleware(SingleValuedQueryMiddleware, routes=app.state.routes)
    app.add_middleware(HeadMiddleware)
    app.add_middleware(
        RateLimitMiddleware, limiter=limiter, per_token=settings.rate_per_token, per_ip=settings.rate_per_ip
    )
    if settings.cors_origins:  # outside the limiter: preflights are answered, 429s carry the CORS headers
        app.add_middleware(CORSMiddleware, **cors_options(settings.cors_origins))
    app.add_middleware(HeaderLimitMiddleware, max_bytes=settings.max_header_bytes)
    app.add_middleware(ObserveMiddleware, routes=app.state.routes)  # outermost: every answer is logged and counted
    metrics.watch_pool(database.engine)
    if tracing.enabled():
        tracing.instrument(app, database.engine)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _document(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


def _not_ready(database: Database, blobs: LocalBlobStore | S3BlobStore) -> str | None:
    """What keeps the service from serving (``GET /v1/ready``), or None; never a URL: the answer is public."""
    try:
        database.ping()
    except Exception as exc:  # noqa: BLE001 - whatever the driver raises, the answer is the same
        _log.warning("not ready: the database does not answer (%s: %s)", type(exc).__name__, exc)
        return f"the database does not answer ({type(exc).__name__}); the server log says more"
    if isinstance(blobs, LocalBlobStore) and (problem := blobs.unwritable()) is not None:
        _log.warning("not ready: the blob directory %s cannot be written (%s)", blobs.root, problem[1])
        return "the blob directory cannot be written; the server log says more"
    return None


def preflight(settings: Settings) -> None:
    """Build what a server process builds from ``settings``, then let it go.

    ``creatorpack serve`` calls it before starting the server processes: a setting that cannot work
    (a blob URL, a Redis URL, a database) then fails once, in the parent, rather than in every worker,
    which uvicorn would restart for ever. Raises what :func:`create_app` raises.
    """
    app = create_app(settings)
    limiter = app.state.limiter

    async def check() -> None:
        try:
            if isinstance(limiter, RedisLimiter):
                await limiter.check()
        finally:
            await limiter.close()

    try:
        asyncio.run(check())
    finally:
        app.state.database.dispose()


def _document(app: FastAPI) -> dict[str, Any]:
    from fastapi.openapi.utils import get_openapi  # noqa: PLC0415

    document = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    schemas["Problem"] = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    problem = {
        "content": {errors.PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
    document["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            responses = operation["responses"]
            default_422 = responses.get("422", {}).get("content", {}).get("application/json")
            if default_422 is not None:
                del responses["422"]
                responses.setdefault("400", {"description": "Malformed request (invalid-request)", **problem})
            # More than one Authorization header is 400 on every route, before the route sees it.
            responses.setdefault("400", {"description": "Malformed request (invalid-request)", **problem})
            responses["429"] = {"description": "Rate limited (rate-limited)", **problem}
            responses["431"] = {"description": "Request headers too large (headers-too-large)", **problem}
            if "401" in responses:
                operation.setdefault("security", [{"bearer": []}])  # routes open to anonymous callers set their own
    return document


def openapi_json() -> str:
    """The OpenAPI document as checked in at ``docs/openapi.json`` (built on a throwaway data directory)."""
    import json  # noqa: PLC0415
    import tempfile  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as data:
        app = create_app(Settings(data_dir=Path(data)))
        document = app.openapi()
        app.state.database.dispose()
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"

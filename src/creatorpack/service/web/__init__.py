"""The web pages of ``creatorpack serve``: catalog, pack page, validator, creator dashboard, playtest.

Server-rendered HTML (Jinja2, autoescaped) over the same domain objects as the JSON API
(:class:`~creatorpack.service.api.deps.Services`): a page route reads its form, calls the domain and
renders what the domain returned, exactly as an API route serializes it. Readers are only ever
rendered the reader-view types (:mod:`creatorpack.service.reader`, the runtime's ``ReaderView``).
Every page carries the policy of :mod:`creatorpack.service.api.security`. See docs/web.md.
"""

from __future__ import annotations

from fastapi import FastAPI

from creatorpack.service.ports import KeyStore
from creatorpack.service.web import catalog, creator, play, static, validator
from creatorpack.service.web.cookies import Cookies
from creatorpack.service.web.pagepath import PackPageFastPath

__all__ = ["install"]


def install(app: FastAPI, keys: KeyStore) -> None:
    """Add the pages and their static files to ``app``; ``keys`` holds the cookie-signing key.

    The pack page's fast path goes in as the innermost middleware, so every change it forgets on
    (the API's and the dashboard's) passes through it, whichever other layer serves or passes it.
    """
    app.state.cookies = Cookies(keys)
    for group in (static, catalog, validator, creator, play):
        app.include_router(group.router)
    services = app.state.services
    ttl = services.settings.token_cache_seconds
    app.add_middleware(PackPageFastPath, packs=services.packs, cookies=app.state.cookies, ttl_seconds=ttl)

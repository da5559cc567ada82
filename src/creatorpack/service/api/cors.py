"""CORS (``CREATORPACK_CORS_ORIGINS``): which browser origins may call the API, and what they may send and read.

Off unless origins are configured: without them the middleware is not installed and no response
carries a CORS header. Tokens travel as ``Authorization: Bearer``, never as cookies, so credentialed
requests are not allowed (``Access-Control-Allow-Credentials`` is never sent).
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["ALLOW_HEADERS", "ALLOW_METHODS", "EXPOSE_HEADERS", "MAX_AGE_SECONDS", "cors_options"]

ALLOW_METHODS: Final = ("GET", "HEAD", "POST", "PUT", "DELETE")
"""Every method the API has (OPTIONS is the preflight itself)."""
ALLOW_HEADERS: Final = ("Authorization", "Content-Type", "If-None-Match", "Range", "X-Request-ID")
"""Request headers a page may send beyond the CORS-safelisted ones."""
EXPOSE_HEADERS: Final = (
    "ETag",
    "Link",
    "Location",
    "Retry-After",
    "RateLimit",
    "RateLimit-Policy",
    "Content-Range",
    "Accept-Ranges",
)
"""Response headers a page may read beyond the safelisted ones (``Content-Type``, ``Content-Length``, ...)."""
MAX_AGE_SECONDS: Final = 3600
"""How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours, Firefox at 24)."""


def cors_options(origins: tuple[str, ...]) -> dict[str, Any]:
    """Keyword arguments of Starlette's ``CORSMiddleware`` for ``origins`` (``("*",)``: any origin)."""
    return {
        "allow_origins": origins,
        "allow_methods": ALLOW_METHODS,
        "allow_headers": ALLOW_HEADERS,
        "allow_credentials": False,
        "expose_headers": EXPOSE_HEADERS,
        "max_age": MAX_AGE_SECONDS,
    }

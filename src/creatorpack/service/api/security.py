"""Security headers of what a browser renders: the ``/docs`` page and its assets, and any web page added later.

One policy for all of them: scripts, styles, images and fonts from this origin only, requests
(``fetch``) to this origin only, no plugins, no framing, no referrer sent elsewhere.
"""

from __future__ import annotations

from typing import Final

__all__ = ["CONTENT_SECURITY_POLICY", "PAGE_HEADERS"]

CONTENT_SECURITY_POLICY: Final = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",  # never 'unsafe-inline' or 'unsafe-eval': a page's scripts are files of this origin
        # Swagger UI 5 renders with no inline style element or attribute (React sets styles through the DOM,
        # which CSP does not govern): checked in Chromium, so no 'unsafe-inline' here either.
        "style-src 'self'",
        "img-src 'self' data:",  # Swagger UI's icons are data: URLs in its stylesheet
        "connect-src 'self'",
        "font-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
"""The ``Content-Security-Policy`` of every page and asset served to a browser."""

PAGE_HEADERS: Final = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
}
"""Headers of every page and asset served to a browser (add ``Cache-Control`` to taste)."""

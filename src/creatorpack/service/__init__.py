"""The pack service: accept, validate, store and return packs over HTTP (installed with ``creatorpack[service]``).

Layout: :mod:`~creatorpack.service.ports` (the seams and their fakes), :mod:`~creatorpack.service.packs`,
:mod:`~creatorpack.service.auth` and :mod:`~creatorpack.service.sessions` (the domain; play sessions share
compiled engines through :mod:`~creatorpack.service.engines`), :mod:`~creatorpack.service.store` and
:mod:`~creatorpack.service.blobs` (implementations of the seams), :mod:`~creatorpack.service.api` (HTTP routes)
and :mod:`~creatorpack.service.app` (the one place that wires them together).
"""

from __future__ import annotations

__all__: list[str] = []

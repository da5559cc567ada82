"""HTTP routes by group, a few lines each; :mod:`.errors` turns exceptions into problem+json."""

from __future__ import annotations

__all__: list[str] = []

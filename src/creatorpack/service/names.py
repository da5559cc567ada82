"""Names the platform hands out: pack ids compared for ownership, and account names.

A pack keeps its id as its manifest writes it, but ownership is decided on the id's normalized form,
as PyPI decides project names (PEP 503): case folded and every run of ``-``, ``_`` and ``.`` read as
one ``-``. ``Harbour-light``, ``harbour_light`` and ``harbour.light`` are then one name, and only the
account that holds it may upload under any of its spellings, so no one can pass for another's pack in
the catalog.

Account names are chosen by whoever creates the first token (an operator or an admin), so they follow
a small grammar that every shell, URL and log line takes as it is.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["ACCOUNT_GRAMMAR", "ACCOUNT_PATTERN", "account_problem", "normalize_pack_id"]

_SEPARATORS: Final = re.compile(r"[-_.]+")

ACCOUNT_PATTERN: Final = r"^[a-z0-9](?:[a-z0-9._-]{0,38}[a-z0-9])?$"
"""Lower-case letters and digits, with ``.``, ``_`` or ``-`` inside; 1 to 40 characters."""
ACCOUNT_GRAMMAR: Final = (
    "an account name is 1 to 40 characters: lower-case ASCII letters and digits, "
    "with '.', '_' or '-' between them (not first or last)"
)
_ACCOUNT: Final = re.compile(ACCOUNT_PATTERN)


def normalize_pack_id(pack_id: str) -> str:
    """The form of ``pack_id`` that ownership is decided on: lower case, separator runs as one ``-``."""
    return _SEPARATORS.sub("-", pack_id).lower()


def account_problem(name: str) -> str | None:
    """Why ``name`` is no account name a new account may take, or None when it is one."""
    if _ACCOUNT.fullmatch(name) is None:
        return ACCOUNT_GRAMMAR
    return None

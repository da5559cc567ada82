"""Did-you-mean suggestions for lint: the contract's nearest-name rule, and counted "known:" lists."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final

from creatorpack.contract import suggest

__all__ = ["Suggester", "did_you_mean", "known_list", "nearest"]

_ID_EDITS: Final = 2
"""The most edits between a misspelt id and the id suggested for it (a typo: ``kepeer``, ``opning``)."""


def nearest(word: str, candidates: Iterable[str], *, loose: bool = True) -> str | None:
    """The candidate nearest to ``word``: validation's rule, then for a short list a looser one (``increase``).

    ``loose=False`` is for a pack's own ids: validation's rule, and at most :data:`_ID_EDITS` edits,
    because ids share long stems and suffixes, and a third of ``tobias_portrait`` would offer
    another character's art (``mara_portrait``) for a missing one.
    """
    options = [c for c in candidates if c != word]
    found = suggest.nearest(word, options, loose=loose)
    if found is not None and not loose and suggest.distance(word.casefold(), found.casefold(), _ID_EDITS) > _ID_EDITS:
        return None
    return found


def did_you_mean(word: str, candidates: Iterable[str], *, loose: bool = True) -> str:
    """``"; did you mean 'x'?"`` for the nearest candidate, or an empty string."""
    found = nearest(word, candidates, loose=loose)
    return f"; did you mean {found!r}?" if found is not None else ""


def known_list(names: Collection[str]) -> str:
    """The names in order, the first few then how many more there are; ``none`` for no names."""
    return suggest.known(sorted(names)) if names else "none"


class Suggester:
    """Suggestions within a budget of name comparisons (well under a second), so a pack full of typos stays fast."""

    def __init__(self, budget: int = 50_000) -> None:
        self.budget = budget

    def suggest(self, word: str, candidates: Collection[str], *, loose: bool = False) -> str:
        """Like :func:`did_you_mean`, or an empty string once the budget is spent.

        Strict by default (a pack's ids); ``loose`` for a closed vocabulary such as an enum's values.
        """
        if self.budget < len(candidates):
            return ""
        self.budget -= len(candidates)
        return did_you_mean(word, candidates, loose=loose)

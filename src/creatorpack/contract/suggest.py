"""Did-you-mean suggestions: the nearest known name to a misspelt one, and short lists of names.

Distance is the optimal string alignment distance (Damerau-Levenshtein with adjacent
transpositions: ``titel`` is one edit from ``title``); a name that differs only in case is
nearer than any other. A candidate counts when it is at most a third of the word's length away
(at least one edit; for names of one or two characters, only a difference in case counts).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from typing import Final

__all__ = ["LOOSE", "distance", "known", "nearest"]

_SHOWN: Final = 12
LOOSE: Final = 64
"""Up to this many candidates (a closed vocabulary), :func:`nearest` may try a looser match too."""


def distance(a: str, b: str, limit: int | None = None) -> int:
    """Optimal string alignment distance between ``a`` and ``b`` (early exit above ``limit``)."""
    if a == b:
        return 0
    if limit is not None and abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, char_b in enumerate(b, 1):
            cost = char_a != char_b
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                best = min(best, previous2[j - 2] + 1)
            current[j] = best
        if limit is not None and min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def nearest(word: str, candidates: Iterable[str], *, loose: bool = False) -> str | None:
    """The candidate nearest to ``word``, or ``None`` when none is near enough to suggest.

    ``loose`` is for a short, closed vocabulary (an observation's choices, an enum): when no
    candidate is within the edits allowed, the closest by :mod:`difflib` is offered (``open``
    for ``opened``), as long as there are at most :data:`LOOSE` candidates.
    """
    options = list(candidates)
    found = _nearest(word, options)
    if found is None and loose and len(options) <= LOOSE:
        close = difflib.get_close_matches(word, [c for c in options if c != word], n=1, cutoff=0.6)
        found = close[0] if close else None
    return found


def _nearest(word: str, candidates: Iterable[str]) -> str | None:
    folded = word.casefold()
    limit = max(1, len(word) // 3) if len(word) > 2 else 0  # "fr" is no typo of "en"
    best: tuple[int, str] | None = None
    for candidate in candidates:
        if candidate == word:
            continue
        score = 0 if candidate.casefold() == folded else distance(folded, candidate.casefold(), limit) + 1
        if score <= limit + 1 and (best is None or score < best[0]):
            best = (score, candidate)
    return None if best is None else best[1]


def known(names: Sequence[str], render: Callable[[str], str] = str, shown: int = _SHOWN) -> str:
    """``a, b, c`` for a short list; the first ``shown`` and ``and 7 more`` for a long one."""
    if len(names) <= shown:
        return ", ".join(render(name) for name in names)
    head = ", ".join(render(name) for name in names[:shown])
    return f"{head} and {len(names) - shown} more"

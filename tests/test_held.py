"""The active rules a turn carries (``Held``) agree with the active rules found afresh, after any flips.

``Held.after`` splices the active rules' ids and instructions where the rules whose ``when``
flipped or that completed stand, finding where by counting marks; deferred flips and completions
are looked at with the next call. Whatever the order, the ids and instructions must be those
``Held.of`` finds on the same values and completed rules, in document order.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from creatorpack.play._open import Held, picker

_RULES = 12
_CONDITIONS = 8


@st.composite
def _table(draw: st.DrawFn) -> tuple[list[str], list[int], list[str | None]]:
    """Rules: ids (some repeated, as packs may), their ``when`` conditions (shared by some), instructions."""
    count = draw(st.integers(1, _RULES))
    ids = [f"r{draw(st.integers(0, count))}" for _ in range(count)]
    whens = [draw(st.integers(0, _CONDITIONS - 1)) for _ in range(count)]
    instructions = [draw(st.none() | st.sampled_from(["go", "look", ""])) for _ in range(count)]
    return ids, whens, instructions


def _fresh(values: list[bool], whens: list[int], ids: list[str], instructions: list[Any], done: frozenset[str]) -> Held:
    closed = [p for p, ident in enumerate(ids) if ident in done]
    return Held.of(values, picker(whens), closed, ids, instructions, (None, None))


_turn = st.tuples(
    st.lists(st.booleans(), min_size=_CONDITIONS, max_size=_CONDITIONS),  # the values after the turn's first part
    st.lists(st.booleans(), min_size=_CONDITIONS, max_size=_CONDITIONS),  # after its second (deferred)
    st.sets(st.integers(0, _RULES)),  # the rule ids completed by the turn
)


@settings(max_examples=400, deadline=None)
@given(
    table=_table(),
    start=st.lists(st.booleans(), min_size=_CONDITIONS, max_size=_CONDITIONS),
    turns=st.lists(_turn, max_size=5),
)
def test_the_active_rules_carried_from_turn_to_turn_are_those_found_afresh(
    table: tuple[list[str], list[int], list[str | None]], start: list[bool], turns: list[Any]
) -> None:
    ids, whens, instructions = table
    by_when: dict[int, tuple[int, ...]] = {}
    for position, when in enumerate(whens):
        by_when[when] = (*by_when.get(when, ()), position)
    done: frozenset[str] = frozenset()
    values = start
    held = _fresh(values, whens, ids, instructions, done)
    for first, second, completing in turns:
        flipped = [i for i in range(_CONDITIONS) if first[i] != values[i]]
        held = held.after(first, flipped, by_when, ids, instructions, done, (None, None))
        expected = _fresh(first, whens, ids, instructions, done)
        assert (held.ids, held.texts, held.marks) == (expected.ids, expected.texts, expected.marks)
        newly = frozenset(f"r{n}" for n in completing) - done
        done = done | newly
        closed = [p for p, ident in enumerate(ids) if ident in newly]
        later = [i for i in range(_CONDITIONS) if second[i] != first[i]]
        held = held.after(second, later, by_when, ids, instructions, done, (None, None), closed, defer=True)
        values = second
    held = held.after(values, [], by_when, ids, instructions, done, (None, None))
    expected = _fresh(values, whens, ids, instructions, done)
    assert (held.ids, held.texts, held.marks) == (expected.ids, expected.texts, expected.marks)


def test_the_list_of_values_a_turn_leaves_is_taken_once() -> None:
    values = (True, False)
    held = Held.of(values, picker([0, 1]), (), ("a", "b"), (None, None), (values, frozenset()))
    spare = list(values)
    held = held.after(
        values, [], {}, ("a", "b"), (None, None), frozenset(), (values, frozenset()), defer=True, spare=spare
    )
    assert held.take(values) is spare  # the first taker has the list the turn left
    copy = held.take(values)  # a later one (a session stepped twice), a copy of its own
    assert copy == spare
    assert copy is not spare

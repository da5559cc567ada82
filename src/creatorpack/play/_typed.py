"""Which state members a pack's sessions always hold, typed: what lets a condition skip its presence and type tests.

A condition's generic code tests that a member is there and of the type its comparison needs
(``'c4' in s and type(v := s['c4']) in _N and v >= 5``), since it must be exact on any JSON state.
A state that holds the member, with the Python type its schema type gives, needs neither
(``s['c4'] >= 5``). :func:`shape_of` finds the members every runtime entry's initial state has
(a schema need not make them ``required``); :meth:`Shape.fits` tells whether a state holds them
so typed. Effects keep that true: ``increment`` writes an int where there was an int, ``add``
and ``remove`` a list where there was a list, and none removes a member (``play/state.py``); so
a turn's state fits when the state it started from did. A state that does not fit (a hand-built
session, a save with members missing, a state changed in place) is evaluated by the generic
code, as before: the engine checks each state it is given (:meth:`Program.fitted`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from creatorpack.play.conditions import MISSING

__all__ = ["Shape", "shape_of"]

_TYPES: Final[Mapping[str, tuple[type, ...]]] = {
    "integer": (int, float),  # the contract's integers include 3.0; order and equality tests treat both alike
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}
"""A schema type -> the Python types a value of it may have for typed code (exactly: no subclasses)."""


@dataclass(frozen=True, slots=True)
class Shape:
    """The members a state must hold, typed, for code generated with :attr:`paths` to be exact on it."""

    members: tuple[tuple[str, tuple[type, ...], Shape | None], ...]
    """Each member: its name, the types its value may have, and the shape inside it (an object's)."""
    paths: Mapping[tuple[str, ...], str]
    """Every path the shape holds -> its schema type (what the code generator takes as ``typed``)."""

    def fits(self, state: Any) -> bool:
        """Whether ``state`` (a dict) holds every member, each of one of its types, and fits inside."""
        if type(state) is not dict:
            return False
        for key, types, inner in self.members:
            value = state.get(key, MISSING)
            if type(value) not in types or (inner is not None and not inner.fits(value)):
                return False
        return True


def shape_of(schema: Mapping[str, Any], states: Sequence[Any], at: tuple[str, ...] = ()) -> Shape:
    """The members of ``schema`` that all of ``states`` (the entries' initial states) have, recursively.

    Only members of the four types typed code knows; none when there are no states.
    """
    members: list[tuple[str, tuple[type, ...], Shape | None]] = []
    paths: dict[tuple[str, ...], str] = {}
    properties = schema.get("properties")
    for key, child in properties.items() if isinstance(properties, Mapping) else ():
        kind = child.get("type") if isinstance(child, Mapping) else None
        if not isinstance(kind, str) or kind not in _TYPES or not states:
            continue
        if not all(isinstance(s, Mapping) and key in s for s in states):
            continue
        inner = shape_of(child, [s[key] for s in states], (*at, key)) if kind == "object" else None
        members.append((key, _TYPES[kind], inner))
        paths[(*at, key)] = kind
        if inner is not None:
            paths.update(inner.paths)
    return Shape(tuple(members), paths)

"""Artwork that is not there when its reward comes: an achievement or ending that unlocks before its art is revealed.

An achievement's (or an ending's) ``artwork_asset_id`` is what the reader is shown when it
unlocks; but the reader view serves an asset only once the asset's own ``reveal_when`` has held
(a ``reward_only`` one, once a reward gives it, too). When the art's ``reveal_when`` does not
hold yet at the turn the achievement unlocks, play shows the achievement without its art.

The check replays the reachability search's witness for each goal, so a finding is a play that
really shows it (the turns ``creatorpack lint --explain ID`` prints), never a guess. Witnesses of
one search share their first turns (the sweep's tree, the plays from a start), so they are
replayed in the order of their turns, each shared turn played once.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Final

import orjson

from creatorpack.contract.conditions import Goal
from creatorpack.contract.findings import RawFinding
from creatorpack.play.engine import Engine, Turn
from creatorpack.play.model import SessionState
from creatorpack.play.step import reachable_assets

if TYPE_CHECKING:
    from creatorpack.lint.reach._witness import Reached

__all__ = ["check_unrevealed_artwork", "final_states"]

_KINDS: Final = (("achievements", "achievement"), ("endings", "ending"))


def check_unrevealed_artwork(
    pack: Mapping[str, object], witnesses: Mapping[Goal, Reached], engine: Engine | None = None
) -> Iterator[RawFinding]:
    """An ``artwork-not-revealed`` finding for each goal whose witness unlocks it with its art not yet served.

    ``engine``, when given, is the pack's (the one the search played).
    """
    try:
        engine = Engine(pack) if engine is None else engine
    except Exception:  # noqa: BLE001 - an unplayable pack is reported by the other checks
        return
    program = engine.program
    progression = pack.get("progression")
    if not isinstance(progression, Mapping):
        return
    checked: list[tuple[str, str, int, str, Goal, Reached]] = []
    for member, kind in _KINDS:
        items = progression.get(member)
        for position, item in enumerate(items if isinstance(items, list) else []):
            if not isinstance(item, Mapping) or not isinstance(item.get("id"), str):
                continue
            art = item.get("artwork_asset_id")
            goal = Goal(kind, item["id"])
            reached = witnesses.get(goal)
            if isinstance(art, str) and art in program.assets and reached is not None:
                checked.append((member, kind, position, art, goal, reached))
    # Reveals last: art revealed at the start of a play's entry (and given by no reward) is served when it ends.
    starts = {entry: engine.start(entry)[0] for entry in {reached.entry for *_, reached in checked}}
    checked = [
        (member, kind, position, art, goal, reached)
        for member, kind, position, art, goal, reached in checked
        if not _served_from_start(program.assets[art], art, starts[reached.entry])
    ]
    ends = final_states(engine, [reached for *_, reached in checked])
    for (member, kind, position, art, goal, reached), session in zip(checked, ends, strict=True):
        if art in reachable_assets(program, session):
            continue
        turns = len(reached.turns)
        yield RawFinding(
            ("progression", member, position, "artwork_asset_id"),
            "artwork-not-revealed",
            f"{kind} {goal.id!r} can unlock before its artwork {art!r} is revealed (after {turns} "
            f"turn{'s' if turns != 1 else ''} from entry {reached.entry!r}: creatorpack lint --explain "
            f"{goal}), so the reader sees it without its art; make the asset's `reveal_when` "
            f"hold whenever the {kind}'s `when` does",
        )


def _served_from_start(asset: Mapping[str, object], art: str, start: SessionState) -> bool:
    """Whether ``art`` is served in every session from ``start``: revealed there (reveals last) and not reward-only."""
    return asset.get("access", "standard") != "reward_only" and art in start.revealed.get("assets", ())


def final_states(engine: Engine, plays: Sequence[Reached]) -> list[SessionState]:
    """The session each play ends in; a turn that plays share from their start is played once.

    The plays are replayed in the order of their entries and turns, keeping only the states along
    the one being replayed, so the memory is one play's, whatever their number.
    """
    keyed = [
        (play.entry, tuple(orjson.dumps(move, option=orjson.OPT_SORT_KEYS) for move in play.turns)) for play in plays
    ]
    found: list[SessionState | None] = [None] * len(plays)
    entry: str | None = None
    along: tuple[bytes, ...] = ()
    path: list[SessionState] = []  # the states after 0, 1, 2, ... of the turns ``along``
    for index in sorted(range(len(plays)), key=keyed.__getitem__):
        play, (start, moves) = plays[index], keyed[index]
        if start != entry or not path:
            path, along, entry = [engine.start(play.entry)[0]], (), start
        shared = 0
        while shared < min(len(along), len(moves)) and along[shared] == moves[shared]:
            shared += 1
        del path[shared + 1 :]
        for move in play.turns[shared:]:
            path.append(engine.advance(path[-1], Turn(move))[0])
        along = moves
        found[index] = path[-1]
    return [session for session in found if session is not None]

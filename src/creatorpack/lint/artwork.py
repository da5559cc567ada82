"""Artwork that is not there when its reward comes: an achievement or ending that unlocks before its art is revealed.

An achievement's (or an ending's) ``artwork_asset_id`` is what the reader is shown when it
unlocks; but the reader view serves an asset only once the asset's own ``reveal_when`` has held
(a ``reward_only`` one, once a reward gives it, too). When the art's ``reveal_when`` does not
hold yet at the turn the achievement unlocks, play shows the achievement without its art.

The check replays the reachability search's witness for each goal, so a finding is a play that
really shows it (the turns ``creatorpack lint --explain ID`` prints), never a guess.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Final

from creatorpack.contract.conditions import Goal
from creatorpack.contract.findings import RawFinding
from creatorpack.play.engine import Engine, Session
from creatorpack.play.step import reachable_assets

if TYPE_CHECKING:
    from creatorpack.lint.reach._witness import Reached

__all__ = ["check_unrevealed_artwork"]

_KINDS: Final = (("achievements", "achievement"), ("endings", "ending"))


def check_unrevealed_artwork(pack: Mapping[str, object], witnesses: Mapping[Goal, Reached]) -> Iterator[RawFinding]:
    """An ``artwork-not-revealed`` finding for each goal whose witness unlocks it with its art not yet served."""
    try:
        engine = Engine(pack)
    except Exception:  # noqa: BLE001 - an unplayable pack is reported by the other checks
        return
    program = engine.program
    progression = pack.get("progression")
    if not isinstance(progression, Mapping):
        return
    for member, kind in _KINDS:
        items = progression.get(member)
        for position, item in enumerate(items if isinstance(items, list) else []):
            if not isinstance(item, Mapping) or not isinstance(item.get("id"), str):
                continue
            art = item.get("artwork_asset_id")
            goal = Goal(kind, item["id"])
            reached = witnesses.get(goal)
            if not isinstance(art, str) or art not in program.assets or reached is None:
                continue
            session = Session.start(engine, reached.entry)
            for turn in reached.turns:
                session.turn(turn)
            if art in reachable_assets(program, session.state):
                continue
            turns = len(reached.turns)
            yield RawFinding(
                ("progression", member, position, "artwork_asset_id"),
                "artwork-not-revealed",
                f"{kind} {item['id']!r} can unlock before its artwork {art!r} is revealed (after {turns} "
                f"turn{'s' if turns != 1 else ''} from entry {reached.entry!r}: creatorpack lint --explain "
                f"{goal}), so the reader sees it without its art; make the asset's `reveal_when` "
                f"hold whenever the {kind}'s `when` does",
            )

"""``Engine.describe`` (a session as it shows now) and ``Engine.reachable_assets``."""

from __future__ import annotations

from creatorpack.play import Engine, Session

from .test_runtime import PACK


def test_describe_is_the_last_turn_without_what_the_turn_did() -> None:
    engine = Engine.from_source(PACK)
    session = Session.start(engine)
    session.turn({"helped": True})
    last = session.turn({"helped": True})
    loaded = engine.load(session.save())
    now = engine.describe(loaded)
    assert now.turn == last.turn == 2
    assert now.state == last.state
    assert now.revealed == last.revealed
    assert now.achievements == last.achievements
    assert now.completed_rules == last.completed_rules
    assert now.content == last.content
    assert now.guidance == last.guidance
    assert (now.active_rules, now.instructions, now.new_achievements, now.new_badges) == ((), (), (), ())
    assert all(ids == () for ids in now.new_revealed.values())
    assert now.illustration is None


def test_reachable_assets_hold_a_reward_only_asset_back_until_its_reward() -> None:
    engine = Engine.from_source(PACK)
    session = Session.start(engine)
    assert engine.reachable_assets(session.state) == ("face",)
    session.turn({"helped": True})
    assert "art" not in engine.reachable_assets(session.state)
    result = session.turn({"helped": True})  # friend unlocks; its artwork is art
    assert engine.reachable_assets(session.state) == result.reachable_assets
    assert "art" in engine.reachable_assets(session.state)

"""Helpers for testing packs and hosts: play scripted turns and check what happened.

Example (pytest)::

    from creatorpack.testing import play

    def test_trust_leads_to_the_good_ending():
        run = play("pack.json", [{"observations": {"helped": True}}] * 3)
        assert run.ending == "keeper_of_the_light"
        assert "first_friend" in run.achievements
"""

from __future__ import annotations

from creatorpack.play.scripted import Playthrough, parse_script, play

__all__ = ["Playthrough", "parse_script", "play"]

"""Helpers for testing packs and hosts: play scripted turns and check what happened.

Example (pytest)::

    from pathlib import Path

    from creatorpack.testing import play

    def test_trust_leads_to_the_good_ending():
        run = play(Path("pack.json"), [{"observations": {"helped": True}}] * 3)
        assert run.ending == "keeper_of_the_light"
        assert "first_friend" in run.achievements

A script read with :func:`parse_script` carries the entry its ``# entry: ID`` line names, and
:func:`play` starts there unless given another ``entry`` (which is then an error).
"""

from __future__ import annotations

from creatorpack.play.scripted import ENTRY_DIRECTIVE, Playthrough, Script, parse_script, play, script_entry

__all__ = ["ENTRY_DIRECTIVE", "Playthrough", "Script", "parse_script", "play", "script_entry"]

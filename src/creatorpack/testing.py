"""Helpers for testing packs and hosts: play scripted turns and check what happened.

Example (pytest)::

    from pathlib import Path

    from creatorpack.testing import play

    def test_trust_leads_to_the_good_ending():
        run = play(Path("pack.json"), [{"observations": {"helped": True}}] * 3)
        assert run.ending == "keeper_of_the_light"
        assert "first_friend" in run.achievements

The narrator's model has fakes here too: :class:`ScriptedModel` (in process) and
:class:`FakeModelServer` (an OpenAI-compatible server on 127.0.0.1), see :mod:`creatorpack.narrate.fake`.

A script read with :func:`parse_script` carries the entry its ``# entry: ID`` line names, and
:func:`play` starts there unless given another ``entry`` (which is then an error).
"""

from __future__ import annotations

from creatorpack.narrate.fake import FakeModelServer, ScriptedModel
from creatorpack.play.scripted import ENTRY_DIRECTIVE, Playthrough, Script, parse_script, play, script_entry

__all__ = [
    "ENTRY_DIRECTIVE",
    "FakeModelServer",
    "Playthrough",
    "Script",
    "ScriptedModel",
    "parse_script",
    "play",
    "script_entry",
]

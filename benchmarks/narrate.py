"""The narrator's own cost per turn, around the model call, beside the in-process turn it wraps.

A narrated turn builds the prompt from the narrator view, runs the spoiler guard on the streamed
narration, builds and checks the structured answers, then plays the turn. With a model that
answers at once (``ScriptedModel``), what is left is creatorpack's overhead: the figure the issue
bounds (under 5 ms on the rich example), printed beside a bare ``Session.turn`` of the same answers.

Usage: python benchmarks/narrate.py [--quick]
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from creatorpack.narrate import Narrator
from creatorpack.narrate.fake import ScriptedModel
from creatorpack.play import Session

RICH = Path(__file__).resolve().parents[1] / "examples" / "0.5" / "rich.json"
NARRATION = (
    "The fog presses against the windows of the ferry office. Down on the quay the stranger shivers, and "
    "somewhere above the harbour a door bangs in the wind. You wait, listening, as the lantern comes down "
    "the cliff path towards you, swinging with every step. "
) * 3  # about 150 words, a short scene


def main() -> None:
    quick = "--quick" in sys.argv
    turns = 20 if quick else 100
    answer: dict[str, bool | str] = {"helped_stranger": False, "met_mara": False, "lamp_choice": "left_dark"}
    bare, narrated = [], []
    for _ in range(turns):
        session = Session.start(RICH)
        started = time.perf_counter()
        session.turn({**answer, "found_key": False, "gave_key": False})
        bare.append(time.perf_counter() - started)
        model = ScriptedModel([NARRATION], [])  # answers: the first allowed value of each property
        narrator = Narrator(Session.start(RICH), model)
        started = time.perf_counter()
        narrator.narrate("I wait by the window")
        narrated.append(time.perf_counter() - started)
    bare_ms = statistics.median(bare) * 1000
    narrated_ms = statistics.median(narrated) * 1000
    print(json.dumps({"rich.json": "examples/0.5/rich.json", "turns": turns}))
    print(f"{'in-process turn (Session.turn)':<44} median {bare_ms:7.3f} ms")
    print(f"{'narrated turn, instant model (Narrator)':<44} median {narrated_ms:7.3f} ms")
    print(f"{'creatorpack overhead around the model':<44} median {narrated_ms - bare_ms:7.3f} ms (bound: 5 ms)")


if __name__ == "__main__":
    main()

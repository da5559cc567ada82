"""The inductive box phase of lint (``lint/reach/_inductive.py``) on the runtime benchmark pack (issue 32).

Replaces the measurements of ``_cone.py``, ``cone_box.py`` and ``cone_phase.py`` (docs/performance.md,
sixth stop), which the package's encoding and phase now are. Plays the guided search as a default
lint does (its played states seed the candidate), then times the phase, its parts (the encoding,
the candidate, the rounds; z3 queries and the branch and bound) and ``by_turn`` alone, and counts
the goals the box proves beyond the analysis's own box. CPU seconds (``time.process_time``).

Usage: python benchmarks/inductive_box.py
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _packgen import make_runtime_pack
from creatorpack.lint.reach import _decide, _encode, _inductive
from creatorpack.lint.reach._abstract import analyse
from creatorpack.lint.reach._turns import by_turn
from creatorpack.lint.reach._witness import Search
from creatorpack.play.engine import Engine


def _timed(owner: Any, name: str, spent: dict[str, float]) -> None:
    """Wrap ``owner.name`` so that its CPU seconds add up in ``spent[name]``."""
    inner: Callable[..., Any] = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.process_time() - started

    setattr(owner, name, timed)


def main() -> None:
    engine = Engine(make_runtime_pack())
    analysis = analyse(engine.program, engine.entries[0], engine.entry_ids()[0])
    goals = _decide.targets(engine)
    proofs = {t.goal: r for t in goals if (r := _decide._proof(t, [analysis])) is not None}
    unproved = [t for t in goals if t.goal not in proofs]
    started = time.process_time()
    search = Search(engine, unproved, _decide.WALK_TURNS, time.monotonic() + 1e9, time.monotonic, [analysis])
    found: dict[Any, Any] = {}
    _decide._search(search, proofs, goals, found)
    states = [s.state for s in search.played_states() if s.entry == analysis.entry]
    print(f"guided search: {time.process_time() - started:.2f} s, {len(states)} turns played")
    started = time.process_time()
    trace = by_turn(analysis)
    print(f"by_turn alone: {time.process_time() - started:.2f} s, {len(trace.after) if trace else 0} boxes")
    spent: dict[str, float] = {}
    for owner, name in (
        (_encode.Encoder, "turn"),
        (_inductive._Asker, "ask"),
        (_inductive._Bnb, "build"),
        (_inductive._Bnb, "sides"),
        (_inductive, "_candidate"),
        (_inductive, "_rounds"),
    ):
        _timed(owner, name, spent)
    started = time.process_time()
    box = _inductive.inductive_box(analysis, states)
    assert box is not None
    parts = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in spent.items())
    print(f"the phase: {time.process_time() - started:.2f} s, {box.queries} z3 queries ({parts})")
    left = [t for t in unproved if t.goal not in found and t.goal not in proofs]
    proved = Counter(t.kind for t in left if _decide._box_proof(t, [analysis], [box]) is not None)
    counted = [t for t in goals if t.kind in ("rule", "achievement")]
    open_ = [t for t in left if t.kind in ("rule", "achievement") and _decide._box_proof(t, [analysis], [box]) is None]
    print(
        f"goals the guided search and the analysis leave: {len(left)}; the box proves {dict(proved)}; rules and "
        f"achievements decided without the exhaustive search: {1 - len(open_) / len(counted):.2%}"
    )


if __name__ == "__main__":
    main()

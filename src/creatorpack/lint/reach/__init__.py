"""Reachability: for every goal of a pack, a proof that no play reaches it or a play that does.

One entry point, :func:`decide`; the linter turns its :class:`Outcome` into findings, witnesses
and proofs. Inside, in the order :func:`decide` runs them:

- ``_sat``: satisfiability of one condition over the schema's bounds and enums (``never-holds``);
- ``_abstract``: abstract interpretation of every reachable state as one box per entry;
- ``_exhaust``: the exhaustive search over distinct states, a decision procedure where it finishes,
  with ``_successor``, a turn specialised for it;
- ``_witness`` and ``_bnb``: the guided search for witnesses where it does not, with a branch and
  bound over one turn's shared answers;
- ``_turns``: boxes turn by turn, for proofs of what the searches leave open;
- ``_inductive`` and ``_encode``: an inductive box per entry, checked with z3, for what is open then;
  ``_beside`` runs it in a worker thread beside the searches on a big pack;
- ``_decide``: :func:`decide` itself, and the messages of its findings.
"""

from __future__ import annotations

from creatorpack.lint.reach._decide import KINDS, REVEAL_KINDS, Outcome, decide, targets

__all__ = ["KINDS", "REVEAL_KINDS", "Outcome", "decide", "targets"]

"""Lint speed: the ~10 MB validation benchmark pack without the reachability search; then whole
default lints (reachability included) of the rich examples, their planted variants, a shop pack
(1,000 purchases from one purse) and the runtime benchmark pack (10,000 rules, 1,000
achievements) and the story pack (the same size, shaped like a story, with 100 side stories of
the shapes only a relation decides), with the goals each decides and both bars.

Columns: goals proved unreachable (of them, by the exhaustive search: "all st", and by the boxes turn
by turn or the inductive box: "boxes"), witnessed, the share decided, the witnesses' median and
longest length in turns, the states the exhaustive search explored, the turns played in all, and
the whole lint's time.

Usage: python benchmarks/lint.py [--quick] [--wide] [--z3] [--spacer] [--only exhaustive]
  --only exhaustive  the exhaustive search's cost per state alone (its table, nothing else)
  --wide  the runtime pack again with 4x the turns
  --z3    the solver comparison: the same goals by bounded model checking and 1-induction with z3
          (z3-solver, which lint itself uses only for its inductive box phase; see docs/performance.md)
  --spacer  relational invariants by z3's Spacer (constrained Horn clauses) on the goals the
          exhaustive search proves and on those lint leaves undecided, for the choice in the docs
"""

from __future__ import annotations

import importlib
import statistics
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

import creatorpack
from _packgen import make_pack, make_runtime_pack, make_shop_pack, make_story_pack
from creatorpack.contract.conditions import Goal
from creatorpack.lint import reach as _reach
from creatorpack.lint.linter import LintConfig, lint
from creatorpack.lint.reach import _exhaust
from creatorpack.lint.reach._abstract import IntRange, _Checker, _Const, _Var, analyse
from creatorpack.play.engine import Engine


def main() -> None:
    quick = "--quick" in sys.argv
    if "--only" in sys.argv:
        which = sys.argv[sys.argv.index("--only") + 1 :][:1]
        if which != ["exhaustive"]:
            raise SystemExit("--only takes one table: exhaustive")
        _state_cost(quick=quick)
        return
    repeat = 3 if quick else 7
    data = orjson.dumps(make_pack(10_000_000), option=orjson.OPT_INDENT_2)
    validate_times, lint_times = [], []
    for _ in range(repeat):
        began = time.perf_counter()
        creatorpack.validate(data)
        validate_times.append(time.perf_counter() - began)
        began = time.perf_counter()
        report = lint(data, LintConfig(reachability=False))
        lint_times.append(time.perf_counter() - began)
    codes: dict[str, int] = {}
    for finding in report.findings:
        codes[finding.code] = codes.get(finding.code, 0) + 1
    print(f"~10 MB pack ({len(data) / 1e6:.1f} MB), medians of {repeat} runs")
    print(f"| {'what':<52} | {'median':>10} |")
    print("|" + "-" * 54 + "|" + "-" * 12 + "|")
    print(f"| {'creatorpack.validate (for reference)':<52} | {statistics.median(validate_times) * 1000:>7.0f} ms |")
    lint_ms = statistics.median(lint_times) * 1000
    print(f"| {'lint, no reachability search (validation included)':<52} | {lint_ms:>7.0f} ms |")
    print(f"findings: {codes}")
    print(f"bar: lint of the ~10 MB pack <= 2 s: {'met' if statistics.median(lint_times) <= 2 else 'NOT met'}")

    _reachability(quick=quick, wide="--wide" in sys.argv)
    _state_cost(quick=quick)
    if "--z3" in sys.argv:
        _solver_comparison(quick=quick)
    if "--spacer" in sys.argv:
        _spacer_comparison(quick=quick)


@dataclass(frozen=True)
class _Measured:
    """A timed lint of a pack: the search's outcome, the seconds, and the lint errors that kept it from searching."""

    outcome: _reach.Outcome
    seconds: float
    errors: int = 0


def _lint(pack: dict[str, Any], config: LintConfig) -> _Measured:
    """Time a whole ``creatorpack.lint`` (validation, every check, reachability) of ``pack``.

    The search's :class:`~creatorpack.lint.reach._decide.Outcome` (the goals it decided, the turns it
    played) is caught on its way out of ``_reach.decide``; the report's ``witnesses`` and
    ``proofs`` are built from it. A pack with lint errors is not searched by a default lint (the
    search needs an error-free pack); the search is then timed on its own and added to the lint's
    time, which is what a default lint costs once those errors are fixed.
    """
    text = orjson.dumps(pack)
    caught: list[_reach.Outcome] = []
    decide = _reach.decide

    def spy(*args: Any, **kwargs: Any) -> _reach.Outcome:
        outcome = decide(*args, **kwargs)
        caught.append(outcome)
        return outcome

    _reach.decide = spy
    try:
        began = time.perf_counter()
        report = lint(text, config)
        seconds = time.perf_counter() - began
    finally:
        _reach.decide = decide
    if caught:
        return _Measured(caught[0], seconds)
    began = time.perf_counter()
    outcome = decide(orjson.loads(text), config.max_states, config.max_seconds, time.monotonic)
    return _Measured(outcome, seconds + time.perf_counter() - began, len(report.errors))


def _row(name: str, measured: _Measured, kinds: tuple[str, ...]) -> float:
    """Print one table row; return the share of goals decided (0 when there are none)."""
    goals = [t for t in measured.outcome.targets if t.kind in kinds]
    proved = sum(t.goal in measured.outcome.proofs for t in goals)
    turnwise = sum(
        "turn by turn" in (reason := measured.outcome.proofs.get(t.goal, "")) or "inductive invariant" in reason
        for t in goals
    )
    witnessed = [measured.outcome.witnesses[t.goal] for t in goals if t.goal in measured.outcome.witnesses]
    decided = (proved + len(witnessed)) / len(goals) if goals else 0.0
    lengths = sorted(len(w.turns) for w in witnessed)
    median = lengths[len(lengths) // 2] if lengths else 0
    exhaustively = sum("reachable states were explored" in measured.outcome.proofs.get(t.goal, "") for t in goals)
    print(
        f"| {name:<40} | {len(goals):>6,} | {proved:>6,} | {exhaustively:>6,} | {turnwise:>7,} | {len(witnessed):>7,} "
        f"| {decided:>8.1%} | {median:>3} / {lengths[-1] if lengths else 0:>3} | {measured.outcome.states:>7,} "
        f"| {measured.outcome.turns_played:>7,} | {measured.seconds:>6.2f} s |"
    )
    return decided


def _reachability(*, quick: bool, wide: bool) -> None:
    """Goals decided (proved unreachable or witnessed) by a default lint, and the time the whole lint took."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.reach_packs import SHAPES
    from tests.test_reachability import PLANTED

    config = LintConfig()
    print(f"\nReachability decided by a default creatorpack.lint ({config.max_states:,} states; deterministic):")
    print(
        f"| {'pack':<40} | {'goals':>6} | {'proved':>6} | {'all st':>6} | {'boxes':>7} | {'witness':>7} "
        f"| {'decided':>8} | med/max | {'states':>7} | {'turns':>7} | {'lint':>8} |"
    )
    print("|" + "|".join("-" * n for n in (42, 8, 8, 8, 9, 9, 10, 9, 9, 9, 10)) + "|")
    every = tuple(_reach.KINDS)  # achievements, endings, rules, completions and reveals
    root = Path(__file__).resolve().parent.parent / "examples"
    small: list[tuple[float, float]] = []
    for version in ("0.3", "0.4", "0.5"):
        measured = _lint(orjson.loads((root / version / "rich.json").read_bytes()), config)
        small.append((_row(f"rich {version} example", measured, every), measured.seconds))
    for name, (make, _, _) in PLANTED.items():
        measured = _lint(make(), config)
        small.append((_row(f"rich 0.5 + planted {name}", measured, every), measured.seconds))
    for name, (make, _, _) in SHAPES.items():
        measured = _lint(make(), config)
        small.append((_row(f"rich 0.5 + {name}", measured, every), measured.seconds))
    tests = Path(__file__).resolve().parent.parent / "tests" / "packs"
    for path in sorted(tests.glob("*.json")):
        measured = _lint(orjson.loads(path.read_bytes()), config)
        small.append((_row(f"tests/packs/{path.name}", measured, every), measured.seconds))
    _row("shop pack (1,000 purchases, one purse)", _lint(make_shop_pack(), config), every)
    pack = make_runtime_pack()
    measured = _lint(pack, config)
    share = _row("runtime pack (rules + achievements)", measured, ("achievement", "rule"))
    _row("runtime pack, all goals (+ completions, reveals)", measured, every)
    if measured.errors:
        print(
            f"note: a default lint of the runtime pack reports {measured.errors:,} errors (never-holds) and so skips "
            "the search; its rows time that lint plus the search run on its own"
        )
    if measured.outcome.timed_out:
        print(
            f"note: on this machine the safety-net time limit ({config.max_seconds:g} s) stopped the runtime pack's "
            f"search after {measured.outcome.turns_played:,} turns (its findings say so); on a faster one it plays "
            "more"
        )
    if wide and not quick:
        wider = _lint(pack, replace(config, max_states=4 * config.max_states))
        _row(f"runtime pack, {4 * config.max_states:,} states (rules + achv.)", wider, ("achievement", "rule"))
    met = all(decided == 1.0 and seconds <= 2 for decided, seconds in small)
    print(f"bar: every goal of each bundled and test pack decided by a default lint in <= 2 s: {_verdict(met)}")
    met = share >= 0.99 and measured.seconds <= 30
    print(
        f"bar: >= 99% of the runtime pack's 11,000 goals decided in <= 30 s: {_verdict(met)} "
        f"({share:.1%} in {measured.seconds:.1f} s)"
    )
    story = _lint(make_story_pack(), config)
    told = _row("story pack (rules + achievements)", story, ("achievement", "rule"))
    planted = [t for t in story.outcome.targets if t.kind in ("achievement", "rule") and not t.ident[1:].isdigit()]
    decided = sum(t.goal in story.outcome.proofs or t.goal in story.outcome.witnesses for t in planted)
    in_cones = sum("part of the pack it depends on" in story.outcome.proofs.get(t.goal, "") for t in planted)
    print(
        f"story pack's {len(planted)} goals of its 100 side stories (a third of them need a relation): {decided} "
        f"decided, {in_cones} proved in their cones"
    )
    met = told >= 0.99 and story.seconds <= 30
    print(
        f"bar, on the story pack: >= 99% of its 11,000 goals decided in <= 30 s: {_verdict(met)} "
        f"({told:.1%} in {story.seconds:.1f} s)"
    )


def _state_cost(*, quick: bool) -> None:
    """The exhaustive search's cost per state: each turn played by the runtime's ``step``, or every move at once.

    Both explore every reachable state of the issue's shapes for their achievements, endings,
    rules and completions (the goals the fast search decides), side by side, in CPU time; they
    count the same states. Then the fast search alone breadth first through the first 200,000
    states of ``tests/packs/survival.json`` (2.6 million states its boxes allow; the ``step``
    search would take minutes there): the issue's "200,000 states within 2 s".
    """
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.reach_packs import SHAPES

    repeat = 3 if quick else 7
    print(f"\nExhaustive search, medians of {repeat} runs, CPU time (runtime step vs every move at once):")
    print(
        f"| {'pack':<36} | {'states':>7} | {'step':>8} | {'fast':>8} | {'us/state':>13} | {'ratio':>6} "
        f"| {'states in 2 s':>13} |"
    )
    print("|" + "|".join("-" * n for n in (38, 9, 10, 10, 15, 8, 15)) + "|")
    packs = {f"rich 0.5 + {name}": make() for name, (make, _, _) in SHAPES.items()}
    survival = Path(__file__).resolve().parent.parent / "tests" / "packs" / "survival.json"
    packs["survival, first 200,000 states"] = orjson.loads(survival.read_bytes())
    for name, pack in packs.items():
        engine = Engine(pack)
        goals = [t for t in _reach.targets(engine) if t.kind in _exhaust.FAST]
        keys = {t.goal for t in goals}
        bound = 200_000 if name.startswith("survival") else 10**7
        times: dict[str, list[float]] = {"step": [], "fast": []}
        states = {}
        for _ in range(repeat):
            for label, explorer in (("step", _exhaust._Explorer), ("fast", _exhaust._Fast)):
                if label == "step" and bound < 10**7:
                    continue
                began = time.thread_time()
                found = explorer(engine, goals, bound, 1e18, time.monotonic, pending=set(keys)).run()
                times[label].append(time.thread_time() - began)
                states[label] = found.states
        fast = statistics.median(times["fast"])
        per = fast / states["fast"] * 1e6
        in_two = f"{int(2 / fast * states['fast']):,}"
        if times["step"]:
            assert states["step"] == states["fast"], name
            slow = statistics.median(times["step"])
            pair = f"{slow / states['fast'] * 1e6:.0f} / {per:.1f}"
            print(
                f"| {name:<36} | {states['fast']:>7,} | {slow:>6.2f} s | {fast:>6.2f} s "
                f"| {pair:>13} | {slow / fast:>5.1f}x | {in_two:>13} |"
            )
        else:
            print(
                f"| {name:<36} | {states['fast']:>7,} | {'-':>8} | {fast:>6.2f} s | {'- / ' + f'{per:.1f}':>13} "
                f"| {'-':>6} | {in_two:>13} |"
            )


# --- the solver comparison (--z3) ------------------------------------------------------------


class _Unrolled:
    """Turns of a pack as a z3 formula (bounded model checking), for the solver comparison only.

    A step's state is one z3 term per variable of the abstract analysis (an ``Int`` for an
    integer, one ``Bool`` per set member), plus a ``Bool`` per rule completed so far; observations
    are free inputs (``-1`` for unanswered) that persist; members no effect writes are constants.
    A rule fires when its ``when`` holds and it is not completed; its effects apply in document
    order, all or none (a rejecting increment out of bounds undoes the rule).
    """

    def __init__(self, z3: Any, engine: Engine, analysis: Any) -> None:
        self.z3, self.engine, self.analysis = z3, engine, analysis
        program = engine.program
        self.checker = _Checker(analysis.initial, analysis.variables, frozenset(), engine.observations)
        self.values = {
            ident: [True, False] if o.get("type") == "boolean" else list(o.get("choices", {}))
            for ident, o in engine.observations.items()
        }
        self.program = program
        self.fresh = 0

    def initial(self) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
        """The start: the entry's values, nothing answered, the rules completed at the start."""
        z3, analysis = self.z3, self.analysis
        state: list[Any] = []
        for tokens, value in zip(analysis.variables, analysis.after, strict=True):
            current: Any = analysis.initial
            for token in tokens:
                current = current[token]
            if isinstance(value, IntRange):
                state.append(z3.IntVal(current))
            else:
                state.append({m: z3.BoolVal(m in current) for m in value.may | frozenset(current)})
        answers = {ident: z3.IntVal(-1) for ident in self.values}
        done = {rule.id: z3.BoolVal(rule.id in analysis.completed) for rule in self.program.rules}
        return state, answers, done

    def condition(self, node: Any, state: list[Any], answers: dict[str, Any]) -> Any:
        """``node`` as a z3 ``Bool`` over a step's state and answers."""
        z3 = self.z3
        op = node.get("op") if isinstance(node, dict) else None
        if op == "literal":
            return z3.BoolVal(node.get("value") is True)
        if op == "not":
            return z3.Not(self.condition(node.get("condition"), state, answers))
        if op in ("all", "any"):
            parts = [self.condition(c, state, answers) for c in node.get("conditions", [])]
            return (z3.And if op == "all" else z3.Or)(parts) if parts else z3.BoolVal(op == "all")
        if op == "observed":
            choices = self.values.get(node.get("id"), [])
            value = node.get("value")
            index = next((i for i, v in enumerate(choices) if v == value and type(v) is type(value)), None)
            return _false(z3) if index is None else answers[node["id"]] == index
        place = self.analysis.place(node.get("path"))
        if isinstance(place, _Const):
            return z3.BoolVal(self.checker.constant(node))
        value = node.get("value")
        if isinstance(place, _Var):
            current = state[place.index]
            if isinstance(current, dict):
                if op == "contains" and isinstance(value, str):
                    return current.get(value, _false(z3))
            elif isinstance(value, int | float) and not isinstance(value, bool):
                exact = value == int(value)
                tests = {
                    "eq": current == int(value) if exact else _false(z3),
                    "ne": current != int(value) if exact else _true(z3),
                    "gt": current > value,
                    "gte": current >= value,
                    "lt": current < value,
                    "lte": current <= value,
                }
                if op in tests:
                    return tests[op]
        self.fresh += 1  # anything else: a free Boolean (an over-approximation)
        return z3.Bool(f"free{self.fresh}")

    def turn(
        self, state: list[Any], answers: dict[str, Any], done: dict[str, Any], step: int
    ) -> tuple[list[Any], dict[str, Any], dict[str, Any], dict[str, Any], Any]:
        """One turn: the new state, answers and completions, each rule's activity, and the new inputs' bounds."""
        z3 = self.z3
        given = {ident: z3.Int(f"{ident}@{step}") for ident in self.values}
        bounds = z3.And([z3.And(v >= -1, v < len(self.values[i])) for i, v in given.items()])
        merged = {ident: z3.If(given[ident] == -1, answers[ident], given[ident]) for ident in self.values}
        working: list[Any] = [dict(v) if isinstance(v, dict) else v for v in state]
        active: dict[str, Any] = {}
        index = {tokens: i for i, tokens in enumerate(self.analysis.variables)}
        for rule in self.program.rules:
            fires = z3.And(
                self.condition(self.program.conditions[rule.when].source, state, merged), z3.Not(done[rule.id])
            )
            active[rule.id] = fires
            if not rule.effects:
                continue
            trial: dict[int, Any] = {}
            ok = [fires]
            for effect in rule.effects:
                slot = index.get(effect.tokens)
                if effect.error is not None:
                    ok.append(_false(z3))
                    continue
                if slot is None:
                    continue
                current = trial.get(slot, working[slot])
                if effect.op == "increment" and not isinstance(current, dict):
                    raised = current + effect.by
                    if effect.reject:
                        ok.append(z3.And(raised >= effect.low, raised <= effect.high))
                        trial[slot] = raised
                    else:
                        trial[slot] = z3.If(
                            raised < effect.low, effect.low, z3.If(raised > effect.high, effect.high, raised)
                        )
                elif effect.op in ("add", "remove") and isinstance(current, dict):
                    trial[slot] = {**current, effect.value: z3.BoolVal(effect.op == "add")}
            applied = z3.And(ok)
            for slot, new in trial.items():
                old = working[slot]
                if isinstance(new, dict):
                    working[slot] = {
                        m: z3.If(applied, new.get(m, _false(z3)), old.get(m, _false(z3))) for m in set(new) | set(old)
                    }
                else:
                    working[slot] = z3.If(applied, new, old)
        completed = {
            rule.id: done[rule.id]
            if rule.completion is None
            else z3.Or(done[rule.id], self.condition(self.program.conditions[rule.completion].source, working, merged))
            for rule in self.program.rules
        }
        return working, merged, completed, active, bounds


def _true(z3: Any) -> Any:
    return z3.BoolVal(True)  # noqa: FBT003 - z3's own constructor


def _false(z3: Any) -> Any:
    return z3.BoolVal(False)  # noqa: FBT003 - z3's own constructor


def _goal_terms(
    unrolled: _Unrolled, targets: list[Any], before: tuple[Any, ...], after: tuple[Any, ...], active: dict[str, Any]
) -> dict[Goal, Any]:
    """Each goal as a z3 term at one step: ``after`` is (state, answers, done) after it, ``before`` before."""
    z3, program = unrolled.z3, unrolled.program
    terms: dict[Goal, Any] = {}
    endings = list(program.endings)
    for target in targets:
        if target.kind == "rule":
            terms[target.goal] = active.get(target.ident, _false(z3))
        elif target.kind == "completion":
            terms[target.goal] = z3.And(after[2][target.ident], z3.Not(before[2][target.ident]))
        else:
            term = unrolled.condition(target.condition, after[0], after[1])
            if target.kind == "ending":
                position = next(i for i, g in enumerate(endings) if g.id == target.ident)
                mine = endings[position]
                for i, goal in enumerate(endings):
                    if goal.priority > mine.priority or (goal.priority == mine.priority and i < position):
                        term = z3.And(
                            term, z3.Not(unrolled.condition(program.conditions[goal.when].source, after[0], after[1]))
                        )
            terms[target.goal] = term
    return terms


def _bmc(z3: Any, pack: dict[str, Any], depth: int, sample: int | None) -> tuple[int, int, int, float]:
    """Bounded model checking of every goal (or the first ``sample``) from the first entry, up to ``depth`` turns.

    Returns (goals, witnessed within ``depth``, proved by 1-induction on the abstract box, seconds).
    """
    began = time.perf_counter()
    engine = Engine(pack)
    analysis = analyse(engine.program, engine.entries[0], engine.entry_ids()[0])
    unrolled = _Unrolled(z3, engine, analysis)
    targets = _reach.targets(engine)[:sample]
    solver = z3.Solver()
    step = unrolled.initial()
    ending = [unrolled.program.conditions[g.when].source for g in unrolled.program.endings]
    open_ = {t.goal for t in targets}
    zero = _goal_terms(unrolled, [t for t in targets if t.kind in ("achievement", "ending")], step, step, {})
    for key, term in zero.items():
        if solver.check(term) == z3.sat:
            open_.discard(key)
    for turn in range(1, depth + 1):
        if not open_:
            break
        solver.add(z3.Not(z3.Or([unrolled.condition(c, step[0], step[1]) for c in ending])) if ending else _true(z3))
        state, answers, done, active, bounds = unrolled.turn(*step, turn)
        solver.add(bounds)
        terms = _goal_terms(unrolled, [t for t in targets if t.goal in open_], step, (state, answers, done), active)
        for key, term in terms.items():
            if solver.check(term) == z3.sat:
                open_.discard(key)
        step = (state, answers, done)
    witnessed = len(targets) - len(open_)
    proved = _induction(unrolled, [t for t in targets if t.goal in open_])
    return len(targets), witnessed, proved, time.perf_counter() - began


def _induction(unrolled: _Unrolled, targets: list[Any]) -> int:
    """How many of ``targets`` (achievements, endings, completions) 1-induction proves, strengthened by the box.

    From any state in the abstract analysis's box with no ending holding and the goal not
    holding, no turn makes it hold: with the start (checked by the caller), it never holds.
    """
    z3, analysis = unrolled.z3, unrolled.analysis
    solver = z3.Solver()
    state: list[Any] = []
    for i, value in enumerate(analysis.after):
        if isinstance(value, IntRange):
            var = z3.Int(f"v{i}")
            solver.add(var >= value.low, var <= value.high)
            state.append(var)
        else:
            bits = {m: z3.Bool(f"v{i}.{m}") for m in value.may}
            solver.add(*[bits[m] for m in value.must])
            state.append(bits)
    answers = {ident: z3.Int(f"{ident}@pre") for ident in unrolled.values}
    solver.add(*[z3.And(v >= -1, v < len(unrolled.values[i])) for i, v in answers.items()])
    done = {rule.id: z3.Bool(f"done.{rule.id}") for rule in unrolled.program.rules}
    for goal in unrolled.program.endings:
        solver.add(z3.Not(unrolled.condition(unrolled.program.conditions[goal.when].source, state, answers)))
    post = unrolled.turn(state, answers, done, 0)
    solver.add(post[4])
    chosen = [t for t in targets if t.kind != "rule"]
    before = _goal_terms(unrolled, chosen, (state, answers, done), (state, answers, done), {})
    after = _goal_terms(unrolled, chosen, (state, answers, done), post[:3], {})
    proved = 0
    for target in chosen:
        held = z3.Not(done[target.ident]) if target.kind == "completion" else z3.Not(before[target.goal])
        proved += solver.check(held, after[target.goal]) == z3.unsat
    return proved


def _solver_comparison(*, quick: bool) -> None:
    """``--z3``: the same goals by bounded model checking and 1-induction with z3, for the choice in the docs."""
    z3: Any = importlib.import_module("z3")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.test_reachability import PLANTED

    depth = 8
    print(f"\nThe solver comparison: z3 {z3.get_version_string()}, BMC to {depth} turns, then 1-induction on the box")
    print(f"| {'pack':<40} | {'goals':>6} | {'BMC witnessed':>13} | {'1-induction proved':>18} | {'time':>9} |")
    print("|" + "|".join("-" * n for n in (42, 8, 15, 20, 11)) + "|")
    root = Path(__file__).resolve().parent.parent / "examples"
    packs = [(f"rich {v} example", orjson.loads((root / v / "rich.json").read_bytes())) for v in ("0.3", "0.4", "0.5")]
    packs += [(f"rich 0.5 + planted {name}", make()) for name, (make, _, _) in PLANTED.items()]
    for name, pack in packs:
        goals, witnessed, proved, seconds = _bmc(z3, pack, depth, None)
        print(f"| {name:<40} | {goals:>6,} | {witnessed:>13,} | {proved:>18,} | {seconds:>7.2f} s |")
    sample = 30 if quick else 100
    goals, witnessed, proved, seconds = _bmc(z3, make_runtime_pack(), 1, sample)
    name = f"runtime pack, first {sample} goals, 1 turn"
    print(f"| {name:<40} | {goals:>6,} | {witnessed:>13,} | {proved:>18,} | {seconds:>7.2f} s |")


def _spacer(z3: Any, pack: dict[str, Any], keys: set[Goal], timeout_ms: int) -> dict[Goal, tuple[str, float]]:
    """Each of ``keys`` (achievements, endings, rules) by Spacer from the first entry: sat, unsat or unknown, seconds.

    The reachable states after any number of turns are a relation ``Inv`` over the state, the
    answers and the completed rules: the start is in it, and a turn from a state in it where no
    ending holds (the :class:`_Unrolled` encoding) leads into it. A goal is unreachable when no
    state of ``Inv`` (for a rule: no turn from one) makes it hold: Spacer answers unsat.
    """
    engine = Engine(pack)
    analysis = analyse(engine.program, engine.entries[0], engine.entry_ids()[0])
    unrolled = _Unrolled(z3, engine, analysis)
    start_state, start_answers, start_done = unrolled.initial()
    names: list[Any] = []
    starts: list[Any] = []
    state: list[Any] = []
    for i, value in enumerate(start_state):
        if isinstance(value, dict):
            bits = {m: z3.Bool(f"s{i}.{m}") for m in value}
            state.append(bits)
            names += bits.values()
            starts += value.values()
        else:
            state.append(z3.Int(f"s{i}"))
            names.append(state[-1])
            starts.append(value)
    answers = {o: z3.Int(f"a.{o}") for o in start_answers}
    done = {r: z3.Bool(f"d.{r}") for r in start_done}
    names += [*answers.values(), *done.values()]
    starts += [*start_answers.values(), *start_done.values()]
    reachable = z3.Function("Inv", *[n.sort() for n in names], z3.BoolSort())
    fixed = z3.Fixedpoint()
    fixed.set(engine="spacer")
    fixed.set("timeout", timeout_ms)
    fixed.register_relation(reachable)
    fixed.declare_var(*names)
    fixed.rule(reachable(*starts))
    endings = [
        unrolled.condition(unrolled.program.conditions[g.when].source, state, answers) for g in unrolled.program.endings
    ]
    working, merged, completed, active, bounds = unrolled.turn(state, answers, done, 1)
    after = [
        part
        for i, value in enumerate(working)
        for part in ([value.get(m, _false(z3)) for m in start_state[i]] if isinstance(value, dict) else [value])
    ]
    after += [merged[o] for o in answers] + [completed[r] for r in done]
    going = [bounds] + ([z3.Not(z3.Or(endings))] if endings else [])
    following = [z3.Const(f"n{k}", n.sort()) for k, n in enumerate(names)]
    fixed.declare_var(*following, *[z3.Int(f"{o}@1") for o in answers])
    fixed.declare_var(*[z3.Bool(f"free{k}") for k in range(1, unrolled.fresh + 1)])
    fixed.rule(
        reachable(*following), [reachable(*names), *going, *[f == a for f, a in zip(following, after, strict=True)]]
    )
    found: dict[Goal, tuple[str, float]] = {}
    before = (state, answers, done)
    for target in _reach.targets(engine):
        if target.goal not in keys:
            continue
        began = time.perf_counter()
        if target.kind == "rule":
            goal = z3.And(active[target.ident], *going)
        else:
            goal = _goal_terms(unrolled, [target], before, before, {})[target.goal]
        try:
            answer = str(fixed.query(z3.And(reachable(*names), goal)))
        except z3.Z3Exception:
            answer = "unknown"
        found[target.goal] = (answer, time.perf_counter() - began)
    return found


def _spacer_comparison(*, quick: bool) -> None:
    """``--spacer``: Spacer on the goals only a relation decides, beside what lint decides."""
    z3: Any = importlib.import_module("z3")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.reach_packs import SHAPES

    print(f"\nSpacer (z3 {z3.get_version_string()}), one query per goal, from the first entry:")
    print(f"| {'pack':<40} | {'goal':<30} | {'lint (default)':<16} | {'Spacer':>8} | {'time':>8} |")
    print("|" + "|".join("-" * n for n in (42, 32, 18, 10, 10)) + "|")
    config = LintConfig()
    cases: list[tuple[str, dict[str, Any], int]] = [(name, make(), 60_000) for name, (make, _, _) in SHAPES.items()]
    root = Path(__file__).resolve().parent.parent
    cases.append(
        ("tests/packs/survival.json", orjson.loads((root / "tests" / "packs" / "survival.json").read_bytes()), 60_000)
    )
    cases.append(("runtime pack", make_runtime_pack(), 30_000))
    for name, pack, timeout_ms in cases:
        outcome = _reach.decide(pack, config.max_states, config.max_seconds, time.monotonic)
        kinds = ("achievement", "ending", "rule")
        proved = [t.goal for t in outcome.targets if t.kind in kinds and t.goal in outcome.proofs]
        open_ = [
            t.goal
            for t in outcome.targets
            if t.kind in kinds and t.goal not in outcome.proofs and t.goal not in outcome.witnesses
        ]
        chosen = (proved[-1:] + open_[: 2 if quick else 5]) if name == "runtime pack" else proved + open_
        for key, (answer, seconds) in _spacer(z3, pack, set(chosen), timeout_ms).items():
            said = "proved" if key in proved else "undecided"
            print(f"| {name:<40} | {key!s:<30} | {said:<16} | {answer:>8} | {seconds:>6.2f} s |")


def _verdict(met: bool) -> str:  # noqa: FBT001 - a yes/no to print
    return "met" if met else "NOT met"


if __name__ == "__main__":
    main()

"""One tuple of constants for a program's generated condition code (``play/_pool.py``).

The pooled code must read exactly the values its own constants held (``tests/test_conditions.py``
compares pooled functions with the closures on any JSON state); these tests check that code is
pooled where it can be, keeps its own constants where it cannot, and that programs use it.
"""

from __future__ import annotations

import random
from typing import Any

from creatorpack.contract.conditions import leaves, parse
from creatorpack.play._pool import ConstantPool, pool_of
from creatorpack.play.conditions import compile_condition, generate_function
from creatorpack.play.engine import Engine, Turn
from tests.random_packs import random_pack

_STATE: dict[str, Any] = {"trust": 3, "name": "harbour master", "items": ["key"], "ratio": 0.5, "big": 2**70}


def _verdict(condition: dict[str, Any], pool: ConstantPool | None, state: dict[str, Any] = _STATE) -> tuple[Any, bool]:
    """The function generated for ``condition`` with ``pool``, and its verdict on ``state`` (as the closures')."""
    function = generate_function(parse(condition), frozenset(), None, None, pool)
    verdict = function(state, {"way": "north"})
    assert verdict is compile_condition(condition, generate=False)(state, {"way": "north"})
    return function, verdict


_RICH = {
    "op": "all",
    "conditions": [
        {"op": "gte", "path": "/trust", "value": 3},
        {"op": "eq", "path": "/name", "value": "harbour master"},
        {"op": "contains", "path": "/items", "value": "key"},
        {"op": "lt", "path": "/ratio", "value": 0.75},
        {"op": "eq", "path": "/big", "value": 2**70},
        {"op": "observed", "id": "way", "value": "north"},
    ],
}


def test_code_reads_its_literals_from_the_pool() -> None:
    tree = parse(_RICH)
    pool = pool_of(leaves(tree))
    function, verdict = _verdict(_RICH, pool)
    assert verdict is True
    assert function.__code__.co_consts is pool.values
    assert function.__doc__ is None  # the pool's first constant is None, never a string taken for a docstring
    _, false = _verdict(
        {**_RICH, "conditions": [*_RICH["conditions"], {"op": "eq", "path": "/trust", "value": 4}]}, pool
    )
    assert false is False  # 4 is not in the pool: that function keeps its own constants, and is right


def test_values_that_python_finds_equal_stay_apart() -> None:
    """``1``, ``1.0`` and ``True`` are one key of a dict, and three constants of code; so are ``0.0`` and ``-0.0``."""
    conditions = [
        {"op": "eq", "path": "/one", "value": 1},
        {"op": "eq", "path": "/one", "value": 1.0},
        {"op": "eq", "path": "/one", "value": True},
        {"op": "ne", "path": "/zero", "value": 0.0},
        {"op": "ne", "path": "/zero", "value": -0.0},
    ]
    pool = pool_of(leaf for c in conditions for leaf in leaves(parse(c)))
    for state in ({"one": 1, "zero": 0.0}, {"one": True, "zero": -0.0}, {"one": 1.0, "zero": 0}):
        for condition in conditions:
            function, _ = _verdict(condition, pool, state)
            assert function.__code__.co_consts is pool.values


def test_a_constant_missing_from_the_pool_leaves_the_code_its_own() -> None:
    pool = pool_of(leaves(parse({"op": "gte", "path": "/trust", "value": 1})))
    function, verdict = _verdict(_RICH, pool)
    assert verdict is True
    assert function.__code__.co_consts is not pool.values


def test_the_pool_holds_256_constants_the_most_used_first() -> None:
    rare = [{"op": "eq", "path": "/trust", "value": i} for i in range(300)]
    common = {"op": "eq", "path": "/trust", "value": 3}
    pool = pool_of(leaf for c in [*rare, *[common] * 5] for leaf in leaves(parse(c)))
    assert len(pool.values) == 256
    assert pool.values[:3] == (None, "trust", 3)  # None first, then by how often the trees hold each
    function, verdict = _verdict(common, pool)
    assert verdict is True
    assert function.__code__.co_consts is pool.values
    function, verdict = _verdict(rare[299], pool)  # not among the 256: its own constants
    assert verdict is False
    assert function.__code__.co_consts is not pool.values


def test_long_code_whose_jumps_need_wide_operands_is_pooled_too() -> None:
    """A jump past 255 code units takes an ``EXTENDED_ARG``; only a constant index after one stops the rewrite."""
    long = {"op": "any", "conditions": [{"op": "eq", "path": f"/m{i % 4}", "value": i % 5} for i in range(120)]}
    pool = pool_of(leaves(parse(long)))
    for state in ({"m3": 4}, {"m0": 7}, {}):
        function, _ = _verdict(long, pool, state)
        assert function.__code__.co_consts is pool.values


def test_what_is_not_a_generated_function_is_left_as_it_is() -> None:
    pool = pool_of([])
    assert pool.adopt(len) is len
    assert pool.values == (None, True, False)


def test_a_program_pools_the_code_of_its_conditions_generic_and_typed() -> None:
    """After turns, every generated condition function of a program (and of its typed twin) reads one tuple."""
    for seed in range(4):
        rng = random.Random(seed)
        pack = random_pack(seed)
        engine = Engine(pack)
        session, _ = engine.start()
        observations = list(engine.observations.values())
        for _ in range(5):
            if session.ending is not None:
                break
            answers = {o["id"]: rng.choice([True, False]) for o in observations if o["type"] == "boolean"}
            session, _ = engine.step(session, Turn(answers))
        twin = engine.program.fitted(session.state)
        assert twin is not engine.program  # the engine's own states fit: turns called the typed functions
        assert any(hasattr(f, "__code__") for f in twin.evaluators), seed
        for program in (engine.program, twin):
            for evaluate in list(program.evaluators):  # each made on its first call
                evaluate(session.state, session.answers)
            made = [f for f in program.evaluators if hasattr(f, "__code__")]
            pools = {id(f.__code__.co_consts) for f in made}
            assert made, seed
            assert len(pools) == 1, (seed, len(made), len(pools))

"""Every public module declares ``__all__``, and it lists exactly the public names it defines."""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import creatorpack
from creatorpack import errors

ALL_MODULES = sorted(name for _, name, _ in pkgutil.walk_packages(creatorpack.__path__, "creatorpack."))
PUBLIC_MODULES = [name for name in ALL_MODULES if not any(part.startswith("_") for part in name.split("."))]
CORE_MODULES = [name for name in ALL_MODULES if not name.startswith("creatorpack.service")]
"""Everything but the service, which sits beside the CLI (its own errors hang from ``ServiceError``)."""

SIGNALS = frozenset(
    {
        "creatorpack.lint.reach._witness.Stop",
        "creatorpack.lint.reach._beside.Stopped",
        "creatorpack.lsp.server.RenameRefusedError",
    }
)
"""Exceptions used as control flow inside one module or thread, never raised to a caller (``Stopped`` is
dropped when lint's worker thread is joined; the language server's refusal is turned by pygls into an LSP
error response for the editor, not raised to Python code)."""


def _defined_here(module: ModuleType) -> set[str]:
    names = set()
    for name, value in vars(module).items():
        if name.startswith("_"):
            continue
        if (inspect.isclass(value) or inspect.isfunction(value)) and value.__module__ == module.__name__:
            names.add(name)
    return names


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_all_lists_public_names(name: str) -> None:
    module = importlib.import_module(name)
    exported = set(module.__all__)
    assert _defined_here(module) <= exported
    for item in exported:
        assert hasattr(module, item), f"{name}.__all__ names {item!r}, which does not exist"


def _assigned_here(module: ModuleType) -> set[str]:
    """The public names a module assigns at top level (constants, type aliases)."""
    names: set[str] = set()
    for node in ast.parse(inspect.getsource(module)).body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        names.update(t.id for t in targets if isinstance(t, ast.Name) and not t.id.startswith("_"))
    return names


@pytest.mark.parametrize("name", [n for n in PUBLIC_MODULES if n in CORE_MODULES])
def test_all_lists_public_constants_and_aliases(name: str) -> None:
    module = importlib.import_module(name)
    assert _assigned_here(module) <= set(module.__all__)
    assert not [item for item in module.__all__ if item.startswith("_")]


def _exceptions() -> list[type[BaseException]]:
    return [
        value
        for name in CORE_MODULES
        if not name.endswith(".__main__")  # running it is running the CLI
        for value in vars(importlib.import_module(name)).values()
        if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name
    ]


def test_every_exception_is_a_creatorpack_error() -> None:
    found = _exceptions()
    assert {errors.ConditionError, errors.EffectError, errors.UnknownVersionError} <= set(found)
    for error in found:
        where = f"{error.__module__}.{error.__qualname__}"
        if error.__name__.startswith("_") or where in SIGNALS:
            continue  # a private signal: caught where it is raised
        assert issubclass(error, creatorpack.CreatorpackError), where
        assert error.__name__ in (errors.__doc__ or ""), f"errors.py does not name {where}"


def _drawn_tree() -> list[tuple[int, str, str | None]]:
    """(depth, name, builtin) for each class drawn in errors.py's docstring tree."""
    block = (errors.__doc__ or "").split("::", 1)[1].split("\n\n", 2)[1]
    drawn: list[tuple[int, str, str | None]] = []
    for line in block.splitlines():
        if line.startswith("    CreatorpackError "):
            drawn.append((0, "CreatorpackError", None))
        elif match := re.match(r"^ {4}((?:[│ ] {3})*)[├└]── \(?([\w.]+)\)?(?: \[(\w+)\])?", line):
            drawn.append((len(match.group(1)) // 4 + 1, match.group(2), match.group(3)))
    return drawn


def _drawn_class(name: str) -> type[BaseException]:
    module, _, attribute = name.rpartition(".")
    found = getattr(importlib.import_module(f"creatorpack.{module}" if module else "creatorpack.errors"), attribute)
    assert inspect.isclass(found)
    assert issubclass(found, BaseException)
    return found


def test_the_errors_docstring_draws_the_tree() -> None:
    drawn = _drawn_tree()
    defined = {error for error in _exceptions() if error.__module__ == "creatorpack.errors"}
    assert {_drawn_class(name) for _, name, _ in drawn if "." not in name} == defined
    parents: list[type[BaseException]] = []
    for depth, name, builtin in drawn:
        error = _drawn_class(name)
        del parents[depth:]
        if parents:
            assert error.__bases__[0] is parents[-1], f"{name} is drawn under {parents[-1].__name__}"
        if builtin is not None:
            assert issubclass(error, getattr(builtins, builtin)), f"{name} is drawn as a {builtin}"
        parents.append(error)
    assert len(drawn) == len(defined) + 4  # and diff.MigrationError, narrate's three


def test_package_exports_are_unique_and_importable() -> None:
    assert len(set(creatorpack.__all__)) == len(creatorpack.__all__)
    for item in creatorpack.__all__:
        assert getattr(creatorpack, item) is not None


def test_errors_subclass_the_fitting_builtin() -> None:
    assert issubclass(creatorpack.DocumentError, ValueError)
    assert issubclass(creatorpack.InvalidPackError, ValueError)
    assert issubclass(creatorpack.UnknownVersionError, ValueError)
    assert creatorpack.DocumentError.exit_code == 2
    assert creatorpack.InvalidPackError.exit_code == 1


def test_the_package_is_marked_typed() -> None:
    """PEP 561: without py.typed a client's type checker sees every creatorpack name as Any."""
    assert (Path(creatorpack.__file__).parent / "py.typed").is_file()


def test_the_documented_submodules_are_reached_after_a_plain_import() -> None:
    """README and docs call `creatorpack.testing.play` and `creatorpack.scaffold.files` after `import creatorpack`."""
    code = (
        "import creatorpack\n"
        "print(creatorpack.testing.play.__name__, creatorpack.scaffold.files.__name__, creatorpack.diff.diff.__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (0, "play files diff\n"), done.stderr


def test_submodules_of_a_plain_import_are_typed(tmp_path: Path) -> None:
    """Regression: after ``import creatorpack``, ``creatorpack.testing.play`` and ``creatorpack.diff`` were Any."""
    program = tmp_path / "uses.py"
    program.write_text(
        "import creatorpack\n"
        "reveal_type(creatorpack.testing.play)\n"
        "reveal_type(creatorpack.diff.diff)\n"
        "reveal_type(creatorpack.scaffold.files)\n"
        "reveal_type(creatorpack.play.Session)\n",
        encoding="utf-8",
    )
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", str(program)],
        capture_output=True,
        text=True,
        check=False,
        cwd=root,
    )
    revealed = [line for line in result.stdout.splitlines() if "Revealed type" in line]
    assert len(revealed) == 4, result.stdout + result.stderr
    assert not any('"Any"' in line for line in revealed), result.stdout
    assert "Playthrough" in revealed[0]
    assert "PackDiff" in revealed[1]


def test_a_lint_report_prints_each_witness_once() -> None:
    """Regression: ``print(creatorpack.lint(...))`` showed every witness twice (by ``kind:id`` and by id)."""
    report = creatorpack.lint(Path(__file__).resolve().parent.parent / "examples" / "0.5" / "rich.json")
    assert report.witnesses  # keyed twice: achievement:x and x
    shown = repr(report)
    assert "turns=" not in shown  # no witness dumped
    for target in {w.target for w in report.witnesses.values()}:
        assert shown.count(repr(target)) == 1
    text = str(report)
    assert text.splitlines()[-1].startswith(f"{len(report.errors)} error(s), {len(report.warnings)} warning(s); ")
    assert "Witness(" not in text

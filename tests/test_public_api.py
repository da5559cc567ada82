"""Every public module declares ``__all__``, and it lists exactly the public names it defines."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest

import creatorpack

PUBLIC_MODULES = sorted(
    name
    for _, name, _ in pkgutil.walk_packages(creatorpack.__path__, "creatorpack.")
    if not any(part.startswith("_") for part in name.split("."))
)


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

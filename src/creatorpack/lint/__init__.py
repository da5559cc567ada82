"""The lint layer: what the contract cannot say (references, conditions, publication, assets, reachability).

Built on `creatorpack.play` and `creatorpack.contract`. The module is itself callable, so that
``creatorpack.lint(source)`` keeps working once this subpackage has been imported: ``creatorpack.lint``
then names the package, and calling it calls :func:`creatorpack.lint.lint`.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from creatorpack.lint.assets import AssetFacts, AssetSource, DirectoryAssets, MemoryAssets, sniff
from creatorpack.lint.config import LintConfigError, LintSettings, load_config
from creatorpack.lint.linter import CHECKS, REVEAL_GOALS, contract_findings, explain, goals, lint
from creatorpack.lint.notes import unsearched_note
from creatorpack.lint.report import Finding, LintConfig, LintReport, Witness
from creatorpack.lint.rules import RULES, Rule, Severity

__all__ = [
    "CHECKS",
    "REVEAL_GOALS",
    "RULES",
    "AssetFacts",
    "AssetSource",
    "DirectoryAssets",
    "Finding",
    "LintConfig",
    "LintConfigError",
    "LintReport",
    "LintSettings",
    "MemoryAssets",
    "Rule",
    "Severity",
    "Witness",
    "contract_findings",
    "explain",
    "goals",
    "lint",
    "load_config",
    "sniff",
    "unsearched_note",
]


class _CallableModule(types.ModuleType):
    """This package, callable as :func:`lint` (``creatorpack.lint(...)`` predates the subpackage)."""

    def __call__(self, *args: Any, **kwargs: Any) -> LintReport:
        return lint(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

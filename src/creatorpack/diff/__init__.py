"""Semantic diffs between revisions of a pack, save compatibility, and migration of saved sessions.

Built on `creatorpack.contract` and `creatorpack.play`; a sibling of `creatorpack.lint`.
"""

from __future__ import annotations

from creatorpack.diff.compat import (
    Compatibility,
    MemberVerdict,
    MigrationPlan,
    MigrationReport,
    Misfit,
    SaveVerdict,
    Step,
    compatibility,
    migration_plan,
)
from creatorpack.diff.errors import MigrationError
from creatorpack.diff.migrate import load_migrating, migrate
from creatorpack.diff.semantic import Change, PackDiff, diff

__all__ = [
    "Change",
    "Compatibility",
    "MemberVerdict",
    "MigrationError",
    "MigrationPlan",
    "MigrationReport",
    "Misfit",
    "PackDiff",
    "SaveVerdict",
    "Step",
    "compatibility",
    "diff",
    "load_migrating",
    "migrate",
    "migration_plan",
]

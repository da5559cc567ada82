"""Response shapes, for the OpenAPI document (handlers serialize with orjson, in these shapes)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Finding", "Health", "LintReport", "Pack", "Problem", "Report", "Revision", "Violation"]


class Violation(BaseModel):
    """One violation, as ``creatorpack validate --format json`` prints it."""

    pointer: str = Field(description="RFC 6901 JSON Pointer ('' is the whole pack)")
    code: str
    message: str
    line: int | None
    column: int | None


class Report(BaseModel):
    """The CLI's JSON report for one file, without its path."""

    valid: bool
    version: str | None
    errors: list[Violation]


class Finding(Violation):
    """One lint finding (``creatorpack lint --format json``)."""

    severity: Literal["error", "warning"]


class LintReport(BaseModel):
    """The CLI's JSON lint report for one file, without its path."""

    valid: bool
    version: str | None
    errors: list[Finding]


class Revision(BaseModel):
    """A stored revision."""

    pack_id: str
    revision: int
    sha256: str
    size: int
    version: str
    created: datetime
    published: bool


class Pack(BaseModel):
    """A pack as its owner sees it: live revisions, the published one and the visibility."""

    pack_id: str
    created: datetime
    latest_revision: int = Field(description="The highest revision number ever stored (deleted ones included)")
    published_revision: int | None
    visibility: Literal["public", "unlisted", "private"]
    revisions: list[Revision]


class Health(BaseModel):
    """The service answers."""

    status: Literal["ok"]


class Problem(BaseModel):
    """RFC 9457 problem details; extension members depend on the type (see docs/service.md)."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    detail: str
    instance: str | None = None
    code: str | None = None
    errors: list[dict[str, Any]] | None = None

"""Upgrade a pack to a later contract version: 0.3 → 0.4 → 0.5, one explicit step at a time.

Each step (:data:`STEPS`) changes ``protocol_version`` and adds the members the next version
requires, with empty contents: 0.3 → 0.4 adds ``progression``, 0.4 → 0.5 adds ``presentation``.
New members go after the last member of the root object, in contract order. Nothing else is
touched: the text is edited in place, so key order, indentation, escapes and number spellings
stay as they were and a diff shows only the upgrade. A member the step would add that the pack
already has (an extension field the earlier version ignored) is kept as it is.

What the target version restricts and the source did not (for example the 0.5 shapes of opening
illustrations and stages) is carried over unchanged and reported as an :class:`Attention` item
with the fix. 0.2 packs are refused: the contract shows no 0.2 → 0.3 mapping (0.3 replaced the
model). Pure: text or a mapping in, an :class:`UpgradeResult` out; no file is read or written.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from creatorpack import _jsontext
from creatorpack._json import pointer, whole_number
from creatorpack.contract import SUPPORTED_VERSIONS, Report, UnknownVersionError, Validator, Version, schema
from creatorpack.contract.schema import as_version
from creatorpack.errors import CreatorpackError, SourceTypeError

__all__ = [
    "STEPS",
    "TARGETS",
    "Attention",
    "Change",
    "Step",
    "UpgradeError",
    "UpgradeResult",
    "upgrade",
]


class UpgradeError(CreatorpackError, ValueError):
    """The pack cannot be upgraded to the version asked for (0.2, a downgrade, an unknown target)."""

    code: ClassVar[str] = "cannot-upgrade"


@dataclass(frozen=True, slots=True)
class Step:
    """One upgrade step: from ``source`` to ``target``, adding each ``(member, value)`` to the root."""

    source: Version
    target: Version
    adds: tuple[tuple[str, Any], ...]


STEPS: Final[Mapping[Version, Step]] = types.MappingProxyType(
    {
        "0.3": Step("0.3", "0.4", (("progression", {"protocol": "service.progression/1", "achievements": []}),)),
        "0.4": Step("0.4", "0.5", (("presentation", {"bindings": [], "illustration_rules": []}),)),
    }
)
"""The upgrade steps, by the version they start from."""

TARGETS: Final[tuple[Version, ...]] = tuple(step.target for step in STEPS.values())
"""Versions a pack can be upgraded to."""


@dataclass(frozen=True, slots=True)
class Change:
    """One thing the upgrade changed, at ``pointer``."""

    pointer: str
    what: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used by ``--format json``."""
        return {"pointer": self.pointer, "what": self.what}


@dataclass(frozen=True, slots=True)
class Attention:
    """A place the creator must fix: the upgraded pack breaks its target version there.

    ``existing`` is true when the source already broke its own version at that pointer.
    ``line`` and ``column`` locate it in the upgraded text.
    """

    pointer: str
    message: str
    fix: str
    existing: bool = False
    line: int | None = None
    column: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used by ``--format json``."""
        return {
            "pointer": self.pointer,
            "message": self.message,
            "fix": self.fix,
            "existing": self.existing,
            "line": self.line,
            "column": self.column,
        }


@dataclass(frozen=True, slots=True)
class UpgradeResult:
    """The upgraded pack (``text``, ``document``), what changed and what needs attention.

    ``report`` is the validation of the upgraded pack against ``target_version``; ``changes`` is
    empty (and ``text`` is the source, unchanged) when the pack already declared the target.
    """

    text: str
    source_version: Version
    target_version: Version
    changes: tuple[Change, ...]
    attention: tuple[Attention, ...]
    report: Report = field(repr=False)
    document: Mapping[str, Any] = field(repr=False, compare=False)

    @property
    def valid(self) -> bool:
        """True when the upgraded pack is valid for its target version."""
        return self.report.valid

    @property
    def changed(self) -> bool:
        """True when the upgrade changed anything."""
        return bool(self.changes)

    @property
    def data(self) -> bytes:
        """The upgraded pack as UTF-8 bytes."""
        return self.text.encode("utf-8", errors="surrogatepass")

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used by ``--format json`` (without the document)."""
        return {
            "from": self.source_version,
            "to": self.target_version,
            "valid": self.valid,
            "changes": [change.to_dict() for change in self.changes],
            "attention": [item.to_dict() for item in self.attention],
        }


_GENERIC_FIX: Final = "change the value here so that it satisfies the {version} schema (`creatorpack schema {version}`)"

# The fix for a violation at a pointer, by target version: each target restricts different things
# (0.4's progression is one container; 0.5 selects a container by protocol). A target missing from
# an entry gets the generic fix.
_FIX_TABLE: Final[tuple[tuple[str, dict[Version, str]], ...]] = (
    (
        r"^/entries/\d+/opening_illustrations(/|$)",
        {
            "0.5": (
                "0.5 gives each opening illustration exactly after_paragraph_index (0 to 31), illustration_id "
                "and paragraph_digest (the sha256 of the paragraph); rewrite the item in that shape or remove it"
            ),
        },
    ),
    (
        r"^/entries/\d+/opening_stages(/|$)",
        {
            "0.5": (
                "0.5 gives each opening stage exactly paragraph_index (0 to 255), paragraph_digest, location, "
                "subject (null if none), time_of_day (dawn, day, dusk, night or unspecified), time_label ('' if "
                "none), cast (at most 4) and optionally background_asset_id; rewrite the item in that shape or "
                "remove it"
            ),
        },
    ),
    (
        r"^/progression/protocol$",
        {
            "0.4": "set protocol to 'service.progression/1', the 0.4 container (guided progression is 0.5's)",
            "0.5": (
                "set protocol to 'service.progression/1' (the 0.4 container) or, for guided achievements and "
                "endings, 'service.progression/2'"
            ),
        },
    ),
    (
        r"^/progression(/|$)",
        {
            "0.4": (
                "0.4 progression is one container (what 0.5 calls 'service.progression/1'): achievements with id, "
                "visibility, title, description, when, artwork_asset_id and optionally badge_id, plus endings and "
                "badges; guided shapes (guidance, 'service.progression/2') come only with 0.5: rewrite this in the "
                "0.4 shape, or upgrade to 0.5"
            ),
            "0.5": (
                "0.5 checks progression by its protocol: 'service.progression/1' is the 0.4 container; "
                "'service.progression/2' takes only protocol, achievements, endings and badges in their guided "
                "shapes"
            ),
        },
    ),
    (
        r"^/presentation(/|$)",
        {
            "0.5": (
                "the pack already had a presentation member, which 0.5 now checks: it holds only bindings and "
                "illustration_rules in their 0.5 shapes; move anything else out of presentation"
            ),
        },
    ),
    (
        r"^/character_castings(/|$)",
        {
            version: (
                f"0.3 ignored character_castings; {version} checks each casting (id, actor_id, character_id as a "
                "lowercase UUID, character_revision, when): complete it in that shape or remove it"
            )
            for version in ("0.4", "0.5")
        },
    ),
    (
        r"^/assets/\d+",
        {
            "0.5": (
                "0.5 assets are performance assets: the 0.3 asset fields plus access (standard or reward_only); "
                "keep only those fields"
            ),
        },
    ),
)
_FIXES: Final[tuple[tuple[re.Pattern[str], Mapping[Version, str]], ...]] = tuple(
    (re.compile(pattern), types.MappingProxyType(fixes)) for pattern, fixes in _FIX_TABLE
)


def _fix_for(at: str, version: Version) -> str:
    """The fix for a violation at ``at`` in a pack upgraded to ``version``: the first entry that matches."""
    for pattern, fixes in _FIXES:
        if pattern.search(at):
            return fixes.get(version, _GENERIC_FIX.format(version=version))
    return _GENERIC_FIX.format(version=version)


_VALIDATOR = Validator()


def upgrade(
    source: bytes | bytearray | memoryview | str | Mapping[str, Any],
    to: str = "0.5",
    *,
    bump_revision: bool = False,
) -> UpgradeResult:
    """Upgrade ``source`` (JSON bytes or text, or a parsed pack) to contract version ``to``.

    ``bump_revision`` adds 1 to ``manifest.revision`` when the upgrade changes anything.
    Raises :class:`~creatorpack.errors.DocumentError` for input that is not a JSON object,
    :class:`~creatorpack.errors.UnknownVersionError` for an unknown declared version and
    :class:`UpgradeError` for a 0.2 pack, a downgrade or a target other than 0.4 and 0.5 (even
    the version the pack declares: upgrading a 0.3 pack "to 0.3" is no upgrade) and, with
    ``bump_revision``, for a ``manifest.revision`` that is missing, no whole number or already the
    largest a pack may have.
    """
    if isinstance(source, os.PathLike):
        raise SourceTypeError("upgrade takes the pack's bytes, text or parsed object, not a path: read the file first")
    checked = _VALIDATOR.check(source)
    document = checked.document
    if not isinstance(document, Mapping):  # pragma: no cover - check() raises NotAnObjectError first
        raise SourceTypeError("a pack must be a JSON object")
    declared = document.get("protocol_version")
    current = as_version(declared)
    if current is None:
        raise _unknown_version(declared, checked.report)
    target = as_version(to)
    if target is None or target not in TARGETS:
        targets = " and ".join(TARGETS)
        raise UpgradeError(f"cannot upgrade to {to!r}: the versions a pack can be upgraded to are {targets}")
    text = _source_text(source, checked.text)
    if current == target:
        unchanged = text if text is not None else _dump(document)
        return UpgradeResult(
            unchanged, current, target, (), _attention(checked.report, checked.report, target), checked.report, document
        )
    if current == "0.2":
        raise UpgradeError(
            "cannot upgrade a 0.2 pack: the contract defines no 0.2 → 0.3 step (0.3 replaced the 0.2 model of actors, "
            "scenes and arcs with manifest, runtime and provenance); write the 0.3 pack by hand, starting from "
            "`creatorpack init --version 0.3`"
        )
    if SUPPORTED_VERSIONS.index(target) < SUPPORTED_VERSIONS.index(current):
        raise UpgradeError(f"cannot downgrade a {current} pack to {target}: upgrades only go forward")
    revision_text = _revision_text(text) if text is not None and bump_revision else None
    edits, changes, updated = _plan(document, current, target, bump_revision=bump_revision, revision_text=revision_text)
    new_text = _apply_text(text, edits) if text is not None else _dump(updated)
    report = _VALIDATOR.validate(new_text)
    attention = _attention(report, checked.report, target)
    return UpgradeResult(new_text, current, target, tuple(changes), attention, report, report.document or updated)


def _unknown_version(declared: object, report: Report) -> UnknownVersionError:
    """The error for a pack whose ``protocol_version`` is no supported version, worded as validation words it.

    The validator's report already says what is wrong (missing, a number such as ``0.3`` that should
    be the string ``"0.3"``, an unknown version) and what to write instead, so the upgrade says the
    same rather than "unknown contract version None".
    """
    error = UnknownVersionError(declared, SUPPORTED_VERSIONS)
    said = next((v.message for v in report.violations if v.code == "unsupported-version"), None)
    if said is not None:
        error.args = (said,)
    return error


def _source_text(source: object, data: bytes | None) -> str | None:
    if isinstance(source, str):
        return source
    if data is None:
        return None
    return data.decode("utf-8", errors="surrogatepass")


# An edit: a root member to set (its new value), or ``("manifest", "revision")`` for the bump.
_Edit = tuple[tuple[str, ...], Any]


def _plan(
    document: Mapping[str, Any],
    current: Version,
    target: Version,
    *,
    bump_revision: bool,
    revision_text: str | None = None,
) -> tuple[list[_Edit], list[Change], dict[str, Any]]:
    """The edits that upgrade ``document`` from ``current`` to ``target``, the changes they make, the result.

    ``revision_text`` is ``manifest.revision`` as the source text spells it (``1e0``), shown in the
    change instead of the parsed number (``1.0``) when given.
    """
    updated = dict(document)
    edits: list[_Edit] = [(("protocol_version",), target)]
    changes = [Change("/protocol_version", f"{current} → {target}")]
    updated["protocol_version"] = target
    version = current
    while version != target:
        step = STEPS[version]
        for member, value in step.adds:
            if member in updated:
                changes.append(
                    Change(
                        pointer([member]),
                        f"kept the existing member, which {current} ignored: {step.target} now checks and plays it",
                    )
                )
                continue
            updated[member] = value
            edits.append(((member,), value))
            changes.append(Change(pointer([member]), f"added {json.dumps(value)} (required from {step.target})"))
        version = step.target
    castings = document.get("character_castings")
    if current == "0.3" and isinstance(castings, list) and castings:
        # 0.3 ignores the member; from 0.4 the runtime plays it: the narrator gets these castings.
        changes.append(
            Change(
                "/character_castings",
                f"now played: 0.3 ignored these {len(castings)} casting(s); from 0.4 the narrator gets each one "
                "whose when holds, so check them",
            )
        )
    if bump_revision:
        manifest = updated.get("manifest")
        revision = manifest.get("revision") if isinstance(manifest, Mapping) else None
        whole = whole_number(revision)
        if whole is None or not isinstance(manifest, Mapping):
            found = "the pack has no manifest.revision" if revision is None else f"manifest.revision is {revision!r}"
            raise UpgradeError(
                f"cannot bump the revision: {found}, not a whole number; set it to one, or leave out --bump-revision"
            )
        largest = _max_revision()
        if whole >= largest:
            found = (
                f"manifest.revision is already {largest}"
                if whole == largest
                else f"manifest.revision is {revision_text or revision}, more than {largest}"
            )
            raise UpgradeError(
                f"cannot bump the revision: {found}, the largest a pack may have; leave out --bump-revision"
            )
        updated["manifest"] = {**manifest, "revision": whole + 1}
        edits.append((("manifest", "revision"), whole + 1))
        changes.append(Change("/manifest/revision", f"{revision_text or revision} → {whole + 1}"))
    return edits, changes, updated


@functools.cache
def _max_revision() -> int:
    """The largest ``manifest.revision`` the contract allows, read from its schema (2**53 - 1)."""
    maximum: int = schema.document("common.json")["$defs"]["Manifest"]["properties"]["revision"]["maximum"]
    return maximum


def _revision_text(text: str) -> str | None:
    """``manifest.revision`` as ``text`` spells it (the last of duplicates, as parsing keeps), or ``None``."""
    start = _jsontext.root_start(text)
    found, _ = _jsontext.members(text, start)
    manifests = [member for member in found if member.name == "manifest"]
    if not manifests or not text.startswith("{", manifests[-1].value_start):
        return None
    inner, _ = _jsontext.members(text, manifests[-1].value_start)
    revisions = [member for member in inner if member.name == "revision"]
    if not revisions:
        return None
    return text[revisions[-1].value_start : revisions[-1].value_end]


def _apply_text(text: str, edits: list[_Edit]) -> str:
    start = _jsontext.root_start(text)
    found, close = _jsontext.members(text, start)
    style = _jsontext.style_of(text, start, found)
    by_name: dict[str, list[_jsontext.Member]] = {}
    for member in found:
        by_name.setdefault(member.name, []).append(member)
    spans: list[tuple[int, int, str]] = []
    added: list[str] = []
    for path, value in edits:
        if path == ("manifest", "revision"):
            manifest = by_name["manifest"][-1]
            inner, _ = _jsontext.members(text, manifest.value_start)
            spans.extend((m.value_start, m.value_end, json.dumps(value)) for m in inner if m.name == "revision")
        elif path[0] in by_name:
            spans.extend((m.value_start, m.value_end, json.dumps(value)) for m in by_name[path[0]])
        else:
            rendered = _jsontext.render(value, style, 1)
            added.append(json.dumps(path[0], ensure_ascii=False) + style.key_separator + rendered)
    if added:
        lead = style.item_separator + (style.indent or "")
        insert_at = found[-1].value_end if found else close
        spans.append((insert_at, insert_at, "".join(lead + item for item in added)))
    for begin, end, replacement in sorted(spans, reverse=True):
        text = text[:begin] + replacement + text[end:]
    return text


def _dump(document: Mapping[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _attention(report: Report, before: Report, target: Version) -> tuple[Attention, ...]:
    already = {violation.pointer for violation in before.violations}
    return tuple(
        Attention(
            violation.pointer,
            violation.message,
            _fix_for(violation.pointer, target),
            existing=violation.pointer in already,
            line=violation.line,
            column=violation.column,
        )
        for violation in report.violations
    )


class _CallableModule(types.ModuleType):
    """This module, callable as :func:`upgrade`: ``creatorpack.upgrade(...)`` names it once imported."""

    def __call__(self, *args: Any, **kwargs: Any) -> UpgradeResult:
        return upgrade(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

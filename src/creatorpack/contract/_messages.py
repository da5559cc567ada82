"""Turn raw JSON Schema errors into violations with a stable code and a message that names the fix.

Codes are kebab-case names of the contract rule that was broken; the table of codes is in
``docs/validation.md``. Pattern errors are named after the contract type whose pattern failed.
Each keyword has one message builder in :data:`_BUILDERS`; missing and unknown properties are
gathered per object first, so that one object gets one "missing required properties" finding
and a misspelt property one "did you mean" finding.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from creatorpack._json import JsonPath, json_type, show
from creatorpack.contract._schemaindex import SchemaIndex
from creatorpack.contract.findings import RawFinding, Target
from creatorpack.contract.schema import SUPPORTED_VERSIONS, Version
from creatorpack.contract.suggest import known, nearest

ID_PATTERN: Final = "^[A-Za-z][A-Za-z0-9_.-]{0,79}$"
SHA256_PATTERN: Final = "^[0-9a-f]{64}$"
UUID_PATTERN: Final = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
CONDITION_REF_PATTERN: Final = "^(?:/conditions/(?:0|[1-9][0-9]*))*$"

_PATTERNS: Final = {
    ID_PATTERN: (
        "invalid-id",
        "is not a valid Id: start with a letter, then use up to 79 letters, digits, '_', '.' or '-'",
    ),
    SHA256_PATTERN: ("invalid-sha256", "is not a sha256: use exactly 64 lowercase hexadecimal characters"),
    UUID_PATTERN: ("invalid-uuid", "is not a lowercase UUID: use 8-4-4-4-12 hexadecimal digits"),
    CONDITION_REF_PATTERN: (
        "invalid-condition-ref",
        "is not a condition path: use '' or '/conditions/<index>' segments, e.g. '/conditions/1/conditions/0'",
    ),
}

# The 0.2 asset conditional rules, by their index in the Asset schema's allOf.
_ASSET_RULES: Final = (
    ("asset-record-rule", "because generation_record is an object"),
    ("asset-generation-rule", "because generation is an object and uri is a string"),
    ("asset-audio-rule", "because kind is 'audio'"),
    ("asset-image-task-rule", "because kind is 'image'"),
    ("asset-video-task-rule", "because kind is 'video'"),
)
_TASK_RULES: Final = (_ASSET_RULES[3], _ASSET_RULES[4])

_CODES: Final = {
    "additionalProperties": "additional-property",
    "required": "required",
    "type": "type",
    "enum": "enum",
    "const": "const",
    "minLength": "min-length",
    "maxLength": "max-length",
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusiveMinimum": "exclusive-minimum",
    "exclusiveMaximum": "exclusive-maximum",
    "minItems": "min-items",
    "maxItems": "max-items",
    "uniqueItems": "unique-items",
    "minProperties": "min-properties",
    "maxProperties": "max-properties",
    "propertyNames": "invalid-property-name",
    "not": "reserved-id",
    "falseSchema": "not-allowed",
}


def field_name(path: Sequence[str | int]) -> str:
    """How a message names the place: the last member name and any indexes after it."""
    suffix = ""
    for token in reversed(path):
        if isinstance(token, int):
            suffix = f"[{token}]{suffix}"
        else:
            return f"{token}{suffix}"
    return f"pack{suffix}"


def _one_of(options: Sequence[Any]) -> str:
    return known(options, show)


_OP_SYNONYMS: Final[Mapping[str, str]] = {
    **dict.fromkeys(["and", "&&", "every", "both"], "all"),
    **dict.fromkeys(["or", "||", "some", "either"], "any"),
    **dict.fromkeys(["!", "negate"], "not"),
    **dict.fromkeys(["==", "=", "equals", "equal", "is"], "eq"),
    **dict.fromkeys(["!=", "<>", "neq", "not_equal", "not_equals", "notequal", "differs"], "ne"),
    **dict.fromkeys([">", "greater", "greater_than", "more_than", "above"], "gt"),
    **dict.fromkeys([">=", "ge", "greater_or_equal", "greater_than_or_equal", "at_least"], "gte"),
    **dict.fromkeys(["<", "less", "less_than", "fewer_than", "below"], "lt"),
    **dict.fromkeys(["<=", "le", "less_or_equal", "less_than_or_equal", "at_most"], "lte"),
    **dict.fromkeys(["in", "has", "includes", "include", "member", "contain"], "contains"),
    **dict.fromkeys(["answered", "observation", "answer", "asked"], "observed"),
    **dict.fromkeys(["true", "false", "const", "constant", "bool", "boolean"], "literal"),
}
"""What a hand-written condition op most often means, where the nearest spelling would mislead
(``neq`` is as near ``eq`` as ``ne``; ``and`` nearer ``any`` than ``all``)."""


def _did_you_mean(value: Any, options: Iterable[Any], *, loose: bool = False) -> str:
    if not isinstance(value, str):
        return ""
    candidate = nearest(value, (option for option in options if isinstance(option, str)), loose=loose)
    return "" if candidate is None else f"; did you mean {show(candidate)}?"


@dataclass(frozen=True, slots=True)
class _Error:
    """One jsonschema-rs error, with what every message builder needs."""

    keyword: str
    details: dict[str, Any]
    path: JsonPath
    value: Any
    field: str
    location: str | None
    tokens: list[str]
    text: str
    code: str
    because: str

    @classmethod
    def of(cls, error: Any, index: SchemaIndex) -> _Error:
        keyword: str = error.kind.name
        location = error.absolute_keyword_location
        uri, tokens, _ = index.node(location)
        code, because = _rule_reason(uri, tokens) or (_CODES.get(keyword, _kebab(keyword)), "")
        path = tuple(error.instance_path)
        return cls(
            keyword,
            error.kind.as_dict(),
            path,
            error.instance,
            field_name(path),
            location,
            tokens,
            error.message,
            code,
            because,
        )

    def finding(self, message: str, code: str | None = None, hint: str = "") -> RawFinding:
        """A finding at the value, with the conditional rule's reason, if any, then ``hint`` appended.

        The "did you mean" hint ends the message, so that its question mark ends the sentence.
        """
        suffix = f" ({self.because})" if self.because else ""
        return RawFinding(self.path, code or self.code, f"{self.field}: {message}{suffix}{hint}")


_Builder = Callable[[_Error], Iterator[RawFinding]]


def _type(e: _Error) -> Iterator[RawFinding]:
    expected = " or ".join(e.details.get("types", []))
    got = "null" if e.value is None else f"{json_type(e.value)} {show(e.value)}"
    yield e.finding(f"expected {expected}, got {got}")


def _enum(e: _Error, elsewhere: str = "") -> Iterator[RawFinding]:
    """An enum's message: what is allowed, and the value's version (``elsewhere``) or the nearest allowed one."""
    options = e.details.get("options", [])
    hint = f"; {elsewhere}" if elsewhere else _did_you_mean(e.value, options)
    if e.tokens[:3] == ["$defs", "Condition", "then"] and e.tokens[-3:] == ["properties", "op", "enum"]:
        meant = _OP_SYNONYMS.get(e.value.strip().lower()) if isinstance(e.value, str) and not elsewhere else None
        if meant is not None and meant in options:
            hint = f"; did you mean {show(meant)}?"
        elif not elsewhere:  # ops are short and few: 'al', 'an' and 'no' are typos of 'all', 'any' and 'not'
            hint = _did_you_mean(e.value, options, loose=True)
        yield e.finding(f"{show(e.value)} is not a condition op; use one of {_one_of(options)}", "unknown-op", hint)
    elif e.tokens[-4:] == ["Observation", "properties", "type", "enum"]:
        message = f"{show(e.value)} is not an observation type; use one of {_one_of(options)}"
        yield e.finding(message, "unknown-observation-type", hint)
    else:
        yield e.finding(f"{show(e.value)} is not one of {_one_of(options)}", hint=hint)


def _const(e: _Error) -> Iterator[RawFinding]:
    yield e.finding(f"expected {show(e.details.get('expected_value'))}, got {show(e.value)}")


def _pattern(e: _Error) -> Iterator[RawFinding]:
    pattern = e.details.get("pattern", "")
    code, rule = _PATTERNS.get(pattern, ("pattern", f"does not match the pattern {pattern!r}"))
    if pattern not in _PATTERNS and e.tokens[-2:-1] == ["NonBlank"]:
        if e.value == "":
            return  # min-length already says it: one violation for one empty string
        code, rule = "blank-string", "must contain a non-whitespace character"
    yield e.finding(f"{show(e.value)} {rule}", code)


def _property_names(e: _Error) -> Iterator[RawFinding]:
    inner = e.details.get("error")
    key = getattr(inner, "instance", None)
    inner_kind = getattr(inner, "kind", None)
    if getattr(inner_kind, "name", "") == "pattern":
        rule = _PATTERNS[ID_PATTERN][1]
    else:
        allowed = inner_kind.as_dict().get("options", []) if inner_kind is not None else []
        rule = f"is not one of {_one_of(allowed)}{_did_you_mean(key, allowed)}"
    if isinstance(key, str):
        yield RawFinding((*e.path, key), e.code, f"{e.field}: key {show(key)} {rule}", Target.KEY)
    else:
        yield e.finding(f"a key {rule}")


def _length(e: _Error) -> Iterator[RawFinding]:
    length = len(e.value) if isinstance(e.value, str) else 0
    limit = e.details.get("limit")
    if e.keyword == "minLength" and length == 0:
        yield e.finding("must not be empty")
    elif e.keyword == "minLength":
        yield e.finding(f"{show(e.value)} is {length} characters long; at least {limit} required")
    else:
        yield e.finding(f"is {length} characters long; at most {limit} allowed")


_BOUND_WORDS: Final = {
    "minimum": "is less than the minimum of {}",
    "maximum": "is greater than the maximum of {}",
    "exclusiveMinimum": "must be greater than {}",
    "exclusiveMaximum": "must be less than {}",
}


def _bound(e: _Error) -> Iterator[RawFinding]:
    yield e.finding(f"{show(e.value)} {_BOUND_WORDS[e.keyword].format(e.details.get('limit'))}")


def _size(e: _Error) -> Iterator[RawFinding]:
    count = len(e.value) if isinstance(e.value, list | dict) else 0
    noun, plural = ("item", "items") if e.keyword.endswith("Items") else ("property", "properties")
    bound, verb = ("at least", "required") if e.keyword.startswith("min") else ("at most", "allowed")
    has = f"{count} {noun if count == 1 else plural}"
    yield e.finding(f"has {has}; {bound} {e.details.get('limit')} {verb}")


def _unique(e: _Error) -> Iterator[RawFinding]:
    yield e.finding(f"items must be unique; {_first_repeat(e.value)} appears more than once")


def _reserved(e: _Error) -> Iterator[RawFinding]:
    yield e.finding(f"{show(e.value)} is reserved; choose another id (not 'world' or 'reader')")


def _fallback(e: _Error) -> Iterator[RawFinding]:
    yield e.finding(e.text)


_BUILDERS: Final[dict[str, _Builder]] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "pattern": _pattern,
    "propertyNames": _property_names,
    "minLength": _length,
    "maxLength": _length,
    **dict.fromkeys(_BOUND_WORDS, _bound),
    **dict.fromkeys(("minItems", "maxItems", "minProperties", "maxProperties"), _size),
    "uniqueItems": _unique,
    "not": _reserved,
}
"""Keyword -> message builder; ``required`` and ``additionalProperties`` are gathered per object
(see :class:`_Objects`); any other keyword gets :func:`_fallback`."""


@dataclass(slots=True)
class _Object:
    """What one object lacks and has too many of, gathered over all of its errors."""

    label: str
    value: Any = None  # the object itself
    missing: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (code, because) -> names
    unknown: dict[str, list[str]] = field(default_factory=dict)  # code -> names
    allowed: list[str] = field(default_factory=list)


class _Objects:
    """Missing and unknown properties per object, turned into findings once all are in."""

    def __init__(self, index: SchemaIndex, version: Version) -> None:
        self._index = index
        self._version = version
        self._objects: dict[JsonPath, _Object] = {}

    def add(self, e: _Error) -> None:
        target = self._objects.setdefault(e.path, _Object(e.field, e.value))
        if e.keyword == "required":
            names = target.missing.setdefault((e.code, e.because), [])
            if e.details["property"] not in names:
                names.append(e.details["property"])
            return
        names = target.unknown.setdefault(e.code, [])
        names.extend(key for key in e.details.get("unexpected", []) if key not in names)
        parent = self._index.parent(e.location) or {}
        target.allowed = [*target.allowed, *(p for p in parent.get("properties", {}) if p not in target.allowed)]

    def findings(self) -> Iterator[RawFinding]:
        for path, target in self._objects.items():
            yield from self._object(path, target)

    def _object(self, path: JsonPath, target: _Object) -> Iterator[RawFinding]:
        plain_missing = target.missing.get(("required", ""), [])
        for code, keys in target.unknown.items():
            for key in keys:
                yield RawFinding((*path, key), code, self._unknown(path, target, key, plain_missing), Target.KEY)
        for (code, because), names in target.missing.items():
            yield from self._misspelt(path, target, code, because, names)
            if not names:
                continue
            if len(names) == 1:
                message = f"{target.label}: missing required property {show(names[0])}"
            else:
                message = f"{target.label}: missing required properties: {', '.join(show(n) for n in names)}"
            message = f"{message} ({because})" if because else message
            yield RawFinding(path, code, message + self._or_kind(path, target, names))

    def _or_kind(self, path: JsonPath, target: _Object, missing: list[str]) -> str:
        """``; or add 'guidance', which makes it another kind of object, one without 'visibility'``.

        Said when exactly one member, added, turns the object into a kind that needs none of the
        missing ones (a guided achievement whose ``guidance`` was deleted is told of it).
        """
        if not isinstance(target.value, Mapping) or _tagged(target.value):
            return ""  # an object that names its kind (op, type, kind) is not told to become another
        kinds = self._index.kinds_at(self._version, path)
        mine = [kind for kind in kinds if set(missing) <= kind]
        present = {k for k in target.value if isinstance(k, str)}
        for kind in kinds:
            if any(name in kind for name in missing) or not present <= kind:
                continue
            added = sorted(kind - present - set().union(*mine)) if mine else []
            if len(added) == 1:
                without = ", ".join(show(name) for name in missing)
                return f"; or add {show(added[0])}, which makes it another kind of object, one without {without}"
        return ""

    def _misspelt(
        self, path: JsonPath, target: _Object, code: str, because: str, missing: list[str]
    ) -> Iterator[RawFinding]:
        """One finding, at the key, for each member of an open object that misspells a missing one.

        A closed object reports such a member as unknown, with the suggestion; an open one (the
        pack's root, an entry) accepts it silently, so the missing member's finding names it, and
        points at the misspelt key (``"instruction"``), where the fix is, not at the object's
        ``{``. The names it stands for are taken out of ``missing``.
        """
        if not isinstance(target.value, Mapping):
            return
        declared = self._index.properties_at(self._version, path)
        strays = [key for key in target.value if isinstance(key, str) and key not in declared]
        for key in strays:
            name = nearest(key, missing, loose=True)
            if name is None:
                continue
            missing.remove(name)
            reason = f" ({because})" if because else ""
            message = (
                f"{target.label}: missing required property {show(name)}{reason}; "
                f"{show(key)} looks like a misspelling of it: did you mean {show(name)}?"
            )
            yield RawFinding((*path, key), code, message, Target.KEY)

    def _unknown(self, path: JsonPath, target: _Object, key: str, missing: list[str]) -> str:
        """The message for one unknown property; a missing one it misspells is then not reported."""
        start = f"{target.label}: unknown property {show(key)}"
        # Loose: a missing member is a short, closed list, and 'closing' means 'closing_text'.
        candidate = nearest(key, missing, loose=True)
        if candidate is not None:
            missing.remove(candidate)
            return f"{start}; did you mean {show(candidate)}, which is missing?"
        if key in self._index.properties_at(self._version, path):
            # Another kind of object may have it here (another op, type or kind): no version has more.
            return f"{start}; {show(key)} belongs to another kind of object here{_tagged(target.value)}"
        elsewhere = self._versions_with(path, key)
        if elsewhere:
            return f"{start}; {show(key)} {elsewhere}, and this pack declares {self._version}"
        candidate = nearest(key, target.allowed)
        if candidate is not None:
            return f"{start}; did you mean {show(candidate)}?"
        other = nearest(key, sorted(self._index.properties_at(self._version, path) - set(target.allowed)))
        if other is not None and not self._fits(path, target, key, other):
            other = None  # the object's other members rule that kind out: the suggestion would lead nowhere
        if other is not None:  # a member of another kind here: the errors above are of the kind it is not
            moot = self._moot(path, target, other)
            return f"{start}; did you mean {show(other)} (which makes it another kind of object{moot})?"
        return f"{start}; remove it or use one of: {known(target.allowed) or 'none'}"

    def _fits(self, path: JsonPath, target: _Object, key: str, other: str) -> bool:
        """Whether some kind of object that has ``other`` also has every other member the object has."""
        present = (
            {k for k in target.value if isinstance(k, str) and k != key} if isinstance(target.value, Mapping) else set()
        )
        return any(present <= kind for kind in self._index.kinds_with(self._version, path, other))

    def _moot(self, path: JsonPath, target: _Object, other: str) -> str:
        """Drop what only the kind the object is not requires; ``, one without 'visibility'`` names it."""
        kinds = self._index.kinds_with(self._version, path, other)
        if not kinds:
            return ""
        dropped: list[str] = []
        for names in target.missing.values():
            dropped += [name for name in names if not any(name in kind for kind in kinds)]
            names[:] = [name for name in names if any(name in kind for kind in kinds)]
        return f", one without {', '.join(show(name) for name in dropped)}" if dropped else ""

    def _versions_with(self, path: JsonPath, key: str) -> str:
        having = [v for v in SUPPORTED_VERSIONS if v != self._version and key in self._index.properties_at(v, path)]
        later = [v for v in having if v > self._version]
        if later:
            return f"exists from {later[0]}"
        if having:
            return f"exists up to {having[-1]}"
        return ""


_TAGS: Final = ("type", "op", "kind")
"""Members that say which kind of object an object is (an observation's type, a condition's op, ...)."""


def _tagged(value: Any) -> str:
    """``, not to one whose type is 'boolean'`` when the object names its kind, else nothing."""
    if isinstance(value, Mapping):
        for tag in _TAGS:
            if isinstance(value.get(tag), str):
                return f", not to one whose {tag} is {show(value[tag])}"
    return ""


def _value_elsewhere(e: _Error, index: SchemaIndex, version: Version) -> str:
    """``'image/apng' exists from 0.5, and this pack declares 0.3`` for a value another version allows here."""
    if not isinstance(e.value, str) or e.value in index.values_at(version, e.path):
        return ""
    having = [v for v in SUPPORTED_VERSIONS if v != version and e.value in index.values_at(v, e.path)]
    later = [v for v in having if v > version]
    if later:
        return f"{show(e.value)} exists from {later[0]}, and this pack declares {version}"
    if having:
        return f"{show(e.value)} exists up to {having[-1]}, and this pack declares {version}"
    return ""


def convert(errors: Iterable[Any], index: SchemaIndex, version: Version) -> list[RawFinding]:
    """The findings that jsonschema-rs errors stand for (``version``: the pack's declared one)."""
    found: list[RawFinding] = []
    objects = _Objects(index, version)
    for error in errors:
        e = _Error.of(error, index)
        if e.keyword in ("required", "additionalProperties"):
            objects.add(e)
        elif e.keyword == "enum":
            found.extend(_enum(e, _value_elsewhere(e, index, version)))
        else:
            found.extend(_BUILDERS.get(e.keyword, _fallback)(e))
    found.extend(objects.findings())
    return found


def _rule_reason(uri: str, tokens: list[str]) -> tuple[str, str] | None:
    in_asset_rule = uri.endswith("pack-0.2.json") and tokens[:3] == ["$defs", "Asset", "allOf"] and len(tokens) > 4
    if in_asset_rule and tokens[3].isdigit() and tokens[4] == "then":
        return _ASSET_RULES[int(tokens[3])]
    if uri.endswith("common.json") and tokens[:2] in (["$defs", "ImageTask"], ["$defs", "VideoTask"]):
        return _TASK_RULES[0] if tokens[1] == "ImageTask" else _TASK_RULES[1]
    return None


def _first_repeat(value: Any) -> str:
    if isinstance(value, list):
        seen: list[Any] = []
        for item in value:
            if item in seen:
                return show(item)
            seen.append(item)
    return "an item"


def _kebab(name: str) -> str:
    return "".join(f"-{c.lower()}" if c.isupper() else c for c in name).lstrip("-")

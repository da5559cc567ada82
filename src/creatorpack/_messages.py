"""Turn raw JSON Schema errors into violations with a stable code and a message that names the fix.

Codes are kebab-case names of the contract rule that was broken; the table of codes is in
``docs/validation.md``. Pattern errors are named after the contract type whose pattern failed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from creatorpack import _locate

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

_JSON_TYPES: Final = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
    type(None): "null",
}


@dataclass(frozen=True, slots=True)
class RawViolation:
    """A violation before line/column are known: where (path and target kind), code and message."""

    path: tuple[str | int, ...]
    target: int
    code: str
    message: str


def show(value: Any, limit: int = 60) -> str:
    """A short, quoted rendering of a JSON value for messages: ``'fr'``, ``3``, ``null``."""
    if isinstance(value, str):
        return repr(value if len(value) <= limit else value[: limit - 1] + "…")
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_type(value: Any) -> str:
    """The JSON type name of a parsed value."""
    for kind, name in _JSON_TYPES.items():
        if type(value) is kind:
            return name
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return type(value).__name__


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
    return ", ".join(show(option) for option in options)


class SchemaIndex:
    """Resolves an error's absolute keyword location to the schema node, for richer messages."""

    def __init__(self, documents: dict[str, dict[str, Any]]) -> None:
        self._documents = documents

    def node(self, location: str | None) -> tuple[str, list[str], Any]:
        if not location or "#" not in location:
            return "", [], None
        uri, _, fragment = location.partition("#")
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in fragment.split("/")[1:]]
        node: Any = self._documents.get(uri.rsplit("/", 1)[-1])
        for token in tokens:
            if isinstance(node, dict):
                node = node.get(token)
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return uri, tokens, None
        return uri, tokens, node

    def parent(self, location: str | None) -> Any:
        if not location or "#" not in location:
            return None
        return self.node(location.rsplit("/", 1)[0])[2]


def convert(error: Any, index: SchemaIndex) -> Iterator[RawViolation]:
    """Yield the violations one jsonschema-rs error stands for (one per unexpected property)."""
    kind = error.kind
    name: str = kind.name
    details: dict[str, Any] = kind.as_dict()
    path = tuple(error.instance_path)
    value = error.instance
    field = field_name(path)
    location = error.absolute_keyword_location
    uri, tokens, _ = index.node(location)
    code = _CODES.get(name, _kebab(name))
    reason = _rule_reason(uri, tokens)
    if reason is not None:
        code, because = reason
    else:
        because = ""

    if name == "additionalProperties":
        parent = index.parent(location) or {}
        allowed = ", ".join(parent.get("properties", {})) or "none"
        for key in details.get("unexpected", []):
            yield RawViolation(
                (*path, key),
                _locate.KEY,
                code,
                f"{field}: unknown property {show(key)}; remove it or use one of: {allowed}",
            )
        return
    if name == "required":
        message = f"{field}: missing required property {show(details['property'])}"
    elif name == "type":
        expected = " or ".join(details.get("types", []))
        message = f"{field}: expected {expected}, got {json_type(value)} {show(value)}"
    elif name == "enum":
        options = details.get("options", [])
        if tokens[:3] == ["$defs", "Condition", "then"] and tokens[-3:] == ["properties", "op", "enum"]:
            code = "unknown-op"
            message = f"{field}: {show(value)} is not a condition op; use one of {_one_of(options)}"
        elif tokens[-4:] == ["Observation", "properties", "type", "enum"]:
            code = "unknown-observation-type"
            message = f"{field}: {show(value)} is not an observation type; use one of {_one_of(options)}"
        else:
            message = f"{field}: {show(value)} is not one of {_one_of(options)}"
    elif name == "const":
        message = f"{field}: expected {show(details.get('expected_value'))}, got {show(value)}"
    elif name == "pattern":
        pattern = details.get("pattern", "")
        code, rule = _PATTERNS.get(pattern, ("pattern", f"does not match the pattern {pattern!r}"))
        if pattern not in _PATTERNS and tokens[-2:-1] == ["NonBlank"]:
            if value == "":
                return  # min-length already says it: one violation for one empty string
            code, rule = "blank-string", "must contain a non-whitespace character"
        message = f"{field}: {show(value)} {rule}"
    elif name == "propertyNames":
        inner = details.get("error")
        key = getattr(inner, "instance", None)
        inner_kind = getattr(getattr(inner, "kind", None), "name", "")
        if inner_kind == "pattern":
            rule = _PATTERNS[ID_PATTERN][1]
        else:
            options = getattr(inner, "kind", None)
            allowed = options.as_dict().get("options", []) if options is not None else []
            rule = f"is not one of {_one_of(allowed)}"
        if isinstance(key, str):
            yield RawViolation((*path, key), _locate.KEY, code, f"{field}: key {show(key)} {rule}")
            return
        message = f"{field}: a key {rule}"
    elif name in ("minLength", "maxLength"):
        length = len(value) if isinstance(value, str) else 0
        limit = details.get("limit")
        if name == "minLength" and length == 0:
            message = f"{field}: must not be empty"
        elif name == "minLength":
            message = f"{field}: {show(value)} is {length} characters long; at least {limit} required"
        else:
            message = f"{field}: is {length} characters long; at most {limit} allowed"
    elif name in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        limit = details.get("limit")
        words = {
            "minimum": f"is less than the minimum of {limit}",
            "maximum": f"is greater than the maximum of {limit}",
            "exclusiveMinimum": f"must be greater than {limit}",
            "exclusiveMaximum": f"must be less than {limit}",
        }[name]
        message = f"{field}: {show(value)} {words}"
    elif name in ("minItems", "maxItems", "minProperties", "maxProperties"):
        count = len(value) if isinstance(value, list | dict) else 0
        noun = "item" if name.endswith("Items") else "property"
        plural = (noun + "s") if noun == "item" else "properties"
        limit = details.get("limit")
        bound = "at least" if name.startswith("min") else "at most"
        verb = "required" if name.startswith("min") else "allowed"
        has = f"{count} {noun if count == 1 else plural}"
        message = f"{field}: has {has}; {bound} {limit} {verb}"
    elif name == "uniqueItems":
        message = f"{field}: items must be unique; {_first_repeat(value)} appears more than once"
    elif name == "not":
        message = f"{field}: {show(value)} is reserved; choose another id (not 'world' or 'reader')"
    else:
        message = f"{field}: {error.message}"
    if because:
        message = f"{message} ({because})"
    yield RawViolation(path, _locate.VALUE, code, message)


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

"""Strict JSON reading: orjson on the fast path, the standard library where exactness needs it.

Strict means RFC 8259 in UTF-8: no byte order mark, no NaN or Infinity, no number that
overflows a double, nothing after the document, and every duplicate member name found.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

import orjson

from creatorpack.errors import LimitError, NotJSONError

MAX_BYTES: Final = 64 * 1024 * 1024
"""Default size limit of one document: 64 MiB."""
MAX_DEPTH: Final = 254
"""Nesting limit of arrays and objects, the root included: what orjson serialises and what
jsonschema-rs reports errors for. Deeper documents are refused, not half-checked."""

# A number of 19 or more digits may be outside the 64-bit range that orjson keeps exact.
_LONG_DIGITS: Final = re.compile(rb"[0-9]{19,}")
_BOM: Final = b"\xef\xbb\xbf"
_CANONICAL_INDENT: Final = orjson.OPT_INDENT_2
_WIDE_BOMS: Final = (
    (b"\x00\x00\xfe\xff", "UTF-32BE"),
    (b"\xff\xfe\x00\x00", "UTF-32LE"),
    (b"\xfe\xff", "UTF-16BE"),
    (b"\xff\xfe", "UTF-16LE"),
)
# RFC 4627 section 3: JSON text starts with two ASCII characters, so the NUL bytes among the
# first four tell UTF-16 and UTF-32 apart from UTF-8 (True: a NUL byte).
_WIDE_BY_NULS: Final[dict[tuple[bool, ...], str]] = {
    (True, True, True, False): "UTF-32BE",
    (False, True, True, True): "UTF-32LE",
    (True, False, True, False): "UTF-16BE",
    (False, True, False, True): "UTF-16LE",
}


@dataclass(frozen=True, slots=True)
class Parsed:
    """A parsed document and the member names that occurred more than once, per object path."""

    value: Any
    duplicates: tuple[tuple[tuple[str | int, ...], str], ...] = ()
    exact: bool = False
    """Whether integers beyond 64 bits were kept exactly (orjson reads them as doubles)."""


class _DuplicateKeys(dict[str, Any]):
    __slots__ = ("duplicated",)
    duplicated: list[str]


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) == len(pairs):
        return result
    marked = _DuplicateKeys(result)
    seen: set[str] = set()
    marked.duplicated = []
    for key, _ in pairs:
        if key in seen and key not in marked.duplicated:
            marked.duplicated.append(key)
        seen.add(key)
    return marked


def too_deep(line: int | None = None, column: int | None = None) -> LimitError:
    """The error for a document nested deeper than :data:`MAX_DEPTH`."""
    return LimitError(f"nested deeper than {MAX_DEPTH} levels of arrays and objects", line=line, column=column)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _exact_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text} is too large for a double")
    return value


def _position(text: str | bytes, offset: int) -> tuple[int, int]:
    before = text[:offset]
    before_text = before.decode("utf-8", errors="replace") if isinstance(before, bytes) else before
    line = before_text.count("\n") + 1
    return line, len(before_text) - (before_text.rfind("\n") + 1) + 1


def _wide_encoding(data: bytes) -> NotJSONError | None:
    """The error for text saved as UTF-16 or UTF-32 (a byte order mark, or NUL bytes where ASCII goes)."""
    name = next((name for bom, name in _WIDE_BOMS if data.startswith(bom)), None)
    if name is None and len(data) >= 4:
        name = _WIDE_BY_NULS.get(tuple(byte == 0 for byte in data[:4]))
    if name is None:
        return None
    return NotJSONError(f"saved as {name}, not UTF-8; save the file as UTF-8", line=1, column=1)


def _not_utf8(data: bytes) -> NotJSONError | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(data, exc.start)
        return NotJSONError(
            f"not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}; save the file as UTF-8",
            line=line,
            column=column,
        )
    return None


def _syntax_error(data: bytes | str, exc: orjson.JSONDecodeError) -> NotJSONError | LimitError:
    reason = str(exc).split(": line ", 1)[0]
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    at = exc.pos
    signed_constant = reason == "no digit after sign" and text[at : at + 3] in ("NaN", "Inf")
    if signed_constant:
        at -= 1  # orjson stops after the sign of -Infinity or -NaN; point at the value, sign included
    line, column = _position(text, at)
    if "depth limit" in reason or "recursion" in reason.lower():
        return too_deep(line, column)
    if "infinity" in reason:
        reason = "number too large: it overflows a double (RFC 8259 section 6)"
    elif signed_constant or (reason.startswith("unexpected character") and text[at : at + 3] in ("NaN", "Inf", "-In")):
        reason = "NaN and Infinity are not JSON values"
    elif reason == "unexpected content after document":
        reason = "unexpected content after the JSON document"
    return NotJSONError(f"invalid JSON: {reason}{_hint(reason, text[at : at + 2])}", line=line, column=column)


def _hint(reason: str, here: str) -> str:
    """What a hand-written mistake at the error's position most likely is, and its fix ('' when unsure)."""
    if here in ("//", "/*"):
        return "; JSON has no comments: remove it"
    if reason.endswith(("expected ',' or '}'", "expected ',' or ']'")) and here[:1] in ('"', "{", "["):
        return "; a comma is missing before this"
    if reason.startswith("unexpected character") and here[:1] == "'":
        return '; JSON strings and keys take double quotes ("), not single ones'
    if reason.endswith("expected a string key") and (here[:1].isalpha() or here[:1] == "_"):
        return '; a key is a string in double quotes, e.g. "key": value'
    if reason == "unexpected control character in string" and here[:1] in ("\n", "\r", "\t"):
        return "; a line break or tab inside a string is written \\n or \\t"
    return ""


def parse(data: bytes | str, *, max_bytes: int = MAX_BYTES, what: str = "document") -> Parsed:
    """Parse strict JSON text, raising :class:`NotJSONError` or :class:`LimitError`.

    ``what`` names the input in messages ("empty file").
    """
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", errors="surrogatepass"))
    if size > max_bytes:
        raise LimitError(f"document is {size:,} bytes; the limit is {max_bytes:,} bytes")
    if isinstance(data, bytes) and data.startswith(_BOM):
        raise NotJSONError("starts with a UTF-8 byte order mark (BOM); save the file without it", line=1, column=1)
    if isinstance(data, str) and data.startswith("\ufeff"):
        raise NotJSONError("starts with a byte order mark (U+FEFF); remove it", line=1, column=1)
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if not data.strip():
            raise NotJSONError(f"invalid JSON: empty {what}", line=1, column=1) from None
        if isinstance(data, bytes):
            utf8 = _wide_encoding(data) or _not_utf8(data)
            if utf8 is not None:
                raise utf8 from None
        raise _syntax_error(data, exc) from None
    if not _may_have_duplicates(data, value):
        return Parsed(value)
    return parse_exact(data)


def may_have_long_integers(data: bytes | str) -> bool:
    """Whether the text may hold an integer that orjson does not keep exactly (19+ digits).

    A run of digits counts when a structural character (or a minus sign) and white space are
    all that stand before it: runs inside strings, such as in sha256 values, mostly do not.
    """
    raw = data if isinstance(data, bytes) else data.encode("utf-8", errors="surrogatepass")
    for match in _LONG_DIGITS.finditer(raw):
        before = raw[max(0, match.start() - 64) : match.start()].rstrip(b" \t\r\n-")
        if not before or before[-1:] in (b":", b"[", b","):
            return True
    return False


def _may_have_duplicates(data: bytes | str, value: Any) -> bool:
    # Every member contributes one ':' outside strings. If the text holds no escaped colon, its
    # colons equal the re-serialised document's exactly when no member was dropped as a duplicate.
    # (A lone backslash test runs at memchr speed and spares most documents the escape search.)
    # Text that is exactly orjson's own form of the value (as the CLI writes packs: two-space
    # indent and a final newline) cannot have lost a member, so one comparison at memcmp speed
    # replaces both colon counts; the indent is chosen from the text's first bytes.
    option = 0
    if isinstance(data, bytes) and data.startswith(b'{\n  "'):
        option = _CANONICAL_INDENT | (orjson.OPT_APPEND_NEWLINE if data.endswith(b"\n") else 0)
    try:
        serialised = orjson.dumps(value, option=option)
    except TypeError:  # orjson.dumps stops past MAX_DEPTH levels
        raise too_deep() from None
    if isinstance(data, bytes):
        if serialised == data:
            return False
        if b"\\" in data and b"\\u003" in data:
            return True
        return data.count(b":") != serialised.count(b":")
    if "\\" in data and "\\u003" in data:
        return True
    return data.count(":") != serialised.count(b":")


def may_repeat_keys(data: bytes | str) -> bool:
    """Whether JSON text may repeat a member name in some object: cheap (orjson), False only when it does not.

    Text that is not JSON orjson reads (a number past a double, say) may: :func:`duplicate_keys` decides.
    """
    try:
        value = orjson.loads(data)
        return _may_have_duplicates(data, value)
    except (orjson.JSONDecodeError, LimitError):
        return True


def duplicate_keys(data: bytes | str) -> tuple[tuple[tuple[str | int, ...], str], ...]:
    """Every (object path, member name) that JSON text repeats, shallowest first; none for text that is not JSON.

    Exact, and slower than :func:`may_repeat_keys` (the standard library calls back for every object):
    ask it about the text that one did not clear.
    """
    try:
        value = json.loads(data, object_pairs_hook=_pairs_hook)
    except (ValueError, RecursionError):
        return ()
    return tuple(_find_duplicates(value))


def parse_exact(data: bytes | str) -> Parsed:
    """Parse JSON text that orjson accepted, keeping big integers exact and finding duplicates."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    duplicated: list[bool] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = _pairs_hook(pairs)
        if isinstance(result, _DuplicateKeys):
            duplicated.append(True)
        return result

    try:
        value = json.loads(
            text, object_pairs_hook=pairs_hook, parse_constant=_reject_constant, parse_float=_exact_float
        )
    except RecursionError:
        raise too_deep() from None
    except (ValueError, json.JSONDecodeError) as exc:  # orjson accepted it, so only numbers get here
        raise NotJSONError(f"invalid JSON: {exc}") from None
    return Parsed(value, tuple(_find_duplicates(value)) if duplicated else (), exact=True)


def _find_duplicates(value: Any) -> list[tuple[tuple[str | int, ...], str]]:
    found: list[tuple[tuple[str | int, ...], str]] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node, _DuplicateKeys):
                found.extend((path, key) for key in node.duplicated)
            stack.extend(((*path, k), v) for k, v in node.items() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in enumerate(node) if isinstance(v, dict | list))
    found.sort(key=lambda item: (len(item[0]), [str(t) for t in item[0]]))
    return found

"""Places in a pack's text as a language server needs them: LSP positions, string tokens, the member at the cursor.

LSP positions count UTF-16 code units within a line; creatorpack's findings count code points
(1-based). The scanner here is tolerant: it reads text that is being typed and is often not
JSON yet, so completion works in the middle of a half-written member.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

__all__ = ["Place", "Text", "Token"]

_NEWLINE: Final = re.compile("\n")
_LEXEME: Final = re.compile(r'"(?:[^"\\\n]|\\.)*"?|[{}\[\],:]')
"""A string (its closing quote may be missing while it is typed) or a structural character."""


@dataclass(frozen=True, slots=True)
class Place:
    """A line and a character in LSP terms: both 0-based, the character in UTF-16 code units."""

    line: int
    character: int


@dataclass(frozen=True, slots=True)
class Token:
    """A string token of the text: its offsets (quotes included), its content, and the member it is in."""

    start: int
    end: int
    value: str
    member: str | None
    """The member name of a value (of the array that holds it, for an array item); ``None`` for a key."""


class Text:
    """One version of a document's text."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.starts = [0, *(found.end() for found in _NEWLINE.finditer(source))]

    def offset(self, place: Place) -> int:
        """The code point offset of an LSP position (clamped to the text)."""
        line = min(max(place.line, 0), len(self.starts) - 1)
        start = self.starts[line]
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.source)
        units = 0
        at = start
        while at < end and units < place.character:
            units += 2 if ord(self.source[at]) > 0xFFFF else 1
            at += 1
        return at

    def place(self, offset: int) -> Place:
        """The LSP position of a code point offset."""
        offset = min(max(offset, 0), len(self.source))
        line = _bisect(self.starts, offset)
        start = self.starts[line]
        return Place(line, sum(2 if ord(c) > 0xFFFF else 1 for c in self.source[start:offset]))

    def at(self, line: int, column: int) -> int:
        """The offset of creatorpack's 1-based ``line`` and ``column`` (in code points)."""
        line = min(max(line - 1, 0), len(self.starts) - 1)
        return min(self.starts[line] + max(column - 1, 0), len(self.source))

    def token_end(self, start: int) -> int:
        """The offset just past the token at ``start``: a string's closing quote, else the next delimiter."""
        text = self.source
        if start < len(text) and text[start] == '"':
            at = start + 1
            while at < len(text) and text[at] not in '"\n':
                at += 2 if text[at] == "\\" else 1
            return min(at + 1, len(text))
        at = start
        while at < len(text) and text[at] not in ',:{}[]"\n':
            at += 1
        return max(at, start + 1)

    def token_at(self, offset: int) -> Token | None:
        """The string token that contains ``offset`` (its quotes included), with the member it is in.

        Just past an unterminated string (``"path": "/`` as it is typed) is still in it.
        """
        for token in self._tokens():
            closed = token.end > token.start + 1 and self.source[token.end - 1] == '"'
            if token.start <= offset <= token.end - closed:
                return token
            if token.start > offset:
                return None
        return None

    def path_at(self, offset: int) -> tuple[str | int, ...]:
        """The JSON path (member names, array indexes) of the innermost value at ``offset``.

        Tolerant like :meth:`tokens`: on text that is being typed it is the path the text has so far.
        On a member name, it is the path of that member's value.
        """
        text = self.source
        frames: list[list[str | int | None]] = []  # per open container: its member name or index so far
        kinds: list[str] = []
        pending: str | None = None  # a string just read in an object: a member name if a ':' follows
        for lexeme in _LEXEME.finditer(text):
            start, char = lexeme.start(), lexeme.group()
            if start > offset:
                break
            if char[0] == '"':
                if kinds and kinds[-1] == "{" and frames[-1][0] is None:
                    pending = _unescape(char[1:-1] if len(char) > 1 and char.endswith('"') else char[1:])
                    if offset < lexeme.end():  # on a member name: the path of its value
                        frames[-1][0] = pending
                        break
                continue
            if char == ":" and pending is not None and frames:
                frames[-1][0], pending = pending, None
            elif char in "{[":
                kinds.append(char)
                frames.append([None if char == "{" else 0])
            elif char in "}]" and frames:
                kinds.pop()
                frames.pop()
            elif char == "," and frames:
                current = frames[-1][0]
                frames[-1][0] = current + 1 if isinstance(current, int) else None
        path: list[str | int] = []
        for (member,) in frames:
            if member is None:
                break
            path.append(member)
        return tuple(path)

    def strings(self) -> tuple[dict[tuple[str | int, ...], int], dict[tuple[str | int, ...], int]]:
        """Where each string value and each member name is: ``(values, names)``, by JSON path, in one pass.

        ``values`` maps the path of a string value to its opening quote; ``names`` maps the path of
        a member to the opening quote of its name (a repeated name: the last, the one a parser keeps).
        For text that parses; on other text it is what the text has so far.
        """
        values: dict[tuple[str | int, ...], int] = {}
        names: dict[tuple[str | int, ...], int] = {}
        path: list[str | int | None] = []  # per open container: its member name or index so far
        kinds: list[str] = []
        pending: tuple[str, int] | None = None
        for lexeme in _LEXEME.finditer(self.source):
            char = lexeme.group()
            first = char[0]
            if first == '"':
                if kinds and kinds[-1] == "{" and path[-1] is None:
                    pending = (_unescape(char[1:-1]), lexeme.start())
                elif path:
                    values[tuple(path)] = lexeme.start()  # type: ignore[arg-type]  # no None inside a member
                continue
            if first == ":":
                if pending is not None and path:
                    path[-1] = pending[0]
                    names[tuple(path)] = pending[1]  # type: ignore[arg-type]
                    pending = None
            elif first == ",":
                if path:
                    current = path[-1]
                    path[-1] = current + 1 if isinstance(current, int) else None
            elif first in "{[":
                kinds.append(first)
                path.append(None if first == "{" else 0)
            elif path:  # } or ]
                kinds.pop()
                path.pop()
        return values, names

    def tokens(self) -> list[Token]:
        """Every string token in document order, each with the member it belongs to (tolerant of bad JSON)."""
        return list(self._tokens())

    def _tokens(self) -> Iterator[Token]:
        frames: list[list[str | None]] = []  # per open container: [kind, the member it is in or is at]
        waiting: tuple[int, int, str] | None = None  # a string: a member name if a ':' follows it
        for lexeme in _LEXEME.finditer(self.source):
            char = lexeme.group()
            if waiting is not None:
                start, end, value = waiting
                waiting = None
                if char == ":" and frames and frames[-1][0] == "{":
                    frames[-1][1] = value
                    yield Token(start, end, value, None)
                    continue
                yield Token(start, end, value, frames[-1][1] if frames else None)
            if char[0] == '"':
                inner = char[1:-1] if len(char) > 1 and char.endswith('"') else char[1:]
                waiting = (lexeme.start(), lexeme.end(), _unescape(inner))
            elif char in "{[":
                parent = frames[-1][1] if frames else None  # an array's items are in the array's member
                frames.append([char, parent if char == "[" else None])
            elif char in "}]" and frames:
                frames.pop()
            elif char == "," and frames and frames[-1][0] == "{":
                frames[-1][1] = None
        if waiting is not None:
            start, end, value = waiting
            yield Token(start, end, value, frames[-1][1] if frames else None)


def _unescape(raw: str) -> str:
    if "\\" not in raw:
        return raw
    import json  # noqa: PLC0415 - escapes are rare in ids

    try:
        decoded: str = json.loads(f'"{raw}"')
    except ValueError:
        return raw
    return decoded


def _bisect(starts: list[int], offset: int) -> int:
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low

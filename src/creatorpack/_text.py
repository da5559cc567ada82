"""Text for line-oriented outputs: valid Unicode, and no character that breaks a line or drives a terminal."""

from __future__ import annotations

import unicodedata
from typing import Final

__all__ = ["one_line", "unicode_text"]


def unicode_text(text: str) -> str:
    r"""``text`` as valid Unicode: a file name's undecodable bytes (``\xfe``) or a lone surrogate escaped.

    JSON and SARIF encoders refuse the surrogates a non-UTF-8 file name decodes to.
    """
    if text.isascii():
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no file name decodes to (a pack's "\ud800")
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


_LINE_BREAKING: Final = frozenset(["Cc", "Zl", "Zp"])
_BIDI: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Bidirectional controls: printed raw, a name could reorder the rest of the line ("Trojan Source")."""
_ESCAPES: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text: str) -> str:
    """``text`` for a line-oriented output: valid Unicode, control characters and line separators escaped.

    A pack's member name or path may hold a newline or an ANSI escape; printed raw, it would split a
    finding over two lines or drive the reader's terminal.
    """
    text = unicode_text(text)
    if text.isprintable():
        return text
    return "".join(
        (_ESCAPES.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"))
        if char in _BIDI or unicodedata.category(char) in _LINE_BREAKING
        else char
        for char in text
    )

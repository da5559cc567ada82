"""Each lint rule's documentation, from the installed package: what ``creatorpack rule CODE`` prints.

``rules.md`` beside this module is the "Rules" section of ``docs/lint.md``, shipped inside the
package (a test keeps the two the same), so an installed creatorpack documents its rules without
the repository: a message names ``creatorpack rule CODE``, never a file path.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from typing import Final

__all__ = ["RuleDoc", "rule_doc", "rule_docs"]

_HEADING: Final = re.compile(r"^### `(?P<code>[a-z0-9-]+)`\n", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class RuleDoc:
    """One rule's section: its code and its Markdown text (severity and summary, rationale, bad and good)."""

    code: str
    text: str

    @property
    def bad(self) -> str:
        """The bad example (the code block after ``Bad:``), or nothing."""
        return _block(self.text, "Bad:")

    @property
    def good(self) -> str:
        """The good example (the code block after ``Good:``), or nothing."""
        return _block(self.text, "Good:")


def _block(text: str, label: str) -> str:
    found = re.search(rf"^{label}\n\n```\n(?P<body>.*?)```", text, re.MULTILINE | re.DOTALL)
    return found["body"] if found else ""


@functools.cache
def rule_docs() -> dict[str, RuleDoc]:
    """Every rule's documentation by code, in the order of ``docs/lint.md``."""
    text = resources.files("creatorpack.lint").joinpath("rules.md").read_text(encoding="utf-8")
    headings = list(_HEADING.finditer(text))
    docs: dict[str, RuleDoc] = {}
    for at, heading in enumerate(headings):
        end = headings[at + 1].start() if at + 1 < len(headings) else len(text)
        docs[heading["code"]] = RuleDoc(heading["code"], text[heading.start() : end].strip() + "\n")
    return docs


def rule_doc(code: str) -> RuleDoc | None:
    """The documentation of rule ``code``, or ``None`` when no rule has that code."""
    return rule_docs().get(code)

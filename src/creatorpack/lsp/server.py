"""``creatorpack lsp``: a language server on standard input and output for pack files.

What it offers an editor, for a JSON document that is a pack:

- diagnostics from ``validate`` and ``lint`` as the creator types (debounced: :data:`DEBOUNCE`
  seconds after the last change, and on save), each with its code, its severity and the range
  of the key or value it is about;
- a quick fix (code action) for every "did you mean 'X'?": replace the key or value with ``X``;
- go to definition and find references for ids (an item's ``id``, every ``*_id``/``*_ids`` that
  names it, and the ``id`` of an ``observed`` condition);
- completion of ids where a reference is expected (``asset_id`` offers the assets' ids) and of
  ``op`` values (the condition ops and the effect ops);
- hover over an observation's id: its question, type and choices.

The reachability search runs with :data:`SEARCH` bounds, so a keystroke never waits long.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any, Final

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from creatorpack import __version__
from creatorpack.errors import DocumentError
from creatorpack.lint.linter import LintConfig, lint
from creatorpack.lsp._ids import COLLECTION_OF, REFERENCE_KEY, PackIds
from creatorpack.lsp._text import Place, Text, Token
from creatorpack.play.conditions import CONDITION_OPS
from creatorpack.play.state import EFFECT_OPS

__all__ = ["DEBOUNCE", "SEARCH", "SOURCE", "PackServer", "diagnostics", "serve", "server"]

DEBOUNCE: Final = 0.3
"""Seconds without a change before a document is checked again."""
SEARCH: Final = LintConfig(max_states=2_000, max_seconds=5.0)
"""The lint configuration of the server: the default search bound, a short safety net."""
SOURCE: Final = "creatorpack"
_MEANT: Final = re.compile(r"did you mean '(?P<name>[^']+)'")
_SEVERITY: Final = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}


class PackServer(LanguageServer):
    """The language server, with each document's last good ids and its pending check."""

    def __init__(self) -> None:
        super().__init__("creatorpack", __version__)
        self.ids: dict[str, PackIds] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}

    def text(self, uri: str) -> Text:
        """The document's current text."""
        return Text(self.workspace.get_text_document(uri).source)

    def schedule(self, uri: str, delay: float) -> None:
        """Check ``uri`` after ``delay`` seconds, replacing a check not yet started."""
        waiting = self.pending.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        self.pending[uri] = asyncio.get_running_loop().create_task(self._check(uri, delay))

    async def _check(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        document = self.workspace.get_text_document(uri)
        version, text = document.version, Text(document.source)
        ids = PackIds.of(text)
        if ids is not None:
            self.ids[uri] = ids
        found = await asyncio.get_running_loop().run_in_executor(None, diagnostics, text)
        if self.workspace.get_text_document(uri).version == version:
            params = types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=version)
            self.text_document_publish_diagnostics(params)


def diagnostics(text: Text) -> list[types.Diagnostic]:
    """The validate and lint findings of ``text`` as LSP diagnostics."""
    try:
        report = lint(text.source.encode("utf-8"), SEARCH)
    except DocumentError as exc:  # not JSON (yet), too deep, not an object
        return [_diagnostic(text, exc.line, exc.column, exc.code, exc.message, "error")]
    return [_diagnostic(text, f.line, f.column, f.code, f.message, str(f.severity)) for f in report.findings]


def _diagnostic(
    text: Text, line: int | None, column: int | None, code: str, message: str, severity: str
) -> types.Diagnostic:
    start = text.at(line or 1, column or 1)
    meant = _MEANT.search(message)
    return types.Diagnostic(
        range=types.Range(start=_position(text, start), end=_position(text, text.token_end(start))),
        message=message,
        severity=_SEVERITY.get(severity, types.DiagnosticSeverity.Error),
        code=code,
        source=SOURCE,
        data={"replace": meant["name"]} if meant else None,
    )


def _position(text: Text, offset: int) -> types.Position:
    place = text.place(offset)
    return types.Position(line=place.line, character=place.character)


def _offset(text: Text, position: types.Position) -> int:
    return text.offset(Place(position.line, position.character))


def _range(text: Text, start: int, end: int) -> types.Range:
    return types.Range(start=_position(text, start), end=_position(text, end))


server = PackServer()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def _opened(ls: PackServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def _changed(ls: PackServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, DEBOUNCE)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def _saved(ls: PackServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
async def _closed(ls: PackServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    waiting = ls.pending.pop(uri, None)
    if waiting is not None:
        waiting.cancel()
    ls.ids.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
)
def _quick_fixes(ls: PackServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """A "did you mean 'X'?" diagnostic's fix: its key or value replaced by ``X``."""
    uri = params.text_document.uri
    text = ls.text(uri)
    actions = []
    for found in params.context.diagnostics:
        data: Any = found.data
        if found.source != SOURCE or not isinstance(data, dict) or not isinstance(data.get("replace"), str):
            continue
        start = _offset(text, found.range.start)
        token = text.token_at(start)
        if token is None or token.start != start:
            continue
        edit = types.TextEdit(range=_range(text, token.start, token.end), new_text=_quoted(data["replace"]))
        actions.append(
            types.CodeAction(
                title=f"Replace with {data['replace']!r}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[found],
                is_preferred=True,
                edit=types.WorkspaceEdit(changes={uri: [edit]}),
            )
        )
    return actions


def _quoted(name: str) -> str:
    import json  # noqa: PLC0415

    return json.dumps(name, ensure_ascii=False)


def _token(ls: PackServer, uri: str, position: types.Position) -> tuple[Text, Token | None, PackIds | None]:
    text = ls.text(uri)
    ids = PackIds.of(text) or ls.ids.get(uri)
    return text, text.token_at(_offset(text, position)), ids


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def _definition(ls: PackServer, params: types.DefinitionParams) -> list[types.Location]:
    """Where the item whose id is under the cursor is defined (its ``id``)."""
    uri = params.text_document.uri
    text, token, ids = _token(ls, uri, params.position)
    if token is None or ids is None:
        return []
    return _locations(text, uri, ids.definitions.get(token.value, ()))


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
def _references(ls: PackServer, params: types.ReferenceParams) -> list[types.Location]:
    """Every place that names the id under the cursor (and its definition, when asked for)."""
    uri = params.text_document.uri
    text, token, ids = _token(ls, uri, params.position)
    if token is None or ids is None:
        return []
    places = list(ids.references.get(token.value, ()))
    if params.context.include_declaration:
        places = [*ids.definitions.get(token.value, ()), *places]
    return _locations(text, uri, places)


def _locations(text: Text, uri: str, offsets: Sequence[int]) -> list[types.Location]:
    return [types.Location(uri=uri, range=_range(text, at, text.token_end(at))) for at in offsets]


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=['"']))
def _complete(ls: PackServer, params: types.CompletionParams) -> types.CompletionList:
    """Ids where a reference is expected, and ops as an ``op`` value."""
    uri = params.text_document.uri
    text, token, ids = _token(ls, uri, params.position)
    if token is None or token.member is None:
        return types.CompletionList(is_incomplete=False, items=[])
    inner = _range(text, token.start + 1, max(token.start + 1, token.end - (text.source[token.end - 1] == '"')))
    choices: list[tuple[str, str, types.CompletionItemKind]] = []
    if token.member == "op":
        choices += [(op, "condition op", types.CompletionItemKind.Operator) for op in sorted(CONDITION_OPS)]
        choices += [(op, "effect op", types.CompletionItemKind.Operator) for op in EFFECT_OPS]
    elif ids is not None:
        match = REFERENCE_KEY.match(token.member)
        kind = match["kind"] if match else "observation" if token.member == "id" and _observed(text, token) else None
        if kind is not None:
            collection = COLLECTION_OF[kind]
            known = ids.collections.get(collection, [])
            choices += [(ident, collection, types.CompletionItemKind.Reference) for ident in known]
    items = [
        types.CompletionItem(
            label=label, kind=kind, detail=detail, text_edit=types.TextEdit(range=inner, new_text=label)
        )
        for label, detail, kind in choices
    ]
    return types.CompletionList(is_incomplete=False, items=items)


def _observed(text: Text, token: Token) -> bool:
    """Whether the string is the ``id`` of an ``observed`` condition (its object says ``"op": "observed"``)."""
    opened = text.source.rfind("{", 0, token.start)
    closed = text.source.find("}", token.end)
    return re.search(r'"op"\s*:\s*"observed"', text.source[opened : closed if closed >= 0 else None]) is not None


@server.feature(types.TEXT_DOCUMENT_HOVER)
def _hover(ls: PackServer, params: types.HoverParams) -> types.Hover | None:
    """An observation's question (and its type and choices) over its id."""
    uri = params.text_document.uri
    text, token, ids = _token(ls, uri, params.position)
    if token is None or ids is None or token.member is None or token.value not in ids.observations:
        return None
    observation = ids.observations[token.value]
    lines = [f"**observation `{token.value}`** ({observation.get('type', '?')})", "", str(observation.get("question"))]
    choices = observation.get("choices")
    if isinstance(choices, dict):
        lines += ["", *(f"- `{key}`: {description}" for key, description in choices.items())]
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n".join(lines)),
        range=_range(text, token.start, token.end),
    )


def serve() -> None:
    """Run the server on standard input and output until the client ends it."""
    server.start_io()

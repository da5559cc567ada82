"""``creatorpack lsp``: a language server on standard input and output for pack files.

What it offers an editor, for a JSON document that is a pack (one that names a ``protocol_version``;
other JSON documents get no diagnostics):

- diagnostics from ``validate`` and ``lint`` as the creator types (debounced: :data:`DEBOUNCE`
  seconds after the last change, and on save), each with its code, its severity, the range of the
  key or value it is about, and related locations (what its message names: the first definition
  of a duplicated id, the item a "did you mean" means, a state member); linted with the
  ``[tool.creatorpack.lint]`` table of the nearest ``pyproject.toml`` (:mod:`._config`);
- a quick fix (code action) for every "did you mean 'X'?": replace the key or value with ``X``;
- go to definition and find references for ids (an item's ``id``, every ``*_id``/``*_ids`` that
  names it, and the ``id`` of an ``observed`` condition) and for state paths (a ``path`` of a
  condition or an effect, and the state schema's member);
- rename of an id across the pack (its definitions and every reference), refused with a message
  for a name that is no valid id or that another item already has;
- completion of ids where a reference is expected, of ``op`` values, of state paths in a ``path``
  and of an observation's choice keys in an ``observed`` condition's ``value``;
- hover: an observation's question and choices, an asset's kind, media type and description, a
  state member's type, bounds and initial values, and the condition under the cursor in the words of
  :func:`~creatorpack.contract.conditions.outline` (once it parses).

The reachability search runs with the table's bounds and a short safety net; a check publishes
the findings that need no search first when the search would keep the creator waiting
(:data:`BIG_BYTES`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, Final

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from creatorpack import __version__
from creatorpack.contract.conditions import CONDITION_OPS
from creatorpack.errors import DocumentError
from creatorpack.lint import LintConfig, LintReport, lint
from creatorpack.lsp import _hover
from creatorpack.lsp._config import Settings, SettingsCache
from creatorpack.lsp._ids import COLLECTION_OF, REFERENCE_KEY, PackIds
from creatorpack.lsp._text import Place, Text, Token
from creatorpack.play.state import EFFECT_OPS

__all__ = [
    "BIG_BYTES",
    "DEBOUNCE",
    "ID_PATTERN",
    "SOURCE",
    "Checked",
    "PackServer",
    "RenameRefusedError",
    "check",
    "diagnostics",
    "is_pack",
    "serve",
    "server",
]

DEBOUNCE: Final = 0.05
"""Seconds without a change before a document is checked again: enough to gather a burst of keystrokes."""
BIG_BYTES: Final = 256 * 1024
"""From this size on, a document is checked in two steps (findings first, related locations next), and
the reachability search runs on open and save only, not as the creator types (it may take seconds)."""
SOURCE: Final = "creatorpack"
ID_PATTERN: Final = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,79}$")
"""What an id may be: the contract's ``$defs/Id`` (``common.json``)."""
_MEANT: Final = re.compile(r"did you mean '(?P<name>[^']+)'")
_NAMED: Final = re.compile(r"'(?P<name>[^'\s]+)'")
_SEVERITY: Final = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}


class RenameRefusedError(JsonRpcException):
    """A rename the server will not do; the client shows its message (LSP ``RequestFailed``)."""

    CODE = -32803
    MESSAGE = "rename refused"


class PackServer(LanguageServer):
    """The language server, with each document's names (last good and current) and its pending check."""

    def __init__(self) -> None:
        super().__init__("creatorpack", __version__)
        self.ids: dict[str, PackIds] = {}
        self.fresh: dict[str, tuple[int | None, PackIds | None]] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.settings = SettingsCache()

    def text(self, uri: str) -> Text:
        """The document's current text."""
        return Text(self.workspace.get_text_document(uri).source)

    def names(self, uri: str, text: Text, version: int | None) -> PackIds | None:
        """The names of ``text``, the document at ``version`` (``None``: no JSON object), cached by version."""
        known = self.fresh.get(uri)
        if known is not None and known[0] == version and version is not None:
            return known[1]
        ids = PackIds.of(text)
        self.fresh[uri] = (version, ids)
        if ids is not None:
            self.ids[uri] = ids
        return ids

    def schedule(self, uri: str, delay: float, *, search: bool = True) -> None:
        """Check ``uri`` after ``delay`` seconds, replacing a check not yet started.

        ``search``: whether a big document gets the reachability search (on open and save, not on change).
        """
        waiting = self.pending.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        self.pending[uri] = asyncio.get_running_loop().create_task(self._check(uri, delay, search=search))

    async def _check(self, uri: str, delay: float, *, search: bool) -> None:
        """Lint the document and publish; a big one in two steps, so the findings come fast.

        Step one lints without the reachability search and publishes (no related locations yet:
        finding them means indexing the whole text). Step two indexes the text and publishes again
        with the related locations; on open and save it lints again with the search first, when
        the search would run (lint errors stop it, so a pack with errors is not linted twice). A
        small document is checked in one step, always with the search.
        """
        await asyncio.sleep(delay)
        document = self.workspace.get_text_document(uri)
        if not is_pack(document.source):  # package.json, tsconfig.json, ...: not ours to judge
            self._publish(uri, document.version, [])
            return
        version, text = document.version, Text(document.source)
        settings = self.settings.for_uri(uri)
        loop = asyncio.get_running_loop()
        config = settings.config
        first: Checked | None = None
        if len(document.source) >= BIG_BYTES:
            first = await loop.run_in_executor(None, check, text, _without_search(config))
            if not self._publish(uri, version, diagnostics(text, first, settings)):
                return
            search = search and config.reachability and not _stops_search(first)
        if self._stale(uri, version):  # changed again: its own check follows
            return
        ids = await loop.run_in_executor(None, self.names, uri, text, version)  # this text's: offsets must match
        if first is None or search:
            if self._stale(uri, version):
                return
            first = await loop.run_in_executor(None, check, text, config)
        self._publish(uri, version, diagnostics(text, first, settings, uri, ids))

    def _stale(self, uri: str, version: int | None) -> bool:
        """Whether the document has changed (or closed) since ``version``."""
        document = self.workspace.text_documents.get(uri)
        return document is None or document.version != version

    def _publish(self, uri: str, version: int | None, found: list[types.Diagnostic]) -> bool:
        """Publish ``found`` if the document is still at ``version``; whether it was."""
        if self._stale(uri, version):
            return False
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=version)
        )
        return True


def is_pack(source: str) -> bool:
    """Whether a JSON document is a pack to check: it names a ``protocol_version`` (as ``validate DIR`` picks files).

    Editors start the server for every JSON file; one that never mentions ``protocol_version`` is
    some other JSON document and gets no diagnostics. A pack being written gets them once it does.
    """
    return '"protocol_version"' in source


Checked = LintReport | DocumentError
"""What a check of a text gives: lint's report, or why the text is no pack to lint (not JSON yet, ...)."""


def check(text: Text, config: LintConfig) -> Checked:
    """Validate and lint ``text``."""
    try:
        return lint(text.source.encode("utf-8"), config)
    except DocumentError as exc:  # not JSON (yet), too deep, not an object
        return exc


def _stops_search(checked: Checked) -> bool:
    """Whether the reachability search would not run on this text (it is no valid pack, or lint found errors)."""
    return isinstance(checked, DocumentError) or not checked.contract.valid or bool(checked.errors)


def _without_search(config: LintConfig) -> LintConfig:
    return dataclasses.replace(config, reachability=False)


def diagnostics(
    text: Text, checked: Checked, settings: Settings | None = None, uri: str = "", ids: PackIds | None = None
) -> list[types.Diagnostic]:
    """A check's findings as LSP diagnostics (related locations from ``ids``); a wrong lint table's first."""
    settings = settings or Settings.default()
    found: list[types.Diagnostic] = []
    if settings.problem is not None:
        found.append(_diagnostic(text, 1, 1, "lint-config", settings.problem, "warning"))
    if isinstance(checked, DocumentError):
        return [*found, _diagnostic(text, checked.line, checked.column, checked.code, checked.message, "error")]
    for f in checked.findings:
        severity = "error" if settings.strict else str(f.severity)
        found.append(_diagnostic(text, f.line, f.column, f.code, f.message, severity, uri, ids))
    return found


def _diagnostic(
    text: Text,
    line: int | None,
    column: int | None,
    code: str,
    message: str,
    severity: str,
    uri: str = "",
    ids: PackIds | None = None,
) -> types.Diagnostic:
    start = text.at(line or 1, column or 1)
    meant = _MEANT.search(message)
    related = list(_related(text, uri, ids, message, start)) if ids is not None and uri else []
    return types.Diagnostic(
        range=types.Range(start=_position(text, start), end=_position(text, text.token_end(start))),
        message=message,
        severity=_SEVERITY.get(severity, types.DiagnosticSeverity.Error),
        code=code,
        source=SOURCE,
        related_information=related or None,
        data={"replace": meant["name"]} if meant else None,
    )


def _related(
    text: Text, uri: str, ids: PackIds, message: str, start: int
) -> Iterable[types.DiagnosticRelatedInformation]:
    """Where what the message names ('an_id', '/a/state/path') is defined, other than the finding's own place."""
    seen = {start}
    for match in _NAMED.finditer(message):
        name = match["name"]
        for at in ids.defined(name):
            if at in seen or at >= len(text.source):
                continue
            seen.add(at)
            what = "state member" if name.startswith("/") else " and ".join(ids.kinds.get(name, ["item"]))
            yield types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri, range=_range(text, at, text.token_end(at))),
                message=f"{name!r} is defined here ({what})",
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
    ls.schedule(params.text_document.uri, DEBOUNCE, search=False)


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
    return json.dumps(name, ensure_ascii=False)


def _token(
    ls: PackServer, uri: str, position: types.Position, *, current: bool = False
) -> tuple[Text, Token | None, PackIds | None]:
    """The text, the string token at ``position`` and the names (``current``: of this text, never the last good)."""
    document = ls.workspace.get_text_document(uri)
    text = Text(document.source)
    ids = ls.names(uri, text, document.version)
    if ids is None and not current:
        ids = ls.ids.get(uri)
    return text, text.token_at(_offset(text, position)), ids


def _name(ids: PackIds, token: Token) -> str | None:
    """The id or state path the token names: a state schema member's key, or a string that is one."""
    for path, at in ids.member_at.items():
        if at == token.start:
            return path
    known = token.value in ids.definitions or token.value in ids.references
    return token.value if known or token.value in ids.members else None


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def _definition(ls: PackServer, params: types.DefinitionParams) -> list[types.Location]:
    """Where the item whose id is under the cursor is defined (its ``id``), or the state path's member."""
    uri = params.text_document.uri
    text, token, ids = _token(ls, uri, params.position, current=True)
    name = _name(ids, token) if token is not None and ids is not None else None
    if name is None or ids is None:
        return []
    return _locations(text, uri, ids.defined(name))


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
def _references(ls: PackServer, params: types.ReferenceParams) -> list[types.Location]:
    """Every place that names the id or state path under the cursor (and its definition, when asked for)."""
    uri = params.text_document.uri
    text, token, ids = _token(ls, uri, params.position, current=True)
    name = _name(ids, token) if token is not None and ids is not None else None
    if name is None or ids is None:
        return []
    places = ids.used(name)
    if params.context.include_declaration:
        places = [*ids.defined(name), *places]
    return _locations(text, uri, places)


def _locations(text: Text, uri: str, offsets: Sequence[int]) -> list[types.Location]:
    return [types.Location(uri=uri, range=_range(text, at, text.token_end(at))) for at in offsets]


def _renamed(ls: PackServer, uri: str, position: types.Position) -> tuple[Text, PackIds, Token]:
    """The id under the cursor that a rename would change, or :class:`RenameRefusedError` saying why not."""
    text, token, ids = _token(ls, uri, position, current=True)
    if ids is None:
        raise RenameRefusedError("the pack is not a JSON object now; fix what breaks it, then rename")
    if token is None:
        raise RenameRefusedError("put the cursor on an id (an item's id or a reference to it) to rename it")
    if token.member is None or token.value.startswith("/") or _name(ids, token) is None:
        raise RenameRefusedError(f"{token.value!r} is no id of this pack; only ids can be renamed")
    if token.value not in ids.definitions:
        raise RenameRefusedError(f"no item has the id {token.value!r}; only a defined id can be renamed")
    return text, ids, token


@server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
def _prepare_rename(ls: PackServer, params: types.PrepareRenameParams) -> types.PrepareRenamePlaceholder:
    """The id under the cursor (its text without quotes), or an error saying why it cannot be renamed."""
    text, _, token = _renamed(ls, params.text_document.uri, params.position)
    return types.PrepareRenamePlaceholder(range=_inner(text, token), placeholder=token.value)


@server.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
def _rename(ls: PackServer, params: types.RenameParams) -> types.WorkspaceEdit:
    """The id under the cursor renamed at its definitions and every reference (one workspace edit)."""
    uri, new = params.text_document.uri, params.new_name
    text, ids, token = _renamed(ls, uri, params.position)
    if new == token.value:
        return types.WorkspaceEdit(changes={uri: []})
    if ID_PATTERN.match(new) is None:
        raise RenameRefusedError(
            f"{new!r} is no valid id: an id starts with a letter, then letters, digits, '_', '.' or '-' (80 at most)"
        )
    if new in ids.kinds:
        taken = " and ".join(ids.kinds[new])
        raise RenameRefusedError(f"the id {new!r} is taken (in {taken}); pick another name")
    places = sorted({*ids.defined(token.value), *ids.used(token.value)})
    edits = []
    for at in places:
        found = text.token_at(at)
        if found is not None and found.start == at:
            edits.append(types.TextEdit(range=_inner(text, found), new_text=json.dumps(new)[1:-1]))
    return types.WorkspaceEdit(changes={uri: edits})


def _inner(text: Text, token: Token) -> types.Range:
    """A string token's range without its quotes."""
    closed = token.end > token.start + 1 and text.source[token.end - 1] == '"'
    return _range(text, token.start + 1, max(token.start + 1, token.end - closed))


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=['"', "/"]))
def _complete(ls: PackServer, params: types.CompletionParams) -> types.CompletionList:
    """Ids where a reference is expected, ops as an ``op``, state paths as a ``path``, choice keys as a ``value``."""
    uri = params.text_document.uri
    text, token, ids = _token(ls, uri, params.position)
    if token is None or token.member is None:
        return types.CompletionList(is_incomplete=False, items=[])
    choices: list[tuple[str, str, types.CompletionItemKind]] = []
    op = _sibling(text, token, "op")
    if token.member == "op":
        choices += [(op, "condition op", types.CompletionItemKind.Operator) for op in sorted(CONDITION_OPS)]
        choices += [(op, "effect op", types.CompletionItemKind.Operator) for op in EFFECT_OPS]
    elif ids is None:
        pass
    elif token.member == "path" and op is not None:
        choices += [
            (path, _hover.shape(schema), types.CompletionItemKind.Field) for path, schema in ids.members.items()
        ]
    elif token.member == "value" and op == "observed":
        observation = ids.observations.get(_sibling(text, token, "id") or "", {})
        listed = observation.get("choices")
        if isinstance(listed, dict):
            choices += [(key, str(about), types.CompletionItemKind.EnumMember) for key, about in listed.items()]
    else:
        match = REFERENCE_KEY.match(token.member)
        kind = match["kind"] if match else "observation" if token.member == "id" and op == "observed" else None
        if kind is not None:
            collection = COLLECTION_OF[kind]
            known = ids.collections.get(collection, [])
            choices += [(ident, collection, types.CompletionItemKind.Reference) for ident in known]
    inner = _inner(text, token)
    items = [
        types.CompletionItem(
            label=label, kind=kind, detail=detail, text_edit=types.TextEdit(range=inner, new_text=label)
        )
        for label, detail, kind in choices
    ]
    return types.CompletionList(is_incomplete=False, items=items)


def _sibling(text: Text, token: Token, member: str) -> str | None:
    """The string value of ``member`` in the (flat) object that holds the token: ``op`` of a condition, ..."""
    opened = text.source.rfind("{", 0, token.start)
    closed = text.source.find("}", token.end)
    body = text.source[opened : closed if closed >= 0 else None]
    found = re.search(rf'"{re.escape(member)}"\s*:\s*"([^"\\]*)"', body)
    return found[1] if found else None


@server.feature(types.TEXT_DOCUMENT_HOVER)
def _hovered(ls: PackServer, params: types.HoverParams) -> types.Hover | None:
    """What the string under the cursor names (observation, asset, state member), and the condition it is in."""
    uri = params.text_document.uri
    text, token, ids = _token(ls, uri, params.position)
    if ids is None:
        return None
    offset = _offset(text, params.position)
    lines: list[str] = []
    name = _name(ids, token) if token is not None else None
    if token is not None and name is not None:
        if name in ids.observations and token.member is not None:
            lines += _hover.observation(name, ids.observations[name])
        elif name in ids.collections.get("assets", []) and token.member is not None:
            lines += _hover.asset(name, ids.items[name])
        elif name in ids.members:
            lines += _hover.member(name, ids)
    version = ls.workspace.get_text_document(uri).version
    if ls.names(uri, text, version) is not None:  # a condition's place is known in the current text only
        reading = _hover.condition_at(ids, text.path_at(offset))
        lines += ["", "---", "", *reading] if lines and reading else reading
    if not lines:
        return None
    where = _range(text, token.start, token.end) if token is not None else None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n".join(lines)), range=where
    )


def serve() -> None:
    """Run the server on standard input and output until the client ends it."""
    server.start_io()

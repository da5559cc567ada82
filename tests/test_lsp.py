"""``creatorpack lsp`` over real stdio (pytest-lsp): diagnostics, quick fixes, ids, completion and hover."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .conftest import EXAMPLES, example

RICH = EXAMPLES / "0.5" / "rich.json"


@pytest_lsp.fixture(  # type: ignore[untyped-decorator]  # pytest-lsp leaves its decorator untyped
    config=ClientServerConfig(server_command=[sys.executable, "-m", "creatorpack", "lsp"])
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=EXAMPLES.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


async def _open(client: LanguageClient, text: str, name: str = "pack.json") -> str:
    uri = (Path("/tmp") / name).as_uri()
    params = types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=params))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


def _at(text: str, needle: str, after: int = 0) -> types.Position:
    """The position of the first ``needle`` (at or after the ``after``-th character) in ``text``."""
    offset = text.index(needle, after)
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


@pytest.mark.asyncio
async def test_diagnostics_carry_code_severity_and_the_keys_range(client: LanguageClient) -> None:
    pack = example("0.5", "rich")
    ending = pack["progression"]["endings"][0]
    ending["closing"] = ending.pop("closing_text")
    text = json.dumps(pack, indent=2)
    uri = await _open(client, text)
    [found] = client.diagnostics[uri]
    assert (found.code, found.source) == ("additional-property", "creatorpack")
    assert found.severity == types.DiagnosticSeverity.Error
    assert found.range.start == _at(text, '"closing"')
    assert found.range.end.character == found.range.start.character + len('"closing"')
    # The quick fix replaces the key with the one it meant.
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=found.range,
            context=types.CodeActionContext(diagnostics=[found]),
        )
    )
    assert actions is not None
    [action] = actions
    assert isinstance(action, types.CodeAction)
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.edit is not None
    assert action.edit.changes is not None
    [edit] = action.edit.changes[uri]
    assert (edit.range, edit.new_text) == (found.range, '"closing_text"')


@pytest.mark.asyncio
async def test_a_change_is_checked_again_and_lint_warnings_are_warnings(client: LanguageClient) -> None:
    text = RICH.read_text(encoding="utf-8")
    uri = await _open(client, text)
    assert list(client.diagnostics[uri]) == []
    changed = text.replace('"tagline": "', '"tagline": "Become the Keeper of the Light. ', 1)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=changed)],
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    codes = {(d.code, d.severity) for d in client.diagnostics[uri]}
    assert codes == {("spoiler-title", types.DiagnosticSeverity.Warning)}


@pytest.mark.asyncio
async def test_definition_references_completion_and_hover_for_ids(client: LanguageClient) -> None:
    text = RICH.read_text(encoding="utf-8")
    uri = await _open(client, text)
    document = types.TextDocumentIdentifier(uri=uri)
    used = _at(text, '"helped_stranger"', text.index('"op": "observed"'))
    inside = types.Position(line=used.line, character=used.character + 3)
    asked = types.DefinitionParams(text_document=document, position=inside)
    defined = await client.text_document_definition_async(asked)
    assert isinstance(defined, list)
    [place] = defined
    assert isinstance(place, types.Location)
    assert text.splitlines()[place.range.start.line].strip().startswith('"id": "helped_stranger"')
    found = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=document, position=inside, context=types.ReferenceContext(include_declaration=True)
        )
    )
    assert found is not None
    assert len(found) == text.count('"helped_stranger"')
    hover = await client.text_document_hover_async(types.HoverParams(text_document=document, position=inside))
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert "Did the reader help the shivering stranger" in hover.contents.value
    # Completion: the assets' ids as an asset_id, the ops as an op.
    asset = _at(text, '"artwork_asset_id": "')
    where = types.Position(line=asset.line, character=asset.character + len('"artwork_asset_id": "') + 1)
    listed = await client.text_document_completion_async(types.CompletionParams(text_document=document, position=where))
    assert isinstance(listed, types.CompletionList)
    labels = {item.label for item in listed.items}
    assert {"first_light_art", "kindness_art", "mara_portrait"} <= labels
    assert "helped_stranger" not in labels
    op = _at(text, '"op": "')
    where = types.Position(line=op.line, character=op.character + len('"op": "') + 1)
    listed = await client.text_document_completion_async(types.CompletionParams(text_document=document, position=where))
    assert isinstance(listed, types.CompletionList)
    assert {"all", "observed", "increment", "add"} <= {item.label for item in listed.items}


@pytest.mark.asyncio
async def test_text_that_is_not_json_yet_is_one_diagnostic_where_it_breaks(client: LanguageClient) -> None:
    uri = await _open(client, '{\n  "protocol_version": "0.5",\n  "manifest": {\n')
    [found] = client.diagnostics[uri]
    assert found.code == "invalid-json"
    assert found.severity == types.DiagnosticSeverity.Error

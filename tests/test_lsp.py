"""``creatorpack lsp`` over real stdio (pytest-lsp): diagnostics, quick fixes, ids, completion and hover."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

import creatorpack
from creatorpack.contract import RawFinding, Target, locate_and_sort
from creatorpack.contract.conditions import CONDITION_OPS
from creatorpack.lsp._hover import condition_at
from creatorpack.lsp._ids import PackIds
from creatorpack.lsp._text import Text
from creatorpack.lsp.server import BIG_BYTES, ID_PATTERN, RenameRefusedError
from creatorpack.play.state import EFFECT_OPS

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


def _document(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def _inside(text: str, needle: str, after: int = 0) -> types.Position:
    """A position two characters into the first ``needle`` at or after ``after``: inside its string."""
    found = _at(text, needle, after)
    return types.Position(line=found.line, character=found.character + 2)


def _apply(text: str, edits: Sequence[types.TextEdit]) -> str:
    """``text`` with ``edits`` applied (single-line ranges, as the server makes them; UTF-16 = code points here)."""
    lines = text.split("\n")
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = edit.range.start, edit.range.end
        assert start.line == end.line
        line = lines[start.line]
        lines[start.line] = line[: start.character] + edit.new_text + line[end.character :]
    return "\n".join(lines)


@pytest.mark.asyncio
async def test_rename_changes_the_id_and_every_reference_and_nothing_else(client: LanguageClient) -> None:
    text = RICH.read_text(encoding="utf-8")
    uri = await _open(client, text)
    position = _inside(text, '"helped_stranger"', text.index('"op": "observed"'))
    prepared = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=_document(uri), position=position)
    )
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "helped_stranger"
    assert prepared.range.end.character - prepared.range.start.character == len("helped_stranger")
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=_document(uri), position=position, new_name="aided_stranger")
    )
    assert edit is not None
    assert edit.changes is not None
    renamed = _apply(text, edit.changes[uri])
    assert len(edit.changes[uri]) == text.count('"helped_stranger"')
    assert '"helped_stranger"' not in renamed
    assert json.loads(renamed) == json.loads(text.replace('"helped_stranger"', '"aided_stranger"'))
    # The renamed pack is as clean as the original.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=renamed)],
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("new_name", "said"),
    [
        ("2nd_try", "is no valid id"),
        ("with space", "is no valid id"),
        ("met_mara", "the id 'met_mara' is taken (in observations)"),
        ("mara_sheet", "the id 'mara_sheet' is taken (in assets)"),
    ],
)
async def test_rename_refuses_an_invalid_or_taken_id_with_a_message(
    client: LanguageClient, new_name: str, said: str
) -> None:
    text = RICH.read_text(encoding="utf-8")
    uri = await _open(client, text)
    position = _inside(text, '"helped_stranger"')
    with pytest.raises(JsonRpcException) as refused:
        await client.text_document_rename_async(
            types.RenameParams(text_document=_document(uri), position=position, new_name=new_name)
        )
    assert said in refused.value.message
    assert refused.value.code == RenameRefusedError.CODE


@pytest.mark.asyncio
async def test_prepare_rename_refuses_what_is_no_id(client: LanguageClient) -> None:
    text = RICH.read_text(encoding="utf-8")
    uri = await _open(client, text)
    for needle, said in [('"guidance"', "is no id of this pack"), ('"protocol_version"', "is no id of this pack")]:
        with pytest.raises(JsonRpcException) as refused:
            await client.text_document_prepare_rename_async(
                types.PrepareRenameParams(text_document=_document(uri), position=_inside(text, needle))
            )
        assert said in refused.value.message


@pytest.mark.asyncio
async def test_state_paths_complete_nested_and_go_to_their_schema_member(client: LanguageClient) -> None:
    text = RICH.read_text(encoding="utf-8")
    # A new condition's path being typed: "path": "/ completes to every state member, nested ones too.
    typing = text.replace('"path": "/lamp_lit"', '"path": "/"', 1)
    uri = await _open(client, typing)
    at = _at(typing, '"path": "/"')
    where = types.Position(line=at.line, character=at.character + len('"path": "/'))
    listed = await client.text_document_completion_async(
        types.CompletionParams(text_document=_document(uri), position=where)
    )
    assert isinstance(listed, types.CompletionList)
    details = {item.label: item.detail for item in listed.items}
    assert set(details) == {
        "/trust",
        "/lamp_lit",
        "/inventory",
        "/harbour",
        "/harbour/storm_level",
        "/harbour/ferry_running",
    }
    assert details["/trust"] == "integer, at least `0`, at most `10`"
    uri = await _open(client, text, "paths.json")
    used = _inside(text, '"/harbour/storm_level"')
    defined = await client.text_document_definition_async(
        types.DefinitionParams(text_document=_document(uri), position=used)
    )
    assert isinstance(defined, list)
    [place] = defined
    assert isinstance(place, types.Location)
    assert text.splitlines()[place.range.start.line].strip().startswith('"storm_level": {')
    found = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=_document(uri), position=used, context=types.ReferenceContext(include_declaration=False)
        )
    )
    assert found is not None
    assert len(found) == text.count('"path": "/harbour/storm_level"')


@pytest.mark.asyncio
async def test_an_observed_conditions_value_completes_to_its_choice_keys(client: LanguageClient) -> None:
    text = RICH.read_text(encoding="utf-8")
    needle = '"id": "lamp_choice",\n'
    start = text.index(needle, text.index('"op": "observed"'))
    value = text.index('"value": "relit"', start)
    typing = text[:value] + '"value": "' + text[value + len('"value": "relit') :]
    uri = await _open(client, typing)
    at = _at(typing, '"value": ""', start)
    where = types.Position(line=at.line, character=at.character + len('"value": "'))
    listed = await client.text_document_completion_async(
        types.CompletionParams(text_document=_document(uri), position=where)
    )
    assert isinstance(listed, types.CompletionList)
    assert {item.label: item.detail for item in listed.items} == {
        "relit": "Refilled the reservoir and relit the lamp",
        "left_dark": "Left the lamp dark",
        "asked_mara": "Asked Mara why the lamp is dark",
    }


async def _hover(client: LanguageClient, uri: str, position: types.Position) -> str:
    hover = await client.text_document_hover_async(types.HoverParams(text_document=_document(uri), position=position))
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


@pytest.mark.asyncio
async def test_hover_shows_an_asset_a_state_member_and_a_conditions_reading(client: LanguageClient) -> None:
    text = RICH.read_text(encoding="utf-8")
    uri = await _open(client, text)
    shown = await _hover(client, uri, _inside(text, '"mara_sheet"', text.index('"asset_id"')))
    assert shown.startswith("**asset `mara_sheet`** (image, image/png)")
    assert "Hand-drawn character sheet of Mara Quell" in shown
    shown = await _hover(client, uri, _inside(text, '"/trust"'))
    assert shown.startswith("**state `/trust`**: integer, at least `0`, at most `10`")
    assert "initial: `0` (entry `opening`), `3` (entry `return_visit`)" in shown
    assert shown.endswith("**condition**: holds when\n\n- /trust is less than 2")  # the condition it is in
    shown = await _hover(client, uri, _inside(text, '"trust": {'))  # the member in the state schema
    assert shown.startswith("**state `/trust`**")
    # The condition under the cursor: the whole group when on its op.
    shown = await _hover(client, uri, _inside(text, '"all"'))
    assert shown == "\n".join(
        [
            "**condition**: holds when",
            "",
            "- all of these hold:",
            "  - /trust is less than 2",
            "  - /lamp\\_lit is false",
        ]
    )
    shown = await _hover(client, uri, _inside(text, '"not"'))
    assert shown.endswith('- not (/inventory contains "logbook\\_page")')
    # A condition being typed (an op the grammar does not know yet) reads as nothing, and neither
    # does its group; the server goes on answering.
    typing = text.replace('"op": "lt"', '"op": "l"', 1)
    uri = await _open(client, typing, "typing.json")
    shown = await _hover(client, uri, _inside(typing, '"/trust"'))
    assert shown.startswith("**state `/trust`**")
    assert "**condition**" not in shown
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=_document(uri), position=_inside(typing, '"all"'))
    )
    assert hover is None


@pytest.mark.asyncio
async def test_diagnostics_name_related_locations(client: LanguageClient) -> None:
    pack = example("0.5", "rich")
    pack["assets"].append({**pack["assets"][1]})  # a duplicate id
    text = json.dumps(pack, indent=2).replace('"artwork_asset_id": "kindness_art"', '"artwork_asset_id": "kindnes_art"')
    uri = await _open(client, text)
    by_code = {d.code: d for d in client.diagnostics[uri]}
    duplicate = by_code["duplicate-id"]
    assert duplicate.related_information is not None
    [first] = duplicate.related_information
    ident = pack["assets"][1]["id"]
    defined = _at(text, f'"id": "{ident}"')
    assert first.location.range.start == types.Position(line=defined.line, character=defined.character + len('"id": '))
    assert first.location.range.start != duplicate.range.start
    assert first.message == f"{ident!r} is defined here (assets)"
    unknown = by_code["unknown-reference"]
    assert "did you mean 'kindness_art'" in unknown.message
    assert unknown.related_information is not None
    defined = _at(text, '"id": "kindness_art"')
    assert [r.location.range.start for r in unknown.related_information] == [
        types.Position(line=defined.line, character=defined.character + len('"id": '))
    ]


@pytest.mark.asyncio
async def test_the_nearest_pyprojects_lint_table_is_honoured(client: LanguageClient, tmp_path: Path) -> None:
    text = RICH.read_text(encoding="utf-8").replace('"tagline": "', '"tagline": "Become the Keeper of the Light. ', 1)
    folder = tmp_path / "packs" / "drafts"
    folder.mkdir(parents=True)
    pack = folder / "pack.json"
    pack.write_text(text, encoding="utf-8")
    pyproject = tmp_path / "pyproject.toml"
    said: list[str] = []

    async def codes() -> set[tuple[str | int | None, types.DiagnosticSeverity | None]]:
        item = types.TextDocumentItem(uri=pack.as_uri(), language_id="json", version=1, text=text)
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        found = {(d.code, d.severity) for d in client.diagnostics[pack.as_uri()]}
        said[:] = [d.message for d in client.diagnostics[pack.as_uri()] if d.code == "lint-config"]
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=pack.as_uri()))
        )
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return found

    assert await codes() == {("spoiler-title", types.DiagnosticSeverity.Warning)}
    pyproject.write_text("[tool.creatorpack.lint]\nstrict = true\n", encoding="utf-8")
    assert await codes() == {("spoiler-title", types.DiagnosticSeverity.Error)}
    pyproject.write_text('[tool.creatorpack.lint]\nignore = ["spoiler-title"]\n', encoding="utf-8")
    assert await codes() == set()
    pyproject.write_text(
        '[tool.creatorpack.lint.per-item-ignores]\n"/publication" = ["spoiler-title"]\n', encoding="utf-8"
    )
    assert await codes() == set()
    pyproject.write_text('[tool.creatorpack.lint]\nignore = ["spoiler-titel"]\n', encoding="utf-8")
    found = await codes()
    assert found == {
        ("lint-config", types.DiagnosticSeverity.Warning),
        ("spoiler-title", types.DiagnosticSeverity.Warning),
    }
    [message] = said
    assert message.startswith(f"{pyproject}: [tool.creatorpack.lint] ignore: unknown rule code 'spoiler-titel'")
    assert message.endswith("; checked with the default settings")


def test_the_servers_id_pattern_and_ops_are_the_contracts() -> None:
    common = json.loads((Path(creatorpack.__file__).parent / "contract" / "schemas" / "common.json").read_text())
    defs = common["$defs"]
    assert ID_PATTERN.pattern == defs["Id"]["pattern"]
    condition_ops = defs["Condition"]["then"]["else"]["else"]["else"]["else"]["else"]["properties"]["op"]["enum"]
    assert sorted(CONDITION_OPS) == sorted(condition_ops)
    effect_ops = [defs["Increment"]["properties"]["op"]["const"], *defs["MembershipEffect"]["properties"]["op"]["enum"]]
    assert sorted(EFFECT_OPS) == sorted(effect_ops)


def test_a_condition_reads_in_the_contracts_words_with_the_questions_and_answers() -> None:
    pack = example("0.5", "rich")
    pack["progression"]["achievements"][0]["when"] = {
        "op": "any",
        "conditions": [
            {"op": "observed", "id": "helped_stranger", "value": True},
            {"op": "not", "condition": {"op": "gte", "path": "/trust", "value": 3}},
            {"op": "not", "condition": {"op": "all", "conditions": [{"op": "literal", "value": False}] * 2}},
            {"op": "contains", "path": "/inventory", "value": "a*b_c"},
        ],
    }
    text = Text(json.dumps(pack, indent=2))
    ids = PackIds.of(text)
    assert ids is not None
    where = ("progression", "achievements", 0, "when", "conditions", 3, "value")
    assert condition_at(ids, where) == ["**condition**: holds when", "", '- /inventory contains "a\\*b\\_c"']
    assert condition_at(ids, where[:4]) == [
        "**condition**: holds when",
        "",
        "- any of these holds:",
        "  - helped\\_stranger (Did the reader help the shivering stranger on the quay this turn?) was answered true",
        "  - not (/trust is at least 3)",
        "  - this does not hold:",
        "    - all of these hold:",
        "      - never",
        "      - never",
        '  - /inventory contains "a\\*b\\_c"',
    ]
    assert condition_at(ids, ("runtime", "rules", 3, "effects", 0, "path")) == []  # an effect: no condition


@pytest.mark.asyncio
async def test_a_big_pack_gets_its_findings_first_and_their_related_locations_next(client: LanguageClient) -> None:
    pack = example("0.5", "rich")
    pack["assets"].append({**pack["assets"][1]})  # a duplicate id
    pack["assets"][0]["description"] = "A long description. " * (BIG_BYTES // 20)
    text = json.dumps(pack, indent=2)
    assert len(text) >= BIG_BYTES
    uri = (Path("/tmp") / "big.json").as_uri()
    item = types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    first = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    [found] = first.diagnostics
    assert (found.code, found.related_information) == ("duplicate-id", None)
    second = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    [found] = second.diagnostics
    assert found.code == "duplicate-id"
    assert found.related_information is not None


@pytest.mark.asyncio
async def test_json_that_is_no_pack_gets_no_diagnostics(client: LanguageClient) -> None:
    uri = await _open(client, '{"name": "my-app", "version": "1.0.0", "scripts": {}}', "package.json")
    assert list(client.diagnostics[uri]) == []
    uri = await _open(client, '{"protocol_version": "0.5"}', "new-pack.json")
    assert {d.code for d in client.diagnostics[uri]} == {"required"}


@pytest.mark.parametrize("version", ["0.3", "0.4", "0.5"])
def test_the_one_pass_string_index_agrees_with_the_contracts_locator(version: str) -> None:
    """``Text.strings`` (the server's fast index of ids) puts every string where ``locate_and_sort`` does."""
    source = (EXAMPLES / version / "rich.json").read_text(encoding="utf-8")
    compact = json.dumps(json.loads(source), ensure_ascii=False, separators=(",", ":"))
    for written in (source, compact):
        text = Text(written)
        values, names = text.strings()
        paths = list(_string_paths(json.loads(written), ()))
        assert set(values) == set(paths)
        located = locate_and_sort([RawFinding(path, "x", "") for path in paths], written.encode())
        assert {p.raw.path: text.at(p.line or 0, p.column or 0) for p in located} == values
        keys = locate_and_sort([RawFinding(path, "x", "", Target.KEY) for path in names], written.encode())
        assert {p.raw.path: text.at(p.line or 0, p.column or 0) for p in keys} == names


def _string_paths(node: object, path: tuple[str | int, ...]) -> Iterator[tuple[str | int, ...]]:
    if isinstance(node, str):
        yield path
    elif isinstance(node, dict):
        for key, child in node.items():
            yield from _string_paths(child, (*path, key))
    elif isinstance(node, list):
        for at, child in enumerate(node):
            yield from _string_paths(child, (*path, at))


@pytest.mark.asyncio
async def test_a_path_being_typed_completes_from_the_last_good_version(client: LanguageClient) -> None:
    text = RICH.read_text(encoding="utf-8")
    uri = await _open(client, text)
    typing = text.replace('"path": "/lamp_lit",\n', '"path": "/\n', 1)  # no closing quote yet: no JSON now
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=typing)],
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert [d.code for d in client.diagnostics[uri]] == ["invalid-json"]
    at = _at(typing, '"path": "/\n')
    where = types.Position(line=at.line, character=at.character + len('"path": "/'))
    listed = await client.text_document_completion_async(
        types.CompletionParams(text_document=_document(uri), position=where)
    )
    assert isinstance(listed, types.CompletionList)
    assert "/harbour/storm_level" in {item.label for item in listed.items}
    [edit] = [item.text_edit for item in listed.items if item.label == "/trust"]
    assert isinstance(edit, types.TextEdit)
    assert (edit.range.start.line, edit.range.end.line) == (at.line, at.line)  # the newline stays
    assert edit.range.end.character == where.character

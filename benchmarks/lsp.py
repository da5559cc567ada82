"""Language server latency: from the last ``didChange`` to the ``publishDiagnostics`` of a ~1 MB pack.

``creatorpack lsp`` runs as a subprocess and is driven over real stdio by pygls's client, as an
editor would: the pack is opened, then edited again and again with one incremental change each
(one character typed into the tagline, as a keystroke arrives). For each edit the benchmark takes
the time from sending the change to each ``publishDiagnostics`` of that version: the first (what
the creator sees first) and the last (with related locations). The clock includes the server's
debounce (:data:`creatorpack.lsp.server.DEBOUNCE`). A pack this big is not searched for
reachability on a change (on open and save only), so both are without the search. Beside them,
in this process and on the same edited bytes: ``creatorpack.lint`` without the search (validation
included: the floor of the first publish) and with it (what a save costs).

Two packs of ~1 MB: the validation benchmark's generator (content-heavy; it has lint errors, so
a default lint does not search either), and the rich example grown with copies of its assets and
reader cards (1,850 conditions; it lints clean, so a default lint searches).

Usage: python benchmarks/lsp.py [--quick]
"""

from __future__ import annotations

import asyncio
import copy
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import orjson
from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _packgen import make_pack
from creatorpack.lint import LintConfig, lint
from creatorpack.lsp.server import DEBOUNCE

ROOT = Path(__file__).resolve().parent.parent
GOAL_MS = 300.0


def _grown_rich(target: int) -> bytes:
    """The rich 0.5 example with copies of its assets and reader cards (new ids) until it is ~``target`` bytes."""
    pack: dict[str, Any] = orjson.loads((ROOT / "examples" / "0.5" / "rich.json").read_bytes())
    assets, cards = list(pack["assets"]), list(pack["reader_cards"])
    copies = 0
    while len(orjson.dumps(pack, option=orjson.OPT_INDENT_2)) < target:
        copies += 1
        for asset in assets:
            if asset.get("access") == "reward_only":  # a reward nothing gives is a finding (unrewarded-asset)
                continue
            grown = copy.deepcopy(asset)
            grown["id"] = f"{asset['id']}_{copies}"
            pack["assets"].append(grown)
        for card in cards:
            grown = copy.deepcopy(card)
            grown["id"] = f"{card['id']}_{copies}"
            pack["reader_cards"].append(grown)
    return orjson.dumps(pack, option=orjson.OPT_INDENT_2)


def _generated(target: int) -> bytes:
    """The validation benchmark's generator, sized so that the indented text is ~``target`` bytes."""
    size = target
    while True:
        data = orjson.dumps(make_pack(size), option=orjson.OPT_INDENT_2)
        if len(data) <= target * 1.02:
            return data
        size = int(size * target / len(data))


class _Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("creatorpack-benchmark", "1")
        self.published: dict[int, list[tuple[float, int]]] = {}
        self.arrived = asyncio.Event()


async def _server_latency(data: bytes, edits: int) -> tuple[list[float], list[float], int]:
    """Milliseconds from each change to its first and its last publish; the findings of the last."""
    client = _Client()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]  # pygls's decorator
    def _published(params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            client.published.setdefault(params.version, []).append((time.perf_counter(), len(params.diagnostics)))
            client.arrived.set()

    await client.start_io(sys.executable, "-m", "creatorpack", "lsp")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
    client.initialized(types.InitializedParams())
    uri = (Path("/tmp") / "benchmark-pack.json").as_uri()  # no pyproject.toml above it: the default settings
    text = data.decode()
    item = types.TextDocumentItem(uri=uri, language_id="json", version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    await _settled(client, 1, quiet=8.0)  # on open the search runs (seconds): not while edits are timed
    anchor = text.index('"tagline": "') + len('"tagline": "')
    line = text.count("\n", 0, anchor)
    character = anchor - (text.rfind("\n", 0, anchor) + 1)
    first: list[float] = []
    last: list[float] = []
    found = 0
    for version in range(2, edits + 2):
        at = types.Position(line=line, character=character)
        change = types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text="x")
        client.arrived.clear()
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[change],
            )
        )
        times = await _settled(client, version)
        first.append((times[0][0] - sent) * 1000)
        last.append((times[-1][0] - sent) * 1000)
        found = times[-1][1]
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()  # type: ignore[no-untyped-call]  # pygls leaves it untyped
    return first, last, found


async def _settled(client: _Client, version: int, quiet: float = 1.0) -> list[tuple[float, int]]:
    """The publishes of ``version``, once no other comes within ``quiet`` seconds of the last."""
    while True:
        try:
            await asyncio.wait_for(client.arrived.wait(), timeout=quiet if version in client.published else 60)
        except TimeoutError:
            if version in client.published:
                return client.published[version]
            raise
        client.arrived.clear()


def _in_process(data: bytes, runs: int, config: LintConfig) -> tuple[list[float], bool]:
    """Milliseconds of each lint of ``data`` edited as the server's copy is (one more ``x`` in the tagline)."""
    times = []
    searched = False
    anchor = data.index(b'"tagline": "') + len(b'"tagline": "')
    for run in range(1, runs + 1):
        edited = data[:anchor] + b"x" * run + data[anchor:]
        began = time.perf_counter()
        report = lint(edited, config)
        times.append((time.perf_counter() - began) * 1000)
        searched = report.searched
    return times, searched


def main() -> None:
    quick = "--quick" in sys.argv
    edits = 5 if quick else 15
    print(f"debounce {DEBOUNCE * 1000:.0f} ms (inside the server's times); medians of {edits} edits and lints")
    print("(the lint with the search: 3 runs; the server searches a pack this big on open and save only)")
    heads = ("pack", "size", "lint, no search", "lint", "server: first", "ratio", "server: last")
    widths = (34, 7, 15, 8, 13, 5, 12)
    cells = [f"{h:<{w}}" if i == 0 else f"{h:>{w}}" for i, (h, w) in enumerate(zip(heads, widths, strict=True))]
    print("| " + " | ".join(cells) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    verdicts = []
    for name, data in (
        ("generated (lint errors: no search)", _generated(1_000_000)),
        ("rich example grown (searched)", _grown_rich(1_000_000)),
    ):
        first, last, found = asyncio.run(_server_latency(data, edits))
        quick_lint, _ = _in_process(data, edits, LintConfig(reachability=False))
        full_lint, searched = _in_process(data, 3, LintConfig(max_seconds=5.0))
        bare, shown = statistics.median(quick_lint), statistics.median(first)
        row = [
            f"{name:<34}",
            f"{len(data) / 1e6:>4.2f} MB",
            f"{bare:>12.0f} ms",
            f"{statistics.median(full_lint):>5.0f} ms",
            f"{shown:>10.0f} ms",
            f"{shown / bare:>5.2f}",
            f"{statistics.median(last):>9.0f} ms",
        ]
        print("| " + " | ".join(row) + " |")
        verdicts.append((name, shown, searched, found))
    for name, shown, searched, found in verdicts:
        met = "met" if shown <= GOAL_MS else "NOT met"
        facts = f"(searched in process: {searched}; findings published: {found})"
        print(f"{name}: first publish {shown:.0f} ms <= {GOAL_MS:.0f} ms: {met} {facts}")


if __name__ == "__main__":
    main()

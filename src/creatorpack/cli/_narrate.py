"""``creatorpack narrate PACK``: play a pack with a language model as its narrator, in the terminal.

The reader's lines come from the terminal (a ``> `` prompt) or piped standard input, one turn a
line; the narration streams as it comes (only text the spoiler guard passed). ``--format json``
prints one JSON object a line per turn instead (``turn``, ``input``, ``narration``, ``answers``,
``reader``). It ends at the pack's ending (its closing text shown) or at the end of the input.

Exit codes: 0 done (an ending, the end of input, or Ctrl-D); 2 a pack or input that cannot be
played, no model configured, or a model that failed (the session had not changed; the message
names the server); 130 Ctrl-C.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Annotated, Any, TextIO

import orjson
import typer

from creatorpack._text import one_line
from creatorpack.cli import _output
from creatorpack.cli._output import complain
from creatorpack.contract.validation import MAX_BYTES
from creatorpack.errors import CreatorpackError, DocumentError, InvalidPackError

__all__ = ["NarrateFormat", "register"]


class NarrateFormat(StrEnum):
    """The output formats of ``creatorpack narrate``."""

    TEXT = "text"
    JSON = "json"


def register(app: typer.Typer) -> None:
    """Add the ``narrate`` command to ``app``."""
    app.command("narrate")(_narrate_command)


def _narrate_command(
    pack: Annotated[str, typer.Argument(metavar="PACK", help="The pack to narrate (0.3, 0.4 or 0.5).")],
    entry: Annotated[
        str | None, typer.Option("--entry", "-e", help="Runtime entry id, or its pack entry's (default: the first).")
    ] = None,
    model_url: Annotated[
        str | None,
        typer.Option(
            "--model-url",
            help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1 (default: $CREATORPACK_MODEL_URL).",
        ),
    ] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="The model's name (default: $CREATORPACK_MODEL, else 'default').")
    ] = None,
    fmt: Annotated[
        NarrateFormat, typer.Option("--format", "-f", help="Text for a person, or one JSON object a turn.")
    ] = NarrateFormat.TEXT,
    show_narrator: Annotated[
        bool,
        typer.Option(
            "--show-narrator", help="Also print, on stderr, the answers and the guard's report (the host's view)."
        ),
    ] = False,
    show_prompt: Annotated[
        bool, typer.Option("--show-prompt", help="Also print, on stderr, each turn's prompt report.")
    ] = False,
    context_tokens: Annotated[
        int, typer.Option("--context-tokens", min=256, max=10_000_000, help="The model's context window, in tokens.")
    ] = 4096,
) -> None:
    """Narrate a pack with a language model: type what the reader does, read what happens."""
    from creatorpack.narrate import ModelSettings, Narrator, OpenAIClient  # noqa: PLC0415 - loads httpx
    from creatorpack.play import Session  # noqa: PLC0415

    settings = ModelSettings.from_env(os.environ, **_given(base_url=model_url, model=model))
    if settings is None:
        raise typer.BadParameter(
            "no model to narrate with: give --model-url (or set CREATORPACK_MODEL_URL)", param_hint="--model-url"
        )
    if pack == _output.STDIN:
        raise typer.BadParameter("the reader's lines come from standard input: give the pack as a file")
    client = OpenAIClient(settings)
    try:
        source = _output.read_input(pack, MAX_BYTES, None)
        session = Session.start(source, entry)
        narrator = Narrator(session, client, context_tokens=context_tokens, answer_tokens=settings.max_tokens)
        _play(narrator, fmt, show_narrator=show_narrator, show_prompt=show_prompt)
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        raise typer.Exit(130) from None
    except InvalidPackError as exc:
        sys.stderr.write(_output.render([_output.from_report(pack, exc.report, None)], "text"))
        raise typer.Exit(exc.exit_code) from None
    except DocumentError as exc:
        complain(f"{_output.located(pack, exc)}: {exc.code}: {exc}")
        raise typer.Exit(exc.exit_code) from None
    except CreatorpackError as exc:
        complain(exc)
        raise typer.Exit(exc.exit_code) from None
    finally:
        client.close()


def _given(**options: str | None) -> dict[str, str]:
    return {k: v for k, v in options.items() if v is not None}


def _lines(stream: TextIO) -> Iterator[str]:
    interactive = stream.isatty()
    while True:
        if interactive:
            sys.stdout.write("> ")
            sys.stdout.flush()
        line = stream.readline()
        if not line:
            return
        text = line.strip()
        if text:
            yield text


def _play(narrator: Any, fmt: NarrateFormat, *, show_narrator: bool, show_prompt: bool) -> None:
    text = fmt is NarrateFormat.TEXT
    if text:
        sys.stdout.write(narrator.opening() + "\n\n")
    for line in _lines(sys.stdin):
        streamed: list[str] = []

        def show(delta: str, sink: list[str] = streamed) -> None:
            sink.append(delta)
            if text:
                sys.stdout.write(delta)
                sys.stdout.flush()

        done = narrator.narrate(line, on_text=show if text else None)
        if text:
            shown = "".join(streamed)
            rest = done.narration[len(shown) :] if done.narration.startswith(shown) else "\n…\n" + done.narration
            sys.stdout.write(rest + "\n\n")
            sys.stdout.write(_reader_lines(narrator.pack, done.reader_view().to_json()))
        else:
            sys.stdout.write(orjson.dumps(done.to_json()).decode() + "\n")
        if show_prompt:
            sys.stderr.write(done.prompt.render() + "\n")
        if show_narrator:
            host = {"turn": done.number, "answers": done.to_json()["answers"], "guard": done.guard.to_json()}
            host["instructions"] = list(done.result.instructions)
            sys.stderr.write(orjson.dumps(host).decode() + "\n")
        sys.stdout.flush()
        if done.result.over:
            if text:
                sys.stdout.write(_closing(narrator.pack, done.result.ending))
            return


def _reader_lines(pack: Mapping[str, Any], reader: Mapping[str, Any]) -> str:
    """What changed for the reader this turn, as short lines (titles, not ids, where the pack has them)."""
    titles = _titles(pack)
    cards = {c.get("id"): c.get("display_name") for c in pack.get("reader_cards", []) if isinstance(c, Mapping)}
    lines = [
        *(f"* achievement: {titles.get(a, a)}" for a in reader.get("new_achievements", [])),
        *(f"* badge: {titles.get(b, b)}" for b in reader.get("new_badges", [])),
        *(f"* you meet: {cards.get(c) or c}" for c in reader.get("new_revealed", {}).get("reader_cards", [])),
    ]
    return "".join(f"{one_line(line)}\n" for line in lines) + ("\n" if lines else "")


def _titles(pack: Mapping[str, Any]) -> dict[str, str]:
    progression = pack.get("progression")
    found: dict[str, str] = {}
    if isinstance(progression, Mapping):
        for key in ("achievements", "badges", "endings"):
            for item in progression.get(key, []) or []:
                if isinstance(item, Mapping) and isinstance(item.get("title"), str):
                    found[str(item.get("id"))] = item["title"]
    return found


def _closing(pack: Mapping[str, Any], ending: str | None) -> str:
    progression = pack.get("progression")
    endings = progression.get("endings", []) if isinstance(progression, Mapping) else []
    for item in endings or []:
        if isinstance(item, Mapping) and item.get("id") == ending:
            return f"— {item.get('title', ending)} —\n\n{item.get('closing_text', '')}\n"
    return f"— the end ({ending}) —\n"

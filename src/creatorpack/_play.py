"""``creatorpack play``: scripted playthroughs and the interactive terminal playtest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from rich.console import Console
from rich.prompt import Prompt
from rich.table import Table

from creatorpack.runtime import Engine, Session, TurnResult
from creatorpack.testing import parse_script, play


def scripted(pack: Path, script: Path, entry: str | None, fmt: str) -> str:
    """Play a JSON Lines script and return the transcript (JSON) or a readable summary (text)."""
    turns = parse_script(script)
    run = play(Engine.from_source(pack), turns, entry=entry)
    if fmt == "json":
        return orjson.dumps(run.transcript(), option=orjson.OPT_INDENT_2).decode() + "\n"
    lines = [_summary(run.start)]
    lines += [_summary(result) for result in run.turns]
    return "\n".join(lines) + "\n"


def _summary(result: TurnResult) -> str:
    parts = [f"turn {result.turn}: state {orjson.dumps(result.state).decode()}"]
    if result.active_rules:
        parts.append(f"  active: {', '.join(result.active_rules)}")
    parts.extend(f"  rejected: {r['rule']} effect {r['effect']}: {r['reason']}" for r in result.rejected_effects)
    if result.new_completed_rules:
        parts.append(f"  completed: {', '.join(result.new_completed_rules)}")
    parts.extend(f"  revealed {kind}: {', '.join(ids)}" for kind, ids in result.new_revealed.items() if ids)
    if result.new_achievements:
        parts.append(f"  unlocked: {', '.join(result.new_achievements)}")
    if result.new_badges:
        parts.append(f"  badges: {', '.join(result.new_badges)}")
    if result.illustration:
        parts.append(f"  illustration: {result.illustration}")
    if result.ending:
        parts.append(f"  ENDING: {result.ending}")
    return "\n".join(parts)


def _show(console: Console, engine: Engine, result: TurnResult, previous: dict[str, Any] | None) -> None:
    console.rule(f"turn {result.turn}")
    table = Table(show_header=True, header_style="bold")
    table.add_column("state")
    table.add_column("value")
    for key, value in result.state.items():
        text = orjson.dumps(value).decode()
        changed = previous is not None and orjson.dumps(previous.get(key)).decode() != text
        table.add_row(key, f"[bold yellow]{text}[/]" if changed else text)
    console.print(table)
    for instruction in result.instructions:
        console.print(f"[cyan]guidance:[/] {instruction}")
    for rejected in result.rejected_effects:
        console.print(f"[red]rejected[/] {rejected['rule']}: {rejected['reason']}")
    for kind, ids in result.new_revealed.items():
        if ids:
            console.print(f"[green]revealed {kind}:[/] {', '.join(ids)}")
    for achievement in result.new_achievements:
        console.print(f"[magenta]achievement unlocked:[/] {achievement}")
    for badge in result.new_badges:
        console.print(f"[magenta]badge awarded:[/] {badge}")
    if result.illustration:
        console.print(f"[blue]illustration:[/] {result.illustration}")
    if result.ending:
        ending = next(e for e in engine.pack["progression"]["endings"] if e.get("id") == result.ending)
        console.print(f"[bold green]ENDING: {ending.get('title')}[/]\n{ending.get('closing_text', '')}")


def interactive(pack: Path, entry: str | None) -> None:
    """Prompt for each observation every turn until an ending, end of input or 'q'."""
    console = Console()
    engine = Engine.from_source(pack)
    session = Session.start(engine, entry)
    if session.last is not None:
        _show(console, engine, session.last, None)
    console.print("Answer each observation (Enter skips it); 'q' quits.")
    while not session.over:
        answers: dict[str, bool | str] = {}
        for ident, observation in engine.observations.items():
            if observation["type"] == "boolean":
                reply = Prompt.ask(f"{observation['question']} [y/n]", default="", show_default=False)
                if reply.lower() == "q":
                    return
                if reply.lower() in ("y", "n", "yes", "no"):
                    answers[ident] = reply.lower().startswith("y")
            else:
                keys = list(observation["choices"])
                menu = ", ".join(f"{key}" for key in keys)
                reply = Prompt.ask(f"{observation['question']} ({menu})", default="", show_default=False)
                if reply.lower() == "q":
                    return
                if reply in keys:
                    answers[ident] = reply
        previous = dict(session.state.state)
        result = session.turn(answers)
        _show(console, engine, result, previous)

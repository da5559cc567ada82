"""``creatorpack play``: scripted playthroughs and the interactive terminal playtest.

``--load SAVE`` goes on from a saved session instead of starting one; a save of another revision of
the pack is first moved to the pack's revision by :func:`creatorpack.diff.load_migrating` (the plan
the service's ``POST /v1/sessions/{id}/migrate`` uses), or refused naming each value that no longer
fits. ``--save-to FILE`` writes the session's save when the playthrough stops.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson
import typer
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from creatorpack import _json as json_helpers
from creatorpack.contract import suggest
from creatorpack.contract.validation import Source
from creatorpack.errors import CreatorpackError, TurnError
from creatorpack.play.engine import Engine, Session, TurnResult
from creatorpack.testing import ENTRY_DIRECTIVE, parse_script, play, script_entry

__all__ = [
    "CONTEXT_TURNS",
    "INTERRUPTED",
    "Loaded",
    "ScriptError",
    "interactive",
    "load",
    "reader_panel",
    "scripted",
    "state_changes",
]

INTERRUPTED: Final = 130
"""The exit code of a playtest ended with Ctrl-C (128 + SIGINT), as shells report it."""

_YES: Final = frozenset({"y", "yes", "true", "1"})
_NO: Final = frozenset({"n", "no", "false", "0"})
_QUIT: Final = frozenset({"q", "quit", "exit"})


@dataclass(frozen=True, slots=True)
class Loaded:
    """A session restored from a save: the session, how it shows now, and its migration (None: nothing moved)."""

    session: Session
    start: TurnResult
    migration: Mapping[str, Any] | None


def load(engine: Engine, saved: Any) -> Loaded:
    """Restore a save into ``engine``'s revision, migrating it by the diff's plan if it is of another revision.

    Raises :class:`~creatorpack.errors.SessionLoadError` (a :class:`~creatorpack.diff.MigrationError`
    naming each value that no longer fits, for a save that cannot move).
    """
    from creatorpack.diff import load_migrating  # noqa: PLC0415 - the diff loads only for --load

    session, report = load_migrating(engine, saved)
    # A save of the same revision number moves too when the pack was edited without a new number.
    moved = report.from_revision != report.to_revision or bool(report.steps)
    return Loaded(session, engine.describe(session.state), report.to_json() if moved else None)


_SCRIPT_LINE: Final = re.compile(r"^script line (?P<line>\d+)(?:, column (?P<column>\d+))?(?: \(turn \d+\))?: ")

CONTEXT_TURNS: Final = 3
"""How many turns before a bad script line its error shows."""


class ScriptError(TurnError):
    """A bad line of a ``--script`` file, named ``FILE:LINE`` (as compilers do), with the turns before it.

    ``context`` holds one line per turn played before the bad one (at most :data:`CONTEXT_TURNS`):
    its ``FILE:LINE``, the turn as written, and the state after it, so the mistake can be read in
    the story's terms without replaying the script by hand.
    """

    def __init__(self, message: str, problems: tuple[tuple[str, str], ...] = (), context: Sequence[str] = ()) -> None:
        super().__init__(message, problems)
        self.context = tuple(context)


def _script_lines(script: str | Sequence[str]) -> list[str]:
    return [line.removesuffix("\r") for line in script.split("\n")] if isinstance(script, str) else list(script)


def _located(
    exc: TurnError, name: str, script: str | Sequence[str], engine: Engine | None, entry: str | None
) -> ScriptError:
    """``exc`` (``script line 4 (turn 2): ...``) as ``FILE:4: turn 2: ...``, with the turns before line 4."""
    found = _SCRIPT_LINE.match(exc.message)
    if found is None:
        return ScriptError(f"{name}: {exc.message}", exc.problems)
    number = int(found["line"])
    where = f"{name}:{number}" + (f":{found['column']}" if found["column"] else "")
    lines = _script_lines(script)
    before = [
        (at, line)
        for at, line in enumerate(lines[: number - 1], start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    turn = f"turn {len(before) + 1}: "
    context: list[str] = []
    if before:
        states = _states_after(engine, [line for _, line in before], entry)
        shown = before[-CONTEXT_TURNS:]
        skipped = len(before) - len(shown)
        context.append(f"the turns before it{f' (the last {len(shown)} of {len(before)})' if skipped else ''}:")
        for offset, (at, line) in enumerate(shown):
            state = states[skipped + offset] if skipped + offset < len(states) else None
            after = f"  -> state {_json(state)}" if state is not None else ""
            context.append(f"{name}:{at}: {line.strip()}{after}")
    else:
        context.append("it is the script's first turn")
    return ScriptError(f"{where}: {turn}{exc.message[found.end() :]}", exc.problems, context)


def _states_after(engine: Engine | None, lines: Sequence[str], entry: str | None) -> list[Any]:
    """The state after each of the good turns ``lines`` (fewer when one cannot be replayed)."""
    states: list[Any] = []
    if engine is None:
        return states
    try:
        session = Session.start(engine, entry)
        for turn in parse_script(list(lines)):
            states.append(session.turn(turn).state)  # noqa: PERF401 - one at a time: keep those before a failure
    except CreatorpackError:
        pass  # the turns up to the one that cannot be replayed are shown with their states
    return states


def scripted(
    pack: Source,
    script: str | Sequence[str],
    entry: str | None,
    fmt: str,
    *,
    saved: Any = None,
    save_to: Callable[[Mapping[str, Any]], None] | None = None,
    name: str = "the script",
) -> str:
    """Play a JSON Lines script (its text or lines) and return the transcript (JSON) or a summary (text).

    The session starts at ``entry``, else at the script's ``# entry: ID`` line, else at the first
    entry; an ``entry`` that is not the script's is a usage error (:class:`typer.BadParameter`).

    With ``saved`` the script goes on from that save (migrated first if it is of another revision);
    the transcript's ``start`` is the loaded session as it shows now, and ``migration`` says what
    the migration did. ``save_to`` receives the session's save at the end.
    """
    engine = Engine.from_source(pack)
    try:
        turns = parse_script(script)
    except TurnError as exc:
        raise _located(exc, name, script, engine, entry) from None
    migration: Mapping[str, Any] | None = None
    if saved is None:
        try:
            start_at = script_entry(turns, entry, engine=engine)
        except TurnError as exc:  # --entry names another entry than the script's '# entry:' line
            raise typer.BadParameter(exc.message, param_hint="--entry") from None
        try:
            run = play(engine, turns, entry=start_at)
        except TurnError as exc:
            raise _located(exc, name, script, engine, start_at) from None
        start, results, session = run.start, list(run.turns), run.session
    else:
        loaded = load(engine, saved)
        start, session, migration = loaded.start, loaded.session, loaded.migration
        if turns.entry is not None and engine.entry_named(turns.entry) != session.state.entry:
            raise TurnError(
                f"the script starts at entry {turns.entry!r} (its '{ENTRY_DIRECTIVE}{turns.entry}' line); "
                f"the loaded session is at entry {session.state.entry!r}"
            )
        results = []
        for number, turn in enumerate(turns, start=1):
            try:
                results.append(session.turn(turn.observations, turn.illustration_matches))
            except TurnError as exc:
                error = TurnError(f"{turns.where(number)}: {exc.message}", exc.problems)
                raise _located(error, name, script, None, None) from None
    if save_to is not None:
        save_to(session.save())
    if fmt == "json":
        transcript: dict[str, Any] = {"start": start.to_json(), "turns": [r.to_json() for r in results]}
        if migration is not None:
            transcript["migration"] = dict(migration)
        return orjson.dumps(transcript, option=orjson.OPT_INDENT_2).decode() + "\n"
    lines = [_migration_summary(migration)] if migration is not None else []
    lines += [_summary(start)]
    lines += [_summary(result) for result in results]
    return "\n".join(lines) + "\n"


def _migration_summary(migration: Mapping[str, Any]) -> str:
    old, new = migration["from_revision"], migration["to_revision"]
    head = (
        f"migrated the save from revision {old} to {new}"
        if old != new
        else f"migrated the save within revision {new} (the pack changed under the same revision number)"
    )
    steps = [
        f"  {s['action']} {s['pointer']}: {s['detail']}" + (f" ({_json(s['value'])})" if s["action"] == "add" else "")
        for s in migration["steps"]
    ]
    return "\n".join([head + ("" if steps else ": as it was"), *steps])


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


# -- the interactive playtest --------------------------------------------------------------------


class _QuitRequest(Exception):  # noqa: N818 - a signal, not an error
    """The playtester typed q."""


class _Rewind(Exception):  # noqa: N818 - a signal, not an error
    """The playtester typed ``undo`` or ``restart``: the turn being asked is dropped."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


HELP: Final = (
    "commands, at any prompt:",
    "  help       this list",
    "  state      the state, the answers in force, and everything revealed so far (narrator's view)",
    "  ?why GOAL  why an achievement, ending or rule (by id) has not fired, part by part",
    "  undo       take back the last turn played",
    "  restart    start the session over at its entry",
    "  q          quit (with --save-to, the session is saved first)",
)
"""What ``help`` prints: the playtest's commands."""


class _Commands:
    """The commands a playtester may type at any prompt, on the session as it is now."""

    def __init__(self, console: Console, engine: Engine, session: Session) -> None:
        self.console = console
        self.engine = engine
        self.session = session

    def run(self, reply: str) -> bool:
        """Run ``reply`` if it is a command that does not end the turn being asked; whether it was one."""
        word, _, rest = reply.strip().partition(" ")
        low = word.lower()
        if low in ("help", "?"):
            for line in HELP:
                self.console.print(Text(line, style="cyan"))
            return True
        if low == "state":
            self._state()
            return True
        if low == "?why":
            from creatorpack.cli._why import why  # noqa: PLC0415 - only when asked

            if not rest.strip():
                self.console.print(Text("?why takes the id of an achievement, ending or rule: ?why first_light", "red"))
            for line in why(self.engine, self.session.state, rest.strip()) if rest.strip() else ():
                self.console.print(Text(line, style="cyan"))
            return True
        if low in ("undo", "restart"):
            raise _Rewind(low)
        return False

    def _state(self) -> None:
        state = self.session.state
        self.console.print(Text(f"turn {state.turn} of entry {state.entry}", style="bold"))
        for pointer, value in _flatten(state.state):
            self.console.print(Text(f"  {pointer or '/'} = {_json(value)}"))
        answers = ", ".join(f"{k}={_answer(v)}" for k, v in state.answers.items()) or "none"
        self.console.print(Text(f"answers in force: {answers}"))
        for kind, ids in state.revealed.items():
            if ids:
                self.console.print(Text(f"revealed {kind}: {', '.join(sorted(ids))}"))
        self.console.print(Text(f"achievements: {', '.join(state.achievements) or 'none'}"))
        if state.completed:
            self.console.print(Text(f"rules completed: {', '.join(sorted(state.completed))}"))


def _by_id(items: Any) -> dict[str, Mapping[str, Any]]:
    if not isinstance(items, list):
        return {}
    return {item["id"]: item for item in items if isinstance(item, Mapping) and isinstance(item.get("id"), str)}


@dataclass(frozen=True, slots=True)
class _Pack:
    """What the screen names: titles, texts and alts by id, read from the pack once."""

    title: str
    entries: tuple[Mapping[str, Any], ...]
    content: Mapping[str, Mapping[str, Any]]
    achievements: Mapping[str, Mapping[str, Any]]
    endings: Mapping[str, Mapping[str, Any]]
    badges: Mapping[str, Mapping[str, Any]]
    illustrations: Mapping[str, Mapping[str, Any]]
    illustration_rules: tuple[Mapping[str, Any], ...]

    @classmethod
    def of(cls, pack: Mapping[str, Any]) -> _Pack:
        progression = pack.get("progression") or {}
        presentation = pack.get("presentation") or {}
        rules = presentation.get("illustration_rules", []) if isinstance(presentation, Mapping) else []
        entries = pack.get("entries", [])
        return cls(
            title=str((pack.get("manifest") or {}).get("title", "")),
            entries=tuple(e for e in entries if isinstance(e, Mapping)) if isinstance(entries, list) else (),
            content=_by_id(pack.get("content")),
            achievements=_by_id(progression.get("achievements")),
            endings=_by_id(progression.get("endings")),
            badges=_by_id(progression.get("badges")),
            illustrations=_by_id(pack.get("illustrations")),
            illustration_rules=tuple(r for r in rules if isinstance(r, Mapping) and isinstance(r.get("id"), str)),
        )

    def entry_title(self, entry: str, index: int) -> str | None:
        """The title of the pack entry that has the runtime entry's id, else of the one at its position."""
        for item in self.entries:
            if item.get("id") == entry or item.get("entry_id") == entry:
                return str(item.get("title", "")) or None
        if index < len(self.entries):
            return str(self.entries[index].get("title", "")) or None
        return None

    def titled(self, table: Mapping[str, Mapping[str, Any]], ident: str) -> str:
        """``Title (id)``, or the id alone when the item has no title."""
        title = table.get(ident, {}).get("title")
        return f"{title} ({ident})" if isinstance(title, str) and title else ident

    def content_text(self, ident: str) -> str | None:
        """A content item's text (the runtime offers only the items of the session's entry)."""
        item = self.content.get(ident, {})
        text = item.get("text")
        return text if isinstance(text, str) else None


def _flatten(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """``(pointer, value)`` for every leaf of nested objects (arrays and scalars are leaves)."""
    if isinstance(value, Mapping) and value:
        for key, member in value.items():
            yield from _flatten(member, path + json_helpers.pointer((str(key),)))
    else:
        yield path, value


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def state_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """What a turn changed in the state: ``(pointer, old, new)`` in JSON, leaf by leaf."""
    old = dict(_flatten(before))
    new = dict(_flatten(after))
    missing = "(absent)"
    changes = []
    for pointer in dict.fromkeys([*old, *new]):
        left = _json(old[pointer]) if pointer in old else missing
        right = _json(new[pointer]) if pointer in new else missing
        if left != right:
            changes.append((pointer, left, right))
    return changes


def reader_panel(result: TurnResult) -> dict[str, Any]:
    """What the reader can see after a turn: the reader view's own serialization, and nothing else.

    The view's ``revealed.assets`` is its ``assets`` (the assets the reader can reach): the panel
    lists them once, under ``assets``.
    """
    view = result.reader_view().to_json()
    shown = ("revealed", "achievements", "locked_achievements", "badges", "illustration", "ending", "assets")
    panel = {key: view[key] for key in shown}
    panel["revealed"] = {kind: ids for kind, ids in view["revealed"].items() if ids and kind != "assets"}
    return panel


_KIND_NAMES: Final = {
    "reader_cards": ("reader card", "reader cards"),
    "avatars": ("avatar", "avatars"),
    "images": ("image", "images"),
    "relationships": ("relationship", "relationships"),
    "assets": ("asset", "assets"),
    "visual_anchors": ("visual anchor", "visual anchors"),
    "castings": ("casting", "castings"),
    "deeds": ("deed", "deeds"),
    "knowledge": ("knowledge item", "knowledge items"),
}


def _counted(revealed: Mapping[str, Sequence[str]]) -> str:
    """``4 reader cards, 1 image, 15 assets``: what is revealed, by kind, counted rather than listed."""
    parts = []
    for kind, ids in revealed.items():
        if ids:
            one, many = _KIND_NAMES.get(kind, (kind, kind))
            parts.append(f"{len(ids)} {one if len(ids) == 1 else many}")
    return ", ".join(parts)


class _Screen:
    """Prints what a playtester needs to see: the opening, each turn's changes, the ending."""

    def __init__(self, console: Console, engine: Engine, names: _Pack) -> None:
        self.console = console
        self.engine = engine
        self.names = names
        self.answers = ""  # the answers the turn was played with, as shown to the playtester

    def say(self, text: str, style: str = "") -> None:
        self.console.print(Text(text, style=style))

    def opening(self, session: Session, result: TurnResult) -> None:
        entry = session.state.entry
        ids = self.engine.entry_ids()
        title = self.names.entry_title(entry, ids.index(entry) if entry in ids else 0)
        heading = self.names.title or self.engine.pack_id
        self.console.rule(Text(f"{heading}: {title}" if title and title != heading else heading, style="bold"))
        self.say(f"entry {entry} · pack {self.engine.pack_id} revision {self.engine.revision}", "dim")
        for ident in result.content:
            text = self.names.content_text(ident)
            if text is not None:
                self.console.print(Text(text))
                self.say("")
        self.say("state at the start:", "bold")
        for pointer, value in _flatten(result.state):
            self.say(f"  {pointer or '/'} = {_json(value)}")
        # Counted, not listed: the reader's panel below lists what the reader sees; `state` lists all.
        counted = _counted(result.new_revealed)
        if counted:
            self.console.print(Text.assemble(("revealed at the start: ", "green"), counted))
        self._events(result, reveals=False)

    def turn(self, result: TurnResult, before: Mapping[str, Any], content_before: Sequence[str]) -> None:
        self.console.rule(Text(f"turn {result.turn}", style="bold"))
        if self.answers:
            self.say(f"answers in force: {self.answers}", "dim")
        changes = state_changes(before, result.state)
        if changes:
            self.say("state changed:", "bold")
            for pointer, old, new in changes:
                self.console.print(Text.assemble(f"  {pointer}: {old} → ", (new, "bold yellow")))
        else:
            self.say("state unchanged", "dim")
        for ident in result.content:
            text = self.names.content_text(ident)
            if ident not in content_before and text is not None:
                self.console.print(Text.assemble(("content now shown: ", "cyan"), text))
        self._events(result)

    def _events(self, result: TurnResult, *, reveals: bool = True) -> None:
        if result.active_rules:
            self.say(f"active rules: {', '.join(result.active_rules)}", "dim")
        for instruction in result.instructions:
            self.console.print(Text.assemble(("narrator guidance: ", "cyan"), instruction))
        for rejected in result.rejected_effects:
            reason = f"rejected: rule {rejected['rule']} effect {rejected['effect']}: {rejected['reason']}"
            self.say(reason, "red")
        if result.new_completed_rules:
            self.say(f"rules completed: {', '.join(result.new_completed_rules)}", "dim")
        for kind, ids in result.new_revealed.items() if reveals else ():
            if ids:
                self.console.print(Text.assemble((f"revealed {kind}: ", "green"), ", ".join(ids)))
        for ident in result.new_achievements:
            self.console.print(
                Text.assemble(("achievement unlocked: ", "magenta"), self.names.titled(self.names.achievements, ident))
            )
        for ident in result.new_badges:
            self.console.print(
                Text.assemble(("badge awarded: ", "magenta"), self.names.titled(self.names.badges, ident))
            )
        if result.illustration:
            alt = self.names.illustrations.get(result.illustration, {}).get("alt")
            shown = f"{result.illustration}: {alt}" if isinstance(alt, str) else result.illustration
            self.console.print(Text.assemble(("illustration: ", "blue"), shown))
        if result.ending:
            self.reader(result)
            ending = self.names.endings.get(result.ending, {})
            self.console.rule(
                Text(f"ENDING: {self.names.titled(self.names.endings, result.ending)}", style="bold green")
            )
            closing = ending.get("closing_text")
            if isinstance(closing, str) and closing:
                self.console.print(Text(closing))

    def reader(self, result: TurnResult) -> None:
        """The reader panel: everything the reader can see now, and nothing meant for the narrator.

        A grid of label and value, so that a long list wraps inside its own column, under its first
        item, rather than back at the panel's edge.
        """
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True)
        grid.add_column(overflow="fold")
        for key, value in reader_panel(result).items():
            if isinstance(value, Mapping):
                grid.add_row(f"{key}:", "" if value else "none")
                for kind, ids in value.items():
                    grid.add_row(f"  {kind}:", _shown(ids))
            else:
                grid.add_row(f"{key}:", _shown(value))
        self.console.print(Panel(grid, title="the reader sees", title_align="left"))


def _answer(value: Any) -> str:
    return {True: "yes", False: "no"}.get(value, str(value)) if isinstance(value, bool) else str(value)


def _shown(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or "none"
    return "none" if value is None else str(value)


class _Asker:
    """Reads one turn's answers, re-prompting until each reply is understood."""

    def __init__(
        self,
        console: Console,
        engine: Engine,
        names: _Pack,
        read: Callable[[Text], str],
        commands: _Commands | None = None,
    ) -> None:
        self.console = console
        self.engine = engine
        self.names = names
        self.read = read
        self.commands = commands

    def ask(self, answers: Mapping[str, Any]) -> tuple[dict[str, bool | str], list[str]]:
        """The observations answered this turn and the illustration rules matched."""
        replies: dict[str, bool | str] = {}
        for ident, observation in self.engine.observations.items():
            reply = self._observation(ident, observation, answers.get(ident))
            if reply is not None:
                replies[ident] = reply
        matches = self._matches() if self.names.illustration_rules else []
        if not self.engine.observations and not self.names.illustration_rules:
            self._line("Nothing to ask: this pack has no observations. Enter plays a turn, q quits: ")
        return replies, matches

    def _line(self, prompt: str | Text, answers: Sequence[str] = ()) -> str:
        """One reply; a command (q, help, state, ?why, undo, restart) unless it is one of ``answers``."""
        while True:
            reply = self.read(prompt if isinstance(prompt, Text) else Text(prompt)).strip()
            if reply in answers:
                return reply
            if reply.lower() in _QUIT:
                raise _QuitRequest
            if self.commands is None or not self.commands.run(reply):
                return reply

    def _observation(self, ident: str, observation: Mapping[str, Any], current: Any) -> bool | str | None:
        question = str(observation.get("question", ident))
        if observation.get("type") == "boolean":
            keep = {True: "yes", False: "no"}.get(current) if isinstance(current, bool) else None
            hint = f"[y/n] (Enter: no new answer, {keep} stays in force)" if keep else "[y/n] (Enter: unanswered)"
            while True:
                reply = self._line(Text.assemble((question, "bold"), " ", (hint, "dim"), " "))
                if not reply:
                    return None
                if reply.lower() in _YES | _NO:
                    return reply.lower() in _YES
                self.console.print(
                    Text(f"{reply!r} is not an answer: y or n, Enter gives no new answer, help lists commands", "red")
                )
        choices = observation.get("choices", {})
        keys: list[str] = [str(k) for k in choices] if isinstance(choices, Mapping) else []
        self.console.print(Text(question, style="bold"))
        width = max((len(k) for k in keys), default=0)
        for number, key in enumerate(keys, start=1):
            self.console.print(Text(f"  {number}) {key.ljust(width)}  {choices[key]}"))
        keep_hint = "Enter: unanswered"
        if isinstance(current, str):
            keep_hint = f"Enter: no new answer, {current} stays in force"
        while True:
            reply = self._line(Text(f"choice [1-{len(keys)} or a key] ({keep_hint}) ", style="dim"), keys)
            if not reply:
                return None
            if reply.isdigit() and 1 <= int(reply) <= len(keys):
                return keys[int(reply) - 1]
            if reply in keys:
                return reply
            guess = suggest.nearest(reply, keys)
            hint = f"did you mean {guess}? " if guess else ""
            options = f"a number from 1 to {len(keys)} or one of {', '.join(keys)}"
            self.console.print(
                Text(
                    f"{reply!r} is not one of the choices: {hint}{options}",
                    "red",
                )
            )

    def _matches(self) -> list[str]:
        rules = self.names.illustration_rules
        self.console.print(Text("Illustration rules (which did the narrator judge true this turn?)", style="bold"))
        for number, rule in enumerate(rules, start=1):
            self.console.print(Text(f"  {number}) {rule['id']}: {rule.get('match', '')}"))
        ids = [str(rule["id"]) for rule in rules]
        while True:
            reply = self._line(Text("matches [numbers or ids, comma-separated] (Enter: none) ", style="dim"), ids)
            picked: list[str] = []
            wrong: list[str] = []
            for part in filter(None, (p.strip() for p in reply.replace(" ", ",").split(","))):
                if part.isdigit() and 1 <= int(part) <= len(ids):
                    picked.append(ids[int(part) - 1])
                elif part in ids:
                    picked.append(part)
                else:
                    wrong.append(part)
            if not wrong:
                return list(dict.fromkeys(picked))
            self.console.print(
                Text(f"not an illustration rule: {', '.join(wrong)}; use 1 to {len(ids)} or an id", "red")
            )


def _how_to_answer(engine: Engine, names: _Pack) -> str | None:
    """The one-line guide to the prompts, for what this pack asks (nothing to ask: its prompt says so)."""
    if engine.observations:
        return (
            "Answer each question for this turn. The runtime keeps an answer until the observation is answered "
            "again: Enter gives no new answer, so the latest one stays in force (shown) and the rules that read it "
            "fire again; answer to change it. help lists the commands (state, ?why GOAL, undo, restart); q quits."
        )
    if names.illustration_rules:
        return "Name the illustration rules the narrator judged true; Enter: none. help lists the commands; q quits."
    return "help lists the commands (state, ?why GOAL, undo, restart); q quits."


def interactive(
    pack: Source,
    entry: str | None,
    *,
    console: Console | None = None,
    saved: Any = None,
    save_to: Callable[[Mapping[str, Any]], None] | None = None,
    save_name: str | None = None,
) -> int:
    """Play turn by turn, prompting for each observation, until an ending, end of input, q or Ctrl-C.

    With ``saved`` the playtest goes on from that save (migrated first if it is of another
    revision); ``save_to`` receives the session's save whenever the playtest stops, Ctrl-C
    included, and the screen says where (``save_name``) or why it could not.
    Returns the exit code: 0 (an ending, q, or end of input such as Ctrl-D), 130 for Ctrl-C.
    """
    console = console or Console(highlight=False)
    engine = Engine.from_source(pack)
    if saved is None:
        session = Session.start(engine, entry)
        start = session.last
    else:
        loaded = load(engine, saved)
        session, start = loaded.session, loaded.start
        if loaded.migration is not None:
            console.print(Text(_migration_summary(loaded.migration), style="dim"))
    names = _Pack.of(engine.pack)
    screen = _Screen(console, engine, names)
    commands = _Commands(console, engine, session)
    asker = _Asker(console, engine, names, console.input, commands)
    if start is None:  # pragma: no cover - Session.start always records the start
        return 0
    first = (session.state, start)  # where restart goes back to
    history: list[tuple[Any, TurnResult]] = []  # the session before each turn played, for undo
    code = 0
    try:
        screen.opening(session, start)
        if not start.ending:  # an ending at the start showed the reader's view with the ending
            screen.reader(start)
        how = _how_to_answer(engine, names)
        if how and not session.over:
            console.print(Text(how, style="dim"))
        content = list(start.content)
        while not session.over:
            try:
                replies, matches = asker.ask(session.state.answers)
            except _Rewind as rewind:
                if rewind.kind == "undo" and not history:
                    console.print(Text("nothing to undo: no turn has been played", style="red"))
                    continue
                back = history.pop() if rewind.kind == "undo" else first
                if rewind.kind == "restart":
                    history.clear()
                session = Session(engine, back[0], back[1])
                commands.session = session
                content = list(back[1].content)
                what = "restarted" if rewind.kind == "restart" else "undone"
                console.rule(Text(f"{what}: back at turn {session.state.turn}", style="bold"))
                screen.reader(back[1])
                continue
            before = session.state.state
            history.append((session.state, session.last or start))
            result = session.turn(replies, matches)
            screen.answers = ", ".join(
                f"{k}={_answer(v)}{'' if k in replies else ' (kept)'}" for k, v in session.state.answers.items()
            )
            screen.turn(result, before, content)
            content = list(result.content)
    except _QuitRequest:
        pass
    except EOFError:
        console.print(Text("\nend of input: the playtest stops here", style="dim"))
    except KeyboardInterrupt:
        console.print(Text("\ninterrupted", style="dim"))
        code = INTERRUPTED
    if save_to is not None:
        _save(console, session, save_to, save_name)
    return code


def _save(
    console: Console, session: Session, save_to: Callable[[Mapping[str, Any]], None], save_name: str | None
) -> None:
    """Write the save and say so (or say why it was not written): progress is never lost without a word."""
    where = f" to {save_name}" if save_name else ""
    try:
        save_to(session.save())
    except CreatorpackError as exc:
        console.print(Text(f"the session was NOT saved: {exc}", style="bold red"))
        return
    console.print(Text(f"saved the session (turn {session.state.turn}){where}", style="dim"))

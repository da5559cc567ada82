"""``creatorpack play`` in a real terminal: a pseudo-terminal drives the command as a person would."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from .conftest import EXAMPLES

RICH = EXAMPLES / "0.5" / "rich.json"
MINIMAL = EXAMPLES / "0.5" / "minimal.json"
# A guard against a hung command, not a performance expectation: a working run answers at once.
PATIENCE = 60.0
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


def _controlling_terminal() -> None:  # pragma: no cover - runs in the child
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    # An interactive shell starts a command with Ctrl-C's signal at its default; CI's runner may have
    # started this test process with SIGINT ignored (a background job), which the child would inherit.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """``creatorpack ARGS`` on a pseudo-terminal: stdin, stdout and stderr are the terminal."""

    def __init__(self, *args: str) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        # Ctrl-C makes the line discipline signal the command and then flush the output queue; on
        # a busy machine the command's "interrupted" can be written between the two and discarded
        # (seen in a CI-style run). NOFLSH keeps what the command prints: the test reads it all.
        attrs = termios.tcgetattr(slave)
        attrs[3] |= termios.NOFLSH
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES", "CI")}
        env.update(TERM="xterm-256color", PYTHONUNBUFFERED="1")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "creatorpack", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            start_new_session=True,
            preexec_fn=_controlling_terminal,  # noqa: PLW1509 - the child needs the pty as its terminal for Ctrl-C
        )
        os.close(slave)
        self.master = master
        self.screen = ""  # everything printed so far, without escape sequences
        self.seen = 0  # how much of the screen expect() has consumed

    def _read(self) -> bool:
        ready, _, _ = select.select([self.master], [], [], PATIENCE)
        if not ready:
            return False
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: the child closed the terminal
            return False
        if not chunk:
            return False
        self.screen += ANSI.sub("", chunk.decode("utf-8", errors="replace"))
        return True

    def expect(self, text: str) -> str:
        """Wait until ``text`` appears after what was already expected; return the screen up to it."""
        while text not in self.screen[self.seen :]:
            if not self._read():
                pytest.fail(f"{text!r} never appeared; the terminal shows:\n{self.screen[self.seen :]}")
        end = self.screen.index(text, self.seen) + len(text)
        shown, self.seen = self.screen[self.seen : end], end
        return shown

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def wait_until_reading(self) -> None:
        """Wait until the command is blocked reading the terminal (Linux: ``/proc/PID/syscall``).

        A Ctrl-C typed as soon as the prompt shows can land between the prompt and the read that
        follows it, inside CPython's ``input()``, which then reads on until the next key (seen under
        load in CI-style runs). A person reads the prompt first; the test waits for the read.
        """
        syscall = Path(f"/proc/{self.process.pid}/syscall")
        reads = {"x86_64": "0", "aarch64": "63"}.get(os.uname().machine)
        deadline = time.monotonic() + PATIENCE
        while reads is not None and syscall.exists() and time.monotonic() < deadline:
            if syscall.read_text().split()[:2] == [reads, "0x0"]:  # read(0, ...)
                return
            time.sleep(0.01)
        time.sleep(0.5)  # no /proc to ask (or never seen reading): give the command a moment

    def finish(self) -> int:
        """Read to the end and return the exit code."""
        while self._read():
            pass
        return self.process.wait(timeout=PATIENCE)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


def test_a_playthrough_shows_what_a_playtester_needs(terminal: type[Terminal]) -> None:
    term = terminal("play", str(RICH))
    opening = term.expect("[y/n] (Enter: unanswered)")  # the hint shows, as typed
    assert "The runtime keeps an answer until the observation is answered" in opening
    assert "The Harbour Light: The Dark Lamp" in opening  # the entry's title
    assert "The last ferry has gone" in opening  # content that holds at the start
    assert "/trust = 0" in opening
    assert "the reader sees" in opening
    term.type("maybe\n")
    assert "'maybe' is not an answer" in term.expect("this turn? [y/n] (Enter: unanswered)")
    term.type("y\n")  # helped_stranger
    term.expect("[y/n] (Enter: unanswered)")
    term.type("n\n")  # met_mara
    menu = term.expect("(Enter: unanswered)")
    assert "1) relit       Refilled the reservoir and relit the lamp" in menu  # choices show their descriptions
    term.type("relight\n")
    assert "'relight' is not one of the choices" in term.expect("choice [1-3 or a key] (Enter: unanswered)")
    term.type("2\n")  # lamp_choice = left_dark
    term.expect("[y/n] (Enter: unanswered)")
    term.type("\n")  # found_key: unanswered
    term.expect("[y/n] (Enter: unanswered)")
    term.type("\n")  # gave_key: unanswered
    rules = term.expect("(Enter: none)")
    assert "1) rule_quay: The reader is on the quay" in rules
    term.type("rule_quay\n")
    turn = term.expect("Did the reader help")
    assert "turn 1" in turn
    assert "answers in force: helped_stranger=yes, met_mara=no, lamp_choice=left_dark" in turn
    assert "/trust: 0 → 2" in turn  # the state diff
    assert '/inventory: [] → ["oil_can"]' in turn
    assert "narrator guidance: Keep the shivering stranger in view" in turn
    assert "illustration: ill_quay: A shivering man" in turn  # an entered illustration match
    assert "achievement unlocked: Storm Watcher (storm_watcher)" in turn
    assert "badge awarded: Storm Watcher (badge_storm)" in turn
    assert "revealed deeds: cast_tobias/accepted_help" in turn
    # The current answers are in the prompts: Enter gives no new answer, and the latest stays in force, visibly.
    assert "(Enter: no new answer, yes stays in force)" in term.expect("(Enter: no new answer, yes stays in force)")
    term.type("\n")  # helped_stranger stays true
    term.expect("[y/n] (Enter: no new answer, no stays in force)")
    term.type("\n")
    assert "left_dark stays in force" in term.expect("Enter: no new answer, left_dark stays in force)")
    term.type("relit\n")
    for _ in range(2):
        term.expect("[y/n] (Enter: unanswered)")
        term.type("\n")
    term.expect("(Enter: none)")
    term.type("\n")
    ending = term.expect("two Quells sit")
    assert "helped_stranger=yes (kept), met_mara=no (kept), lamp_choice=relit" in ending
    assert "ENDING: Keeper of the Light (keeper_of_the_light)" in ending
    assert "achievement unlocked: First Light (first_light)" in ending
    assert term.finish() == 0


def test_a_pack_with_nothing_to_ask_waits_for_enter(terminal: type[Terminal]) -> None:
    term = terminal("play", str(MINIMAL))
    opening = term.expect("Nothing to ask")
    assert "Answer each question" not in opening  # only what applies: there is no question to answer
    term.type("\n")
    term.expect("turn 1")
    term.expect("Nothing to ask")
    # Nothing more is played until the playtester presses Enter again.
    term.type("\x04")  # Ctrl-D
    term.expect("end of input")
    assert "turn 2" not in term.screen
    assert term.finish() == 0


def test_ctrl_d_ends_cleanly_and_ctrl_c_exits_130(terminal: type[Terminal], tmp_path: Path) -> None:
    term = terminal("play", str(RICH))
    term.expect("[y/n]")
    term.type("\x04")
    term.expect("end of input")
    assert term.finish() == 0
    assert "Traceback" not in term.screen
    save = tmp_path / "save.json"
    term = terminal("play", str(RICH), "--save-to", str(save))
    term.expect("[y/n] (Enter: unanswered)")
    term.wait_until_reading()
    term.type("\x03")  # Ctrl-C: the terminal sends SIGINT
    term.expect("interrupted")
    # Regression: Ctrl-C lost the session without a word; it is saved, and the screen says where.
    term.expect(f"saved the session (turn 0) to {save}")
    assert term.finish() == 128 + signal.SIGINT
    assert save.exists()
    assert "Traceback" not in term.screen
    assert "Aborted" not in term.screen


def test_q_quits(terminal: type[Terminal]) -> None:
    term = terminal("play", str(RICH))
    term.expect("[y/n]")
    term.type("q\n")
    assert term.finish() == 0

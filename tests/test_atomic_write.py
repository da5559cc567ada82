"""Writing to a target that is no regular file (a FIFO, a device, a socket) keeps it what it is.

``upgrade -o``/``--in-place`` and ``play --save-to`` write a regular file through a temporary file
renamed over it; a FIFO or a character device is written to as it is, never replaced by a regular
file. Every node here is made in ``tmp_path``: no real device is written to.
"""

from __future__ import annotations

import errno
import json
import os
import select
import socket
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from creatorpack.cli import app
from creatorpack.cli._files import write_atomically

from .conftest import EXAMPLES

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, device nodes and Unix sockets are POSIX")

runner = CliRunner()
PACK = EXAMPLES / "0.3" / "minimal.json"
_WAIT = 10.0  # seconds a reader waits for a writer that never comes (the bug: the FIFO was replaced)


class Reader:
    """Everything written into a FIFO, read by a thread until the writer closes it (or ``_WAIT`` runs out).

    The read end is opened non-blocking before anything writes, so that the writer's open does not
    wait for a reader, and a writer that never opens the FIFO cannot hang the test.
    """

    def __init__(self, fifo: Path) -> None:
        self._descriptor = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        self._chunks: list[bytes] = []
        self._closed = False
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        deadline = time.monotonic() + _WAIT
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self._descriptor], [], [], 0.05)
            if not ready:
                continue  # no writer yet, or nothing written yet
            try:
                chunk = os.read(self._descriptor, 65536)
            except BlockingIOError:
                continue
            if not chunk:  # the writer closed its end
                self._closed = True
                return
            self._chunks.append(chunk)

    def received(self) -> bytes:
        """The bytes read, once the writer closed the FIFO; raises if it never did."""
        self._thread.join(_WAIT + 1)
        os.close(self._descriptor)
        assert self._closed, f"nothing closed the FIFO within {_WAIT} s (received {b''.join(self._chunks)!r})"
        return b"".join(self._chunks)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.fixture
def null_device(tmp_path: Path) -> Path:
    """A private character device node with /dev/null's numbers (1, 3), made in ``tmp_path``."""
    path = tmp_path / "null"
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node is not permitted here (mknod needs CAP_MKNOD)")
    return path


@pytest.fixture
def unix_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
    except OSError as exc:  # pragma: no cover - a path too long for sun_path
        server.close()
        pytest.skip(f"cannot bind a Unix socket in tmp_path: {exc}")
    yield path
    server.close()


def _is(path: Path, kind: Callable[[int], bool]) -> bool:
    return kind(path.lstat().st_mode)


def test_a_fifo_receives_the_bytes_and_stays_a_fifo(fifo: Path) -> None:
    reader = Reader(fifo)
    write_atomically(fifo, b'{"saved": true}\n')
    assert reader.received() == b'{"saved": true}\n'
    assert _is(fifo, stat.S_ISFIFO)
    assert sorted(p.name for p in fifo.parent.iterdir()) == ["pipe"]  # no temporary file beside it


def test_a_link_to_a_fifo_is_followed_and_both_stay(fifo: Path) -> None:
    link = fifo.parent / "link"
    link.symlink_to(fifo)
    reader = Reader(fifo)
    write_atomically(link, b"through the link")
    assert reader.received() == b"through the link"
    assert _is(link, stat.S_ISLNK)
    assert _is(fifo, stat.S_ISFIFO)


def test_a_character_device_stays_a_character_device(null_device: Path) -> None:
    write_atomically(null_device, b"discarded" * 1000)
    assert _is(null_device, stat.S_ISCHR)
    assert os.major(null_device.stat().st_rdev) == 1
    assert os.minor(null_device.stat().st_rdev) == 3
    assert null_device.read_bytes() == b""  # still the null device: what was written is gone


def test_a_socket_is_refused_not_replaced(unix_socket: Path) -> None:
    with pytest.raises(OSError, match="No such device or address") as caught:
        write_atomically(unix_socket, b"{}")
    assert caught.value.errno == errno.ENXIO
    assert _is(unix_socket, stat.S_ISSOCK)


def test_upgrade_to_a_fifo_sends_the_pack_to_its_reader(fifo: Path) -> None:
    reader = Reader(fifo)
    result = runner.invoke(app, ["upgrade", str(PACK), "-o", str(fifo)])
    assert result.exit_code == 0, result.output
    assert f"written to {fifo}" in result.stdout
    assert json.loads(reader.received())["protocol_version"] == "0.5"
    assert _is(fifo, stat.S_ISFIFO)


def test_upgrade_to_a_character_device_discards_the_pack(null_device: Path) -> None:
    result = runner.invoke(app, ["upgrade", str(PACK), "-o", str(null_device)])
    assert result.exit_code == 0, result.output
    assert _is(null_device, stat.S_ISCHR)
    assert null_device.read_bytes() == b""


def test_upgrade_to_a_socket_is_one_line_exit_2(unix_socket: Path) -> None:
    result = runner.invoke(app, ["upgrade", str(PACK), "-o", str(unix_socket)])
    assert result.exit_code == 2
    assert result.stderr == f"creatorpack: cannot write {unix_socket}: No such device or address\n"
    assert _is(unix_socket, stat.S_ISSOCK)


def test_play_save_to_a_fifo_sends_the_save_to_its_reader(fifo: Path) -> None:
    empty = fifo.parent / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    regular = fifo.parent / "save.json"
    play = ["play", str(EXAMPLES / "0.5" / "rich.json"), "--script", str(empty), "--save-to"]
    assert runner.invoke(app, [*play, str(regular)]).exit_code == 0
    reader = Reader(fifo)
    result = runner.invoke(app, [*play, str(fifo)])
    assert result.exit_code == 0, result.output
    assert reader.received() == regular.read_bytes()  # the save, as a file would have it
    assert _is(fifo, stat.S_ISFIFO)

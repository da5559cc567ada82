"""Browser tests of the web pages: the real ``creatorpack serve`` driven by Playwright through Debian's Chromium.

Nothing is downloaded: Chromium is ``/usr/bin/chromium`` (``./dev test`` installs Debian's package
when it is missing and it may), axe-core is ``tests/browser/node_modules`` (``npm ci``, pinned in
``package-lock.json``). Without them the tests are skipped with the reason, except under ``CI``,
where they fail: a CI run that skipped its browser tests would pass for the wrong reason.
Screenshots go to ``tests/browser/artifacts/`` (git-ignored).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CHROMIUM = Path(os.environ.get("CREATORPACK_CHROMIUM", "/usr/bin/chromium"))
AXE = HERE / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = HERE / "artifacts"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CREATORPACK = Path(sys.executable).parent / "creatorpack"


def _missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (requirements/dev.lock)"
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; ./dev test does it as root)"
    if not AXE.exists():
        return f"no {AXE.relative_to(ROOT)} (npm ci --prefix tests/browser; ./dev test does it)"
    return None


@pytest.fixture(scope="session", autouse=True)
def _browser_tools() -> None:
    """Fail under CI, skip elsewhere, when Chromium, Playwright or axe-core is missing."""
    why = _missing()
    if why is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run: {why}", pytrace=False)
    pytest.skip(why)


@dataclass(frozen=True)
class Server:
    """A running ``creatorpack serve``: its base URL and data directory."""

    url: str
    data_dir: Path

    def token(self, account: str, scope: str = "creator") -> str:
        """A new token (``creatorpack token create``)."""
        found = subprocess.run(
            [str(CREATORPACK), "token", "create", "--account", account, "--scope", scope],
            env=_env(self.data_dir),
            capture_output=True,
            text=True,
            check=True,
        )
        return found.stdout.strip()


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CREATORPACK_")}
    return {**env, "CREATORPACK_DATA_DIR": str(data_dir), "CREATORPACK_RATE_PER_IP": "0"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serving(data_dir: Path, **extra: str) -> Iterator[Server]:
    """``creatorpack serve`` on a free port of 127.0.0.1 over ``data_dir`` (seeded with the bundled examples).

    ``extra``: more environment variables (``CREATORPACK_MODEL_URL``, say).
    """
    env = {**_env(data_dir), **extra}
    subprocess.run(
        [str(CREATORPACK), "db", "seed-examples", "--examples", str(ROOT / "examples")],
        env=env,
        check=True,
        capture_output=True,
    )
    port = _free_port()
    log = (data_dir / "serve.log").open("wb")
    process = subprocess.Popen(
        [str(CREATORPACK), "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"creatorpack serve did not start: {(data_dir / 'serve.log').read_text()}")
            time.sleep(0.1)
        yield Server(url, data_dir)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``creatorpack serve`` on a free port of 127.0.0.1, its catalog seeded with the bundled examples."""
    with serving(tmp_path_factory.mktemp("serve")) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, through Playwright (no browser download).

    Module-scoped, not session-scoped: Playwright's sync API keeps an event loop running in the
    test's thread while it is open, and every later test in the same worker that calls
    ``asyncio.run`` would fail ("cannot be called from a running event loop").
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser context's page (its own cookies), with axe-core injected into every document.

    The init script is added through the DevTools protocol, which the page's CSP does not govern;
    the pages' own scripts stay under the policy. Console errors and dialogs are recorded in
    ``page.problems``: a test ends by asserting there were none.
    """
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(script=AXE.read_text(encoding="utf-8"))
    opened = context.new_page()
    problems: list[str] = []
    opened.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    opened.on("pageerror", lambda error: problems.append(str(error)))

    def dialog(shown: Any) -> None:
        problems.append(f"a dialog opened: {shown.message}")
        shown.dismiss()

    opened.on("dialog", dialog)
    opened.problems = problems
    yield opened
    context.close()


def shoot(page: Any, name: str) -> None:
    """Save the page at desktop width and at phone width (360 px) under ``artifacts/``."""
    ARTIFACTS.mkdir(exist_ok=True)
    size = page.viewport_size
    page.screenshot(path=str(ARTIFACTS / f"{name}-desktop.png"), full_page=True)
    page.set_viewport_size({"width": 360, "height": 740})
    page.screenshot(path=str(ARTIFACTS / f"{name}-phone.png"), full_page=True)
    page.set_viewport_size(size)


def fresh_artifacts() -> None:
    """Empty the artifacts directory (called once per run)."""
    shutil.rmtree(ARTIFACTS, ignore_errors=True)

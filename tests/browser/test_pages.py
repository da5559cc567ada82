"""The web pages in a real browser, walked as a person would: search and open a pack, validate a broken
pack, sign in and publish, play to an ending with an undo, the catalog by keyboard only, a hostile
title, a phone's width; axe-core finds no serious or critical violation on any page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from creatorpack.narrate.fake import FakeModelServer
from tests.browser.conftest import ARTIFACTS, Server, serving, shoot
from tests.conftest import EXAMPLES, example
from tests.service.conftest import published_bytes

HOSTILE = "<img src=x onerror=alert(1)>"
_AXE = """async () => {
  const found = await axe.run(document, {resultTypes: ["violations"]});
  return found.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
}"""


def checked(page: Any, name: str) -> None:
    """The page: no serious or critical axe violation (light, dark, 360 px), no horizontal scrolling at 360 px.

    Screenshots are saved at desktop and phone width, and in the dark scheme.
    """
    assert page.evaluate(_AXE) == [], (name, page.url)
    size = page.viewport_size
    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, (name, page.url)
    assert page.evaluate(_AXE) == [], (name, "phone", page.url)
    page.set_viewport_size(size)
    page.emulate_media(color_scheme="dark")
    assert page.evaluate(_AXE) == [], (name, "dark", page.url)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}-dark.png"))
    page.emulate_media(color_scheme="light")
    shoot(page, name)
    assert page.problems == [], (name, page.problems)


def sign_in(page: Any, server: Server, token: str) -> None:
    page.goto(f"{server.url}/signin")
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/creator")


def test_search_the_catalog_and_open_a_pack(server: Server, page: Any) -> None:
    page.goto(server.url + "/")
    assert page.locator("a.cover-link").count() == 3
    checked(page, "catalog")
    page.get_by_label("Search", exact=True).fill("lighthouse")
    page.get_by_role("button", name="Search").click()
    page.wait_for_url("**/?q=lighthouse*")
    page.locator('a[href="/packs/harbour-light"]').click()
    page.wait_for_url("**/packs/harbour-light")
    assert page.locator("h1").inner_text() == example("0.5", "rich")["manifest"]["title"]
    assert page.get_by_role("link", name="Play").is_visible()
    assert page.get_by_role("heading", name="Report this pack").is_visible()
    checked(page, "pack")


def test_validate_a_broken_pack_and_see_the_line(server: Server, page: Any) -> None:
    broken = json.dumps(example("0.5", "minimal"), indent=2).replace('"title"', '"titel"', 1)
    line = next(n for n, text in enumerate(broken.split("\n"), 1) if '"titel"' in text)
    page.goto(f"{server.url}/validate")
    page.get_by_label("Pack JSON").fill(broken)
    page.get_by_role("button", name="Validate").click()
    page.wait_for_load_state()
    marked = page.locator(f"#L{line}")
    assert marked.get_attribute("class") == "marked"
    page.locator(f'a[href="#L{line}"]').first.click()
    assert page.url.endswith(f"#L{line}")
    assert marked.is_visible()
    assert page.get_by_text("Did you mean").first.is_visible()
    checked(page, "validate")


def test_validate_a_30_mb_pack_and_page_through_its_findings(
    server: Server, page: Any, browser: Any, tmp_path: Path
) -> None:
    doc = example("0.5", "minimal")
    doc["entries"] = [{"title": i, "notes": "x" * 6000} for i in range(5000)]  # 5,000 findings
    big = tmp_path / "big.json"
    big.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    assert big.stat().st_size > 30_000_000
    page.set_default_timeout(120_000)  # generous: the server checks 30 MB on a shared machine
    page.goto(f"{server.url}/validate")
    page.get_by_label("Or a file").set_input_files(str(big))
    page.get_by_role("button", name="Validate").click()
    page.wait_for_load_state()
    assert page.get_by_text("Findings 1\u2013100 of 5000 (page 1 of 50)").first.is_visible()
    assert page.locator("ol.findings > li").count() == 100
    page.get_by_role("link", name="Next page").first.click()
    page.wait_for_url("**/validate/report/*?page=2")
    assert page.get_by_text("Findings 101\u2013200 of 5000 (page 2 of 50)").first.is_visible()
    first = page.locator("ol.findings > li a").first
    target = first.get_attribute("href")
    first.click()
    assert page.url.endswith(target)
    assert page.locator(target).get_attribute("class") == "marked"
    assert page.locator(target).is_visible()
    checked(page, "validate-paged")
    # Without JavaScript: the same plain links.
    context = browser.new_context(java_script_enabled=False)
    try:
        plain = context.new_page()
        plain.goto(page.url.split("#")[0])
        plain.get_by_role("link", name="Last page").first.click()
        plain.wait_for_url("**/validate/report/*?page=50")
        assert plain.locator("ol.findings > li").count() == 100
    finally:
        context.close()


def test_sign_in_upload_publish_and_find_it_in_the_catalog(server: Server, page: Any, tmp_path: Path) -> None:
    page.goto(f"{server.url}/signin")
    checked(page, "signin")
    sign_in(page, server, server.token("carol"))
    checked(page, "creator")
    upload = tmp_path / "pack.json"
    upload.write_bytes(published_bytes("carol.story", title="Carol's Lantern Story"))
    page.get_by_label("Pack file").set_input_files(str(upload))
    page.get_by_role("button", name="Upload", exact=True).click()
    page.wait_for_url("**/creator/packs/carol.story?uploaded=1")
    assert page.get_by_text("Revision 1 is stored").is_visible()
    checked(page, "creator-pack")
    page.get_by_role("button", name="Publish revision 1").click()
    # Publishing lints the pack first (its reachability search included): on a loaded machine the
    # page may take seconds, and the click does not wait for it to load.
    published = page.get_by_role("heading", name="Revision 1 of carol.story is published")
    published.wait_for(timeout=30_000)
    assert published.is_visible()
    checked(page, "published")
    page.goto(f"{server.url}/?q=lantern")
    assert page.get_by_role("link", name="Carol's Lantern Story").is_visible()


def _answer(page: Any, line: dict[str, Any]) -> None:
    for ident, value in line["observations"].items():
        spelled = ("true" if value else "false") if isinstance(value, bool) else value
        page.check(f'input[name="obs.{ident}"][value="{spelled}"]')


def test_play_to_an_ending_with_an_undo(server: Server, page: Any) -> None:
    lines = [json.loads(x) for x in (EXAMPLES / "0.5" / "playthrough.jsonl").read_text().splitlines()]
    sign_in(page, server, server.token("examples"))  # the examples' owner: the narrator panel too
    page.goto(f"{server.url}/play/harbour-light")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/play/session/*")
    assert page.get_by_role("heading", name="Narrator panel").is_visible()
    checked(page, "play")
    _answer(page, lines[0])
    page.get_by_role("button", name="Play turn 1").click()
    page.wait_for_load_state()
    assert page.get_by_role("heading", name="What changed this turn").is_visible()
    assert page.locator("tr.changed").count() >= 1
    page.get_by_role("button", name="Undo turn 1").click()
    page.wait_for_load_state()
    assert page.get_by_role("button", name="Play turn 1").is_visible()
    for number, line in enumerate(lines, 1):
        _answer(page, line)
        page.get_by_role("button", name=f"Play turn {number}").click()
        page.wait_for_load_state()
    assert page.get_by_role("heading", name="The end: Keeper of the Light").is_visible()
    checked(page, "play-ending")


def test_the_catalog_by_keyboard_only(server: Server, page: Any) -> None:
    page.goto(server.url + "/")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    for _ in range(20):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "q":
            break
    page.keyboard.type("lighthouse")
    page.keyboard.press("Enter")
    page.wait_for_url("**/?q=lighthouse*")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.getAttribute('href')") == "/packs/harbour-light":
            break
    page.keyboard.press("Enter")
    page.wait_for_url("**/packs/harbour-light")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") is not None
    assert page.problems == []


def test_a_hostile_title_opens_no_dialog(server: Server, page: Any) -> None:
    headers = {"Authorization": f"Bearer {server.token('mallory')}"}
    body = published_bytes("mallory.pack", title=HOSTILE, tagline=HOSTILE, description=HOSTILE)
    assert httpx.post(f"{server.url}/v1/packs", content=body, headers=headers).status_code == 201
    published = httpx.post(f"{server.url}/v1/packs/mallory.pack/publish", json={"revision": 1}, headers=headers)
    assert published.status_code == 200
    page.goto(f"{server.url}/?q=onerror")
    page.goto(f"{server.url}/packs/mallory.pack")
    assert page.problems == []  # no dialog on the catalog page with the hostile pack
    page.goto(f"{server.url}/packs/no.such.pack")  # the error page: 404 is expected, not a console error
    assert page.get_by_role("heading", name="Not found").is_visible()
    page.problems.clear()
    assert page.evaluate(_AXE) == []
    page.goto(f"{server.url}/packs/mallory.pack")
    assert page.locator("h1").inner_text() == HOSTILE
    assert page.locator("img[src=x]").count() == 0
    page.wait_for_timeout(200)
    checked(page, "hostile")


HIDDEN = "The stranger on the quay is her brother Tobias."  # a secret of the rich 0.5 example
# A long clean passage: the guard streams it (but for its last few dozen characters, held back in case
# a secret starts there), then stops at the secret; the model is asked for a rewrite.
PASSAGE = " ".join(f"Wave {n} breaks on the rocks below the lamp room." for n in range(1, 60))
_WATCH = """() => {
  const report = () => window.recordText(document.documentElement.textContent);
  new MutationObserver(report).observe(document.documentElement, {subtree: true, childList: true, characterData: true});
  report();
}"""


@pytest.fixture
def narrated(tmp_path: Path) -> Iterator[tuple[Server, FakeModelServer]]:
    """``creatorpack serve`` whose narrator is a fake model that first tells the example's secret."""
    script = [f"{PASSAGE} {HIDDEN}", "The fog thickens.", "Gulls cry."]
    with FakeModelServer(script) as model, serving(tmp_path, CREATORPACK_MODEL_URL=model.url) as running:
        yield running, model


def test_narrate_a_turn_and_never_see_what_the_guard_held(narrated: tuple[Server, FakeModelServer], page: Any) -> None:
    """The owner types an action; the narration streams into the box; the guarded sentence never shows.

    Every state of the page's text while the narration streams is recorded (a MutationObserver). The
    narrate answer is let through without its final ``turn`` event (on which the script reloads the
    page), so the box is checked with axe as it stands once the narration has streamed in.
    """
    server, model = narrated
    sign_in(page, server, server.token("examples"))
    page.goto(f"{server.url}/play/harbour-light")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/play/session/*")
    texts: list[str] = []
    page.expose_function("recordText", lambda text: texts.append(text))  # noqa: PLW0108 - Playwright marks what it is given: a bound builtin cannot be
    page.evaluate(_WATCH)
    answers: list[str] = []

    def without_the_turn_event(route: Any) -> None:
        response = route.fetch()
        body = response.text()
        answers.append(body)
        kept = [block for block in body.split("\n\n") if not block.startswith("event: turn")]
        route.fulfill(response=response, body="\n\n".join(kept))

    page.route("**/play/session/*/narrate", without_the_turn_event)
    page.get_by_label("Your action, in your own words; the narrator tells what happens").fill("I ask Mara who he is")
    page.get_by_role("button", name="Narrate turn 1").click()
    box = page.locator("[data-narration]")
    box.filter(has_text="Wave 1 breaks").wait_for(timeout=60_000)
    streamed = box.inner_text()
    assert PASSAGE.startswith(streamed)  # the passage as far as the guard let it through, in the box
    assert len(streamed) > 100
    assert "event: narration" in answers[0]
    assert "event: turn" in answers[0]  # the server did end the turn (the page was not told, to stay on it)
    checked(page, "play-narrated")
    page.unroute("**/play/session/*/narrate")
    page.reload()
    assert page.get_by_role("heading", name="The story so far").is_visible()
    assert "The fog thickens." in page.locator(".story").inner_text()
    assert any(streamed in text for text in texts)  # the recorder saw the stream
    assert all(HIDDEN not in text and "her brother" not in text for text in texts)
    assert HIDDEN not in page.content()
    assert "her brother" not in page.content()
    assert len(model.requests) >= 2  # the narration and the rewrite the guard asked for

"""The validator's paged report (service/web/findings.py): a 30 MB pack with thousands of findings.

Every finding is on exactly one page, a page is bounded, each finding's line is on its page, and any
server process (a second app on the same store) answers the pages; a report is shown for an hour.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from fastapi.testclient import TestClient

from creatorpack.service.app import create_app
from creatorpack.service.settings import Settings
from creatorpack.service.web.findings import KEPT_SECONDS, PAGE_SIZE
from tests.conftest import example
from tests.service.conftest import issue, published_bytes
from tests.service.sessions_support import upload
from tests.service.web_support import form_post

ENTRIES = 5000
_FINDING = re.compile(r'<a href="#L(\d+)">\d+:\d+</a>.*?<span class="pointer">at <code>([^<]+)</code>', re.S)
_NEXT = re.compile(r'<a href="(/validate/report/[0-9a-f]{64}\?page=\d+)" rel="next">')


def _big_pack() -> str:
    """A pack of about 30 MB whose every entry has a title that is not a string: one finding each."""
    doc = example("0.5", "minimal")
    doc["entries"] = [{"title": i, "notes": "x" * 6000} for i in range(ENTRIES)]
    return json.dumps(doc, indent=1)


@pytest.fixture(scope="module")
def big() -> str:
    return _big_pack()


def test_every_finding_of_a_30_mb_pack_is_on_exactly_one_bounded_page(
    settings: Settings, client: TestClient, big: str
) -> None:
    assert len(big) > 30_000_000
    lines = big.split("\n")
    page = form_post(client, "/validate", files={"file": ("big.json", big)})
    assert page.status_code == 200, page.text[:300]
    assert f"Not valid (contract 0.5): {ENTRIES} error(s)" in page.text
    seen: list[str] = []
    pages = [page.text]
    numbers = 1
    with TestClient(create_app(settings)) as other:  # another server process on the same store
        while (following := _NEXT.search(pages[-1])) is not None:
            numbers += 1
            answer = (other if numbers % 2 else client).get(following.group(1).replace("&amp;", "&"))
            assert answer.status_code == 200, answer.text[:300]
            pages.append(answer.text)
    assert numbers == -(-ENTRIES // PAGE_SIZE)
    for number, text in enumerate(pages, 1):
        assert len(text) < 250_000  # bounded: never the 30 MB source
        found = _FINDING.findall(text)
        assert 0 < len(found) <= PAGE_SIZE
        assert f"(page {number} of {numbers})" in text
        for line, pointer in found:
            seen.append(pointer)
            # The finding's line is on its page, marked, so its link jumps there; cut to a window.
            shown = re.search(rf'<li id="L{line}" value="{line}" class="marked"><mark>([^<]*)</mark>', text)
            assert shown is not None, (number, line)
            assert '"title": ' in lines[int(line) - 1]
            assert len(shown.group(1)) <= 242
    assert sorted(seen) == sorted(f"/entries/{i}/title" for i in range(ENTRIES))  # each exactly once
    assert 'rel="prev"' in pages[-1]
    assert 'rel="prev"' not in pages[0]  # no previous page on the first, no next on the last
    assert 'rel="next"' not in pages[-1]


def test_a_short_report_is_one_page_and_kept_nowhere(client: TestClient) -> None:
    blobs = client.app.state.blobs  # type: ignore[attr-defined]
    before = list(blobs.list())
    broken = json.dumps(example("0.5", "minimal"), indent=2).replace('"title"', '"titel"', 1)
    page = form_post(client, "/validate", {"pack": broken})
    assert page.status_code == 200
    assert "additional-property" in page.text
    assert "/validate/report/" not in page.text
    assert list(blobs.list()) == before


def test_a_report_is_addressed_by_its_key_for_an_hour_only(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = example("0.5", "minimal")
    doc["entries"] = [{"title": i} for i in range(PAGE_SIZE + 1)]
    page = form_post(client, "/validate", {"pack": json.dumps(doc, indent=1)})
    following = _NEXT.search(page.text)
    assert following is not None
    second = following.group(1)
    assert client.get(second).status_code == 200
    key = second.split("/")[-1].split("?")[0]
    for wrong in (f"/validate/report/{key}?page=3", f"/validate/report/{key}?page=0", "/validate/report/xyz"):
        assert client.get(wrong).status_code == 404, wrong
    assert client.get(f"/validate/report/{key}?page=two").status_code == 400
    assert client.get(f"/validate/report/{'0' * 64}").status_code == 404
    # Another blob of the store (a stored pack's bytes) is no report.
    alice = issue(client)
    stored = upload(client, published_bytes(), alice)
    assert client.get(f"/validate/report/{stored['sha256']}").status_code == 404
    later = time.time() + KEPT_SECONDS + 1
    monkeypatch.setattr(time, "time", lambda: later)
    gone = client.get(second)
    assert gone.status_code == 404
    assert "validate the pack again" in gone.text


def test_binary_junk_shows_its_control_characters_as_pictures(client: TestClient) -> None:
    """A pasted binary file is reported as not a pack; its source lines show control characters, not send them raw."""
    junk = "\x00\x01\x1b[31m{\x7f\x0c"
    page = form_post(client, "/validate", {"pack": junk})
    assert page.status_code == 200
    source = page.text.split('<ol class="source"', 1)[1].split("</ol>", 1)[0]  # the textarea echoes the paste as sent
    assert "␀␁␛[31m{␡␌" in source
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", source)

"""Asset files: upload (hash, size, sniffed type, once per hash) and fetch (who, caching, ranges), on both databases."""

from __future__ import annotations

import hashlib
import json
import threading
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from creatorpack.service.assets import MAX_ASSET_BYTES, Assets, byte_range
from creatorpack.service.errors import RangeNotSatisfiableError
from creatorpack.service.memory import FixedClock, MemoryAssetStore, MemoryBlobStore, MemoryPackStore
from creatorpack.service.packs import Packs
from creatorpack.service.ports import Actor
from tests.service.conftest import JSON, issue, published_bytes

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64 + b"png body"
JPEG = b"\xff\xd8\xff\xe0" + b"jpeg body " * 20
MP4 = b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 8
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x01" * 32
LONG = "9" * 5000
"""A ``Range`` number longer than ``int()`` converts (4300 digits)."""


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _asset(asset_id: str, data: bytes, mime: str, kind: str = "image", **extra: Any) -> dict[str, Any]:
    return {
        "id": asset_id,
        "kind": kind,
        "mime_type": mime,
        "sha256": sha(data),
        "byte_size": len(data),
        "description": f"The {asset_id}",
        "reveal_when": {"op": "literal", "value": True},
        **extra,
    }


def pack_with_assets(
    pack_id: str = "moon.garden", revision: int = 1, visibility: str = "public", files: dict[str, bytes] | None = None
) -> bytes:
    """The minimal pack with a cover (JPEG), a cover motion (MP4) and a portrait (PNG), used by the publication."""
    doc = json.loads(
        published_bytes(pack_id, revision, visibility, cover_asset_id="cover", cover_motion_asset_id="reel")
    )
    files = files or {"cover": JPEG, "reel": MP4, "portrait": PNG}
    kinds = {"cover": ("image/jpeg", "image"), "reel": ("video/mp4", "video"), "portrait": ("image/png", "image")}
    doc["assets"] = [_asset(a, data, *kinds[a]) for a, data in files.items()]
    doc["entries"][0]["opening_illustrations"] = []
    doc["illustrations"] = [{"id": "ill", "asset_id": "portrait", "alt": "A portrait"}]
    return json.dumps(doc).encode()


def _put(client: TestClient, data: bytes, headers: dict[str, str], digest: str | None = None) -> Any:
    return client.put(f"/v1/assets/{digest or sha(data)}", content=data, headers=headers)


def test_upload_checks_hash_type_and_size(client: TestClient) -> None:
    alice = issue(client)
    first = _put(client, PNG, alice)
    assert first.status_code == 201
    assert first.json()["sha256"] == sha(PNG)
    assert (first.json()["size"], first.json()["mime_type"]) == (len(PNG), "image/png")
    again = _put(client, PNG, {**alice, "Content-Type": "image/jpeg"})  # the declared type does not matter
    assert again.status_code == 200
    assert again.json() == first.json()
    for data, mime in ((JPEG, "image/jpeg"), (MP4, "video/mp4"), (WAV, "audio/wav")):
        assert _put(client, data, alice).json()["mime_type"] == mime
    mismatch = _put(client, PNG, alice, digest="0" * 64)
    assert mismatch.status_code == 422
    assert mismatch.json()["type"] == "urn:creatorpack:problem:asset-mismatch"
    assert mismatch.json()["sha256"] == sha(PNG)
    text = b"just some text"
    unknown = _put(client, text, alice)
    assert unknown.status_code == 422
    assert unknown.json()["type"] == "urn:creatorpack:problem:asset-type"
    assert "video/mp4" in unknown.json()["allowed"]
    assert _put(client, b"", alice).status_code == 422
    for bad in ("ABC", "0" * 63, "G" * 64, "A" * 64):
        assert client.put(f"/v1/assets/{bad}", content=PNG, headers=alice).status_code == 400


def test_upload_size_limit_is_413(client: TestClient) -> None:
    alice = issue(client)
    big = PNG + b"\x00" * (MAX_ASSET_BYTES + 1 - len(PNG))
    response = _put(client, big, alice)
    assert response.status_code == 413
    assert response.json()["limit"] == MAX_ASSET_BYTES


def test_upload_needs_a_creator(client: TestClient) -> None:
    reader = issue(client, "rita", "reader")
    assert _put(client, PNG, {}).status_code == 401
    assert _put(client, PNG, reader).status_code == 403


def test_files_are_stored_once_and_shared_by_hash(client: TestClient) -> None:
    alice, bob = issue(client, "alice"), issue(client, "bob")
    assert _put(client, PNG, alice).status_code == 201
    assert _put(client, PNG, bob).status_code == 200
    blobs = client.app.state.services.assets._blobs  # type: ignore[attr-defined]
    assert [digest for digest, _ in blobs.list()] == [sha(PNG)]


def test_concurrent_uploads_of_one_file(client: TestClient) -> None:
    alice = issue(client)
    statuses: list[int] = []

    def upload() -> None:
        statuses.append(_put(client, MP4, alice).status_code)

    threads = [threading.Thread(target=upload) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] * 5 + [201]  # exactly one upload stored it
    fetched = client.get(f"/v1/assets/{sha(MP4)}")
    assert fetched.status_code == 405  # the file is read through a pack, never by hash alone


def _publish(client: TestClient, headers: dict[str, str], body: bytes) -> Any:
    doc = json.loads(body)
    client.post("/v1/packs", content=body, headers={**headers, **JSON})
    return client.post(
        f"/v1/packs/{doc['manifest']['pack_id']}/publish",
        json={"revision": doc["manifest"]["revision"]},
        headers=headers,
    )


def test_publishing_warns_of_files_not_uploaded_yet(client: TestClient) -> None:
    alice = issue(client)
    _put(client, JPEG, alice)
    response = _publish(client, alice, pack_with_assets())
    assert response.status_code == 200
    missing = [(w["pointer"], w["code"]) for w in response.json()["warnings"] if w["code"] == "asset-file-missing"]
    assert missing == [("/assets/1", "asset-file-missing"), ("/assets/2", "asset-file-missing")]
    for data in (MP4, PNG):
        _put(client, data, alice)
    again = _publish(client, alice, pack_with_assets(revision=2))
    assert [w["code"] for w in again.json()["warnings"]] == []


def test_a_file_of_another_type_than_the_pack_says_refuses_publication(client: TestClient) -> None:
    alice = issue(client)
    _put(client, PNG, alice)
    doc = json.loads(pack_with_assets(files={"cover": JPEG, "reel": MP4, "portrait": PNG}))
    doc["assets"][2]["mime_type"] = "image/webp"
    response = _publish(client, alice, json.dumps(doc).encode())
    assert response.status_code == 422
    assert [(e["pointer"], e["code"]) for e in response.json()["errors"]] == [
        ("/assets/2/mime_type", "asset-mime-mismatch")
    ]


def test_who_may_fetch_what(client: TestClient) -> None:
    alice, bob = issue(client, "alice"), issue(client, "bob")
    reader = issue(client, "rita", "reader")
    for data in (JPEG, MP4, PNG):
        _put(client, data, alice)
    client.post("/v1/packs", content=pack_with_assets(), headers={**alice, **JSON})
    # unpublished: the owner fetches anything, nobody else anything
    owner = client.get("/v1/packs/moon.garden/assets/portrait", headers=alice)
    assert (owner.status_code, owner.content, owner.headers["content-type"]) == (200, PNG, "image/png")
    assert owner.headers["cache-control"] == "private, no-cache"
    for headers in ({}, bob, reader):
        assert client.get("/v1/packs/moon.garden/assets/cover", headers=headers).status_code == 404
    _publish(client, alice, pack_with_assets())
    for headers in ({}, bob, reader):
        cover = client.get("/v1/packs/moon.garden/assets/cover", headers=headers)
        assert (cover.status_code, cover.content) == (200, JPEG)
        assert cover.headers["etag"] == f'"{sha(JPEG)}"'
        assert cover.headers["cache-control"] == "public, max-age=300, immutable"
        assert client.get("/v1/packs/moon.garden/assets/reel", headers=headers).content == MP4
        portrait = client.get("/v1/packs/moon.garden/assets/portrait", headers=headers)
        assert portrait.status_code == 404
        assert client.get("/v1/packs/moon.garden/assets/nothing", headers=headers).status_code == 404
    assert client.get("/v1/packs/moon.garden/assets/cover", headers=alice).headers["cache-control"].startswith("public")
    cached = client.get("/v1/packs/moon.garden/assets/cover", headers={"If-None-Match": f'"{sha(JPEG)}"'})
    assert cached.status_code == 304
    assert client.get("/v1/packs/moon.garden/assets/x", headers={"Authorization": "Bearer cpt_no"}).status_code == 401


def test_unlisted_covers_are_not_shared_by_caches_and_private_ones_are_hidden(client: TestClient) -> None:
    alice = issue(client)
    for data in (JPEG, MP4, PNG):
        _put(client, data, alice)
    _publish(client, alice, pack_with_assets("unl", visibility="unlisted"))
    _publish(client, alice, pack_with_assets("pri", visibility="private"))
    unlisted = client.get("/v1/packs/unl/assets/cover")
    assert (unlisted.status_code, unlisted.headers["cache-control"]) == (200, "private, no-cache")
    assert client.get("/v1/packs/pri/assets/cover").status_code == 404
    assert client.get("/v1/packs/pri/assets/cover", headers=alice).status_code == 200


def test_a_reward_only_cover_is_never_shown_to_readers(client: TestClient) -> None:
    """A ``reward_only`` cover only warns (``spoiler-asset``): the reader view, catalog and asset route leave it out."""
    alice, bob = issue(client, "alice"), issue(client, "bob")
    reader = issue(client, "rita", "reader")
    for data in (JPEG, MP4, PNG):
        _put(client, data, alice)
    doc = json.loads(pack_with_assets())
    for asset in doc["assets"]:
        if asset["id"] in ("cover", "reel"):
            asset["access"] = "reward_only"
    published = _publish(client, alice, json.dumps(doc).encode())
    assert published.status_code == 200
    assert "spoiler-asset" in [w["code"] for w in published.json()["warnings"]]
    nothing = {"asset_id": None, "url": None, "motion_asset_id": None, "motion_url": None}
    assert client.get("/v1/packs/moon.garden/reader").json()["publication"]["cover"] == nothing
    assert [item["cover"] for item in client.get("/v1/catalog").json()["items"]] == [nothing]
    for headers in ({}, bob, reader):
        for asset_id in ("cover", "reel"):
            assert client.get(f"/v1/packs/moon.garden/assets/{asset_id}", headers=headers).status_code == 404
    owned = client.get("/v1/packs/moon.garden/assets/cover", headers=alice)
    assert (owned.status_code, owned.content, owned.headers["cache-control"]) == (200, JPEG, "private, no-cache")


def test_files_not_uploaded_yet_and_other_revisions(client: TestClient) -> None:
    alice = issue(client)
    client.post("/v1/packs", content=pack_with_assets(), headers={**alice, **JSON})
    missing = client.get("/v1/packs/moon.garden/assets/portrait", headers=alice)
    assert missing.status_code == 404
    assert "not been uploaded yet" in missing.json()["detail"]
    _put(client, PNG, alice)
    assert client.get("/v1/packs/moon.garden/assets/portrait", headers=alice).status_code == 200
    other = json.loads(pack_with_assets(revision=2))
    other["assets"][2]["id"] = "portrait2"
    other["illustrations"][0]["asset_id"] = "portrait2"
    client.post("/v1/packs", content=json.dumps(other).encode(), headers={**alice, **JSON})
    assert client.get("/v1/packs/moon.garden/assets/portrait", headers=alice).status_code == 404  # latest: 2
    old = client.get("/v1/packs/moon.garden/assets/portrait", params={"revision": 1}, headers=alice)
    assert old.status_code == 200
    assert client.get("/v1/packs/moon.garden/assets/portrait2", headers=alice).content == PNG
    assert client.get("/v1/packs/moon.garden/assets/portrait", params={"revision": 9}, headers=alice).status_code == 404


def test_audio_and_video_answer_byte_ranges(client: TestClient) -> None:
    alice = issue(client)
    for data in (JPEG, MP4, PNG):
        _put(client, data, alice)
    _publish(client, alice, pack_with_assets())
    path = "/v1/packs/moon.garden/assets/reel"
    whole = client.get(path)
    assert whole.headers["accept-ranges"] == "bytes"
    cases = {"bytes=0-9": (0, 10), "bytes=100-": (100, len(MP4)), "bytes=-16": (len(MP4) - 16, len(MP4))}
    for header, (start, stop) in cases.items():
        part = client.get(path, headers={"Range": header})
        assert part.status_code == 206, header
        assert part.content == MP4[start:stop]
        assert part.headers["content-range"] == f"bytes {start}-{stop - 1}/{len(MP4)}"
    past = client.get(path, headers={"Range": f"bytes={len(MP4)}-"})
    assert past.status_code == 416
    assert past.headers["content-range"] == f"bytes */{len(MP4)}"
    assert past.json()["type"] == "urn:creatorpack:problem:range-not-satisfiable"
    for ignored in ("bytes=0-1,5-6", "items=0-1", "bytes=9-2"):
        assert client.get(path, headers={"Range": ignored}).status_code == 200
    image = client.get("/v1/packs/moon.garden/assets/cover", headers={"Range": "bytes=0-9"})
    assert (image.status_code, image.content) == (200, JPEG)  # images come whole
    assert "accept-ranges" not in image.headers


def test_over_long_range_numbers_are_past_the_end(client: TestClient) -> None:
    """A ``Range`` number of more digits than ``int()`` converts is a number past the end, never a 500."""
    alice = issue(client)
    for data in (JPEG, MP4, PNG):
        _put(client, data, alice)
    _publish(client, alice, pack_with_assets())
    path = "/v1/packs/moon.garden/assets/reel"
    for header in (f"bytes={LONG}-", f"bytes={LONG}-{LONG}", f"bytes={'1' * 4301}-"):
        past = client.get(path, headers={"Range": header})
        assert (past.status_code, past.headers["content-range"]) == (416, f"bytes */{len(MP4)}"), header[:20]
        assert past.json()["type"] == "urn:creatorpack:problem:range-not-satisfiable"
        assert client.head(path, headers={"Range": header}).status_code == 416
    for header, (start, stop) in {f"bytes=-{LONG}": (0, len(MP4)), f"bytes=5-{LONG}": (5, len(MP4))}.items():
        part = client.get(path, headers={"Range": header})
        assert (part.status_code, part.content) == (206, MP4[start:stop]), header[:20]
        assert part.headers["content-range"] == f"bytes {start}-{stop - 1}/{len(MP4)}"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("bytes=0-0", (0, 1)),
        ("bytes=5-1000", (5, 10)),
        ("bytes=-3", (7, 10)),
        ("bytes=-30", (0, 10)),
        ("bytes=-", None),
        ("bytes=a-b", None),
        ("bytes=0007-0008", (7, 9)),
        (f"bytes=2-{LONG}", (2, 10)),  # an end past the end: to the end
        (f"bytes=-{LONG}", (0, 10)),  # a suffix longer than the file: all of it
        (f"bytes=-{'0' * 5000}3", (7, 10)),  # leading zeros are no length
        (f"bytes={'0' * 5000}5-{'0' * 5000}7", (5, 8)),
        (f"bytes={LONG}-{LONG[:-1]}", None),  # the end before the start: malformed
        (f"bytes=2-{'0' * 5000}1", None),
    ],
)
def test_byte_range(header: str | None, expected: tuple[int, int] | None) -> None:
    assert byte_range(header, 10) == expected


@pytest.mark.parametrize(
    "header", ["bytes=10-", "bytes=-0", "bytes=20-30", f"bytes={LONG}-", f"bytes={LONG}-{LONG}", f"bytes=-{'0' * 5000}"]
)
def test_unsatisfiable_ranges(header: str) -> None:
    with pytest.raises(RangeNotSatisfiableError):
        byte_range(header, 10)


def test_garbage_collection_keeps_uploaded_files() -> None:
    clock = FixedClock()
    store, blobs, assets = MemoryPackStore(), MemoryBlobStore(clock), MemoryAssetStore()
    packs = Packs(store, blobs, clock, assets=assets)
    files = Assets(assets, store, blobs, clock)
    files.upload(sha(PNG), PNG)
    blobs.put(b"an orphan")
    clock.advance(7200)
    assert packs.collect_garbage(timedelta(hours=1)) == [sha(b"an orphan")]
    assert blobs.get(sha(PNG)) == PNG


def test_the_asset_source_of_publication_is_the_lint_assets_seam() -> None:
    from creatorpack.lint import AssetSource
    from creatorpack.service.assets import BlobAssets

    clock = FixedClock()
    blobs, assets = MemoryBlobStore(clock), MemoryAssetStore()
    Assets(assets, MemoryPackStore(), blobs, clock).upload(sha(PNG), PNG)
    source = BlobAssets([sha(PNG), sha(JPEG), "not-a-sha"], assets, blobs)
    assert isinstance(source, AssetSource)
    assert source.names() == frozenset({sha(PNG)})
    assert source.read(sha(PNG)) == PNG
    assert source.find("files/portrait.png") is None
    packs = Packs(MemoryPackStore(), blobs, clock, assets=assets)
    packs.submit("alice", pack_with_assets())
    done = packs.publish(Actor("alice"), "moon.garden", 1)
    assert [(w["pointer"], w["code"]) for w in done.warnings] == [
        ("/assets/0", "asset-file-missing"),
        ("/assets/1", "asset-file-missing"),
    ]


def test_a_described_source_is_checked_without_reading_its_files() -> None:
    import creatorpack
    from creatorpack.lint import LintConfig
    from creatorpack.lint.assets import AssetFacts, DescribedAssetSource

    class Described:
        label = "described files"

        def names(self) -> frozenset[str]:
            return frozenset({sha(PNG), sha(JPEG)})

        def find(self, uri: str) -> str | None:  # noqa: ARG002 - an AssetSource method
            return None

        def read(self, name: str) -> bytes:
            raise AssertionError(f"{name} was read")

        def describe(self, name: str) -> AssetFacts:
            if name == sha(PNG):
                return AssetFacts(name, len(PNG), "image/png")
            return AssetFacts(name, 1, "image/gif")  # a size and a type the pack does not say

    source = Described()
    assert isinstance(source, DescribedAssetSource)
    body = pack_with_assets(files={"cover": JPEG, "reel": MP4, "portrait": PNG})
    report = creatorpack.lint(body, LintConfig(assets=source, reachability=False))
    assert sorted((f.pointer, f.code) for f in report.findings) == [
        ("/assets/0/byte_size", "asset-size-mismatch"),
        ("/assets/0/mime_type", "asset-mime-mismatch"),
        ("/assets/1", "asset-file-missing"),
    ]


def test_garbage_collection_keeps_uploaded_files_in_the_database(client: TestClient) -> None:
    alice = issue(client)
    _put(client, PNG, alice)
    services = client.app.state.services  # type: ignore[attr-defined]
    services.assets._blobs.put(b"an orphan")
    assert services.packs.collect_garbage(timedelta(0)) == [sha(b"an orphan")]
    assert client.get(f"/v1/assets/{sha(PNG)}").status_code == 405
    assert services.assets._blobs.get(sha(PNG)) == PNG


def test_head_of_a_file_gives_the_get_headers_without_reading_the_file(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = issue(client)
    for data in (JPEG, MP4, PNG):
        _put(client, data, alice)
    _publish(client, alice, pack_with_assets())
    cases = [
        ("/v1/packs/moon.garden/assets/cover", {}),
        ("/v1/packs/moon.garden/assets/reel", {"Range": "bytes=0-9"}),
        ("/v1/packs/moon.garden/assets/portrait", alice),
    ]
    got = {path: client.get(path, headers=headers) for path, headers in cases}
    reads: list[str] = []
    real = Assets.stream

    def counted(self: Assets, asset: Any, start: int = 0, stop: int | None = None, **named: Any) -> Any:
        reads.append(asset.sha256)
        return real(self, asset, start, stop, **named)

    monkeypatch.setattr(Assets, "stream", counted)
    for path, headers in cases:
        head = client.head(path, headers=headers)
        assert (head.status_code, head.content) == (got[path].status_code, b""), path
        for name in ("content-type", "content-length", "content-range", "etag", "cache-control", "accept-ranges"):
            assert head.headers.get(name) == got[path].headers.get(name), (path, name)
    assert reads == []  # nothing was read from the blob store for a HEAD
    assert client.get(cases[0][0]).content == JPEG
    assert reads == [sha(JPEG)]

"""What a pack says about itself: public metadata that gives secrets away, and provenance hashes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from creatorpack._json import JsonPath
from creatorpack.contract.findings import RawFinding
from creatorpack.lint.index import PackIndex
from creatorpack.lint.rules import Raw

__all__ = ["check_hashes", "check_spoilers"]


def check_hashes(index: PackIndex) -> Iterator[Raw]:
    """generation_record hashes agree with the assets they describe."""
    assets = index.items("assets")
    by_id = {a.get("id"): a for _, a in assets}
    for position, asset in assets:
        record = asset.get("generation_record")
        if not isinstance(record, Mapping):
            continue
        output = record.get("output_sha256")
        if isinstance(output, str) and output != asset.get("sha256"):
            recorded, shipped = _two_hashes(output, str(asset.get("sha256")))
            yield RawFinding(
                ("assets", position, "generation_record", "output_sha256"),
                "output-sha256-mismatch",
                f"output_sha256 {recorded} is not this asset's sha256 {shipped}; record the file you ship",
            )
        inputs = record.get("input_assets")
        for number, item in enumerate(inputs if isinstance(inputs, list) else []):
            source = by_id.get(item.get("asset_id")) if isinstance(item, Mapping) else None
            if source is not None and item.get("sha256") != source.get("sha256"):
                actual, given = _two_hashes(str(source.get("sha256")), str(item.get("sha256")))
                yield RawFinding(
                    ("assets", position, "generation_record", "input_assets", number, "sha256"),
                    "input-sha256-mismatch",
                    f"input {item.get('asset_id')!r} has sha256 {actual}, not {given}",
                )


def _two_hashes(first: str, second: str, shown: int = 12) -> tuple[str, str]:
    """Two different hashes as a message shows them: their first ``shown`` digits, or whole when those agree."""
    if first[:shown] != second[:shown]:
        return f"{first[:shown]}…", f"{second[:shown]}…"
    return first, second


def _secrets(index: PackIndex) -> list[tuple[str, str]]:
    secrets = [
        (item["title"], f"hidden achievement {item.get('id')!r}")
        for _, item in index.items("progression", "achievements")
        if item.get("visibility") == "hidden" and isinstance(item.get("title"), str)
    ]
    secrets += [
        (item["title"], f"ending {item.get('id')!r}")
        for _, item in index.items("progression", "endings")
        if isinstance(item.get("title"), str)
    ]
    return secrets


def _wrong_cover(key: str, asset: Mapping[str, Any]) -> str:
    """Why ``asset`` cannot be the cover ``key`` names (a still cover that is no image, ...), or ``""``."""
    kind, mime, name = asset.get("kind"), asset.get("mime_type"), asset.get("id")
    if key == "cover_asset_id" and kind in ("audio", "video"):
        return f"the cover {name!r} is {kind}, not an image: the catalog shows a cover as a picture"
    if key == "cover_motion_asset_id" and (kind == "audio" or (kind == "image" and mime != "image/apng")):
        what = "audio" if kind == "audio" else f"a still image ({mime})"
        return f"the motion cover {name!r} is {what}: use a video (or an animated PNG), or set it as cover_asset_id"
    return ""


def check_spoilers(index: PackIndex) -> Iterator[Raw]:
    """Public metadata must not give away hidden achievements, endings or rewards."""
    publication = index.pack.get("publication")
    if not isinstance(publication, Mapping):
        return
    secrets = _secrets(index)
    texts: list[tuple[JsonPath, str]] = [
        ((name,), publication[name]) for name in ("tagline", "description") if isinstance(publication.get(name), str)
    ]
    tags = publication.get("tags")
    texts += [(("tags", i), t) for i, t in enumerate(tags if isinstance(tags, list) else []) if isinstance(t, str)]
    for where, text in texts:
        for title, what in secrets:
            if title.strip() and title.strip().casefold() in text.casefold():
                yield RawFinding(
                    ("publication", *where),
                    "spoiler-title",
                    f"names the title of the {what} ({title!r}); readers should discover it",
                )
    assets = {a.get("id"): a for _, a in index.items("assets")}
    for key in ("cover_asset_id", "cover_motion_asset_id"):
        asset = assets.get(publication.get(key))
        if asset is not None and (wrong := _wrong_cover(key, asset)):
            yield RawFinding(("publication", key), "cover-kind", wrong)
        if asset is not None and asset.get("access") == "reward_only":
            yield RawFinding(
                ("publication", key),
                "spoiler-asset",
                f"the cover {asset.get('id')!r} is reward_only: it would show a reward before it is earned",
            )

"""``creatorpack db seed-examples``: upload and publish the bundled rich examples under the ``examples`` account.

So that a fresh ``./dev run`` shows a catalog with something in it. It goes through the domain as
an upload and a publish by a creator token would (journaled under a token of the ``examples``
account, revoked at the end); running it again changes nothing but a new publish entry. A pack id
another account holds is left alone and reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

import orjson

from creatorpack.service.api.deps import Services
from creatorpack.service.errors import ServiceError
from creatorpack.service.ports import Actor

__all__ = ["EXAMPLES_ACCOUNT", "EXAMPLE_VERSIONS", "Seeded", "seed_examples"]

EXAMPLES_ACCOUNT: Final = "examples"
EXAMPLE_VERSIONS: Final = ("0.3", "0.4", "0.5")
"""The contract versions whose ``rich.json`` is seeded."""


@dataclass(frozen=True, slots=True)
class Seeded:
    """What became of one example: its pack id, revision and visibility, or why it was left out."""

    path: Path
    pack_id: str
    revision: int
    visibility: str | None
    problem: str | None = None


def seed_examples(services: Services, directory: Path) -> list[Seeded]:
    """Upload and publish ``directory/{version}/rich.json`` for each of :data:`EXAMPLE_VERSIONS`."""
    _, token = services.auth.issue(EXAMPLES_ACCOUNT, "creator", name="seed-examples")
    done: list[Seeded] = []
    try:
        for version in EXAMPLE_VERSIONS:
            path = directory / version / "rich.json"
            body = path.read_bytes()
            manifest = orjson.loads(body)["manifest"]
            pack_id, revision = str(manifest["pack_id"]), int(manifest["revision"])
            try:
                services.packs.submit(EXAMPLES_ACCOUNT, body, token_id=token.id)
                published = services.packs.publish(Actor(EXAMPLES_ACCOUNT, token.id), pack_id, revision)
            except ServiceError as exc:
                done.append(Seeded(path, pack_id, revision, None, str(exc)))
                continue
            finally:
                services.sessions.forget(pack_id)
            done.append(Seeded(path, pack_id, revision, published.visibility))
    finally:
        services.auth.revoke(token.id)
    return done

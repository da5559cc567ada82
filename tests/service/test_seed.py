"""``creatorpack db seed-examples``: the bundled rich examples in the catalog, under the ``examples`` account."""

from __future__ import annotations

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from creatorpack.cli import app as cli_app
from creatorpack.service.app import create_app
from creatorpack.service.settings import Settings
from tests.conftest import EXAMPLES
from tests.service.test_cli import _env

IDS = ("harbour-light-0-3", "harbour-light-0-4", "harbour-light")


def test_seed_examples_publishes_them_and_can_run_again(settings: Settings) -> None:
    for _ in range(2):
        result = CliRunner().invoke(cli_app, ["db", "seed-examples", "--examples", str(EXAMPLES)], env=_env(settings))
        assert result.exit_code == 0, result.stderr
        assert result.stdout.count("(public)") == 3
    with TestClient(create_app(settings)) as client:
        listed = {item["pack_id"] for item in client.get("/v1/catalog").json()["items"]}
        assert set(IDS) <= listed
        page = client.get("/")
        for pack_id in IDS:
            assert f'href="/packs/{pack_id}"' in page.text
        cover = client.get("/packs/harbour-light/files/cover_still")  # its file was never uploaded
        assert cover.status_code == 200
        assert cover.headers["content-type"] == "image/svg+xml"
        assert client.get("/packs/harbour-light/files/mara_portrait").status_code == 404  # not a cover
        tokens = client.app.state.services.auth.tokens("examples")  # type: ignore[attr-defined]
        assert tokens
        assert all(t.revoked is not None for t in tokens)


def test_seed_examples_needs_the_examples(settings: Settings, tmp_path: object) -> None:
    result = CliRunner().invoke(cli_app, ["db", "seed-examples", "--examples", str(tmp_path)], env=_env(settings))
    assert result.exit_code == 2
    assert "pass --examples DIR" in result.stderr

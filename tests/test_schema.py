"""The shipped schemas: valid draft 2020-12, stable ids, self-contained bundles, closed objects."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from creatorpack import SUPPORTED_VERSIONS, UnknownVersionError
from creatorpack.contract import schema

NAMES = ["common.json", "pack.json", *(f"pack-{v}.json" for v in SUPPORTED_VERSIONS)]

# Objects the contract describes only in part (docs/contract-gaps.md): they accept further properties.
OPEN_OBJECTS = {
    "pack-0.2.json#",
    "pack-0.3.json#",
    "pack-0.4.json#",
    "pack-0.5.json#",
    "pack-0.2.json#/$defs/Entry",
    "pack-0.2.json#/$defs/Asset",
    "common.json#/$defs/RuntimeState",
    "common.json#/$defs/RuntimeEntry",
    "common.json#/$defs/EffectRule",
    "common.json#/$defs/GenerationRecord",
    "common.json#/$defs/PackEntry",
    "common.json#/$defs/Requirement",
    "common.json#/$defs/Progression",
    # Dispatchers: they check only the discriminator; the branch it selects is closed.
    "common.json#/$defs/Observation",
    "pack-0.5.json#/$defs/AnyProgression",
}


@pytest.mark.parametrize("name", NAMES)
def test_each_document_is_a_valid_2020_12_schema_with_a_stable_id(name: str) -> None:
    document = schema.document(name)
    jsonschema.Draft202012Validator.check_schema(document)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert document["$id"] == schema.BASE_URI + name


@pytest.mark.parametrize("version", [*SUPPORTED_VERSIONS, None])
def test_bundles_resolve_without_a_registry(version: str | None) -> None:
    bundled = schema.bundle(version)
    validator = jsonschema.Draft202012Validator(bundled)  # no registry: every $ref must resolve inside
    assert not validator.is_valid({})
    assert schema.schema_id(version) == bundled["$id"]


def test_unknown_version() -> None:
    with pytest.raises(UnknownVersionError, match=r"supported versions: 0\.2, 0\.3, 0\.4, 0\.5"):
        schema.bundle("0.6")
    with pytest.raises(ValueError, match="no shipped schema"):
        schema.document("../secrets.json")


def _objects(name: str, node: Any, pointer: str) -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        if "properties" in node and node.get("type") == "object":
            found.append((f"{name}#{pointer}", node))
        for key, value in node.items():
            found += _objects(name, value, f"{pointer}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _objects(name, value, f"{pointer}/{index}")
    return found


def test_every_fully_described_object_forbids_other_properties() -> None:
    open_found = set()
    for name in NAMES:
        if name == "pack.json":
            continue
        for where, node in _objects(name, schema.document(name), ""):
            if "additionalProperties" in node or "/if" in where:  # an `if` only tests, it describes nothing
                continue
            open_found.add(where)
    assert open_found == OPEN_OBJECTS

"""Test support: plant state members, rules and achievements into a pack document (the rich example, say).

The reachability tests build their shapes this way; one copy here keeps their packs alike.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Doc", "plant_achievement", "plant_member", "plant_rule"]

Doc = dict[str, Any]


def plant_member(doc: Doc, name: str, schema: Doc, initial: Any) -> None:
    """A required state member ``name`` with ``schema``, set to ``initial`` in every entry."""
    doc["runtime"]["state"]["schema"]["properties"][name] = schema
    doc["runtime"]["state"]["schema"]["required"].append(name)
    for entry in doc["runtime"]["entries"]:
        entry["initial_state"][name] = initial


def plant_rule(doc: Doc, ident: str, when: Doc, *effects: Doc) -> None:
    """An effect rule ``ident``, appended after the pack's own rules."""
    doc["runtime"]["rules"].append({"kind": "effect", "id": ident, "when": when, "effects": list(effects)})


def plant_achievement(doc: Doc, ident: str, when: Doc) -> None:
    """A visible achievement ``ident`` unlocked by ``when``, with the rich example's artwork."""
    doc["progression"]["achievements"].append(
        {
            "id": ident,
            "visibility": "visible",
            "title": ident,
            "description": "Planted.",
            "when": when,
            "artwork_asset_id": "first_light_art",
        }
    )

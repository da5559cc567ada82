# ruff: noqa: RUF001 - the Chinese texts use Chinese (full-width) punctuation, as they should
"""The starter files of ``creatorpack init``: a minimal valid, lint-clean pack and a play script.

The pack has one entry, one observation, one rule and (from 0.4) one ending, which the script
reaches in one turn. Pure: :func:`files` returns the files as a mapping of name to text.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import unicodedata
from typing import Any, Final, Literal, TypeAlias

from creatorpack.errors import CreatorpackError

__all__ = [
    "LANGUAGES",
    "PACK_FILE",
    "SCRIPT_FILE",
    "VERSIONS",
    "Language",
    "ScaffoldError",
    "default_title",
    "files",
    "new_pack_id",
    "pack_id_for",
]

Language: TypeAlias = Literal["en", "zh", "zh-CN"]
VERSIONS: Final = ("0.3", "0.4", "0.5")
"""Versions ``creatorpack init`` can start a pack in (0.2 is the retired model)."""
LANGUAGES: Final[tuple[Language, ...]] = ("en", "zh", "zh-CN")
"""Values of ``manifest.language``."""
PACK_FILE: Final = "pack.json"
SCRIPT_FILE: Final = "playthrough.jsonl"

_ID: Final = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,79}$")


class ScaffoldError(CreatorpackError, ValueError):
    """An unknown version or language, or an empty title, for a new pack."""


_TEXT: Final[dict[str, dict[str, str]]] = {
    "en": {
        "title": "A Door in the Fog",
        "instructions": (
            "Narrate, in the second person, a short walk through a foggy harbour town. Somewhere in the fog "
            "is a blue door; let the reader look for it, and describe what is behind it once it is found."
        ),
        "entry": "The Foggy Quay",
        "question": "Did the reader find the blue door this turn?",
        "art": "Placeholder for the ending's artwork: the blue door, open, light spilling onto the quay.",
        "ending": "Through the Blue Door",
        "summary": "Find the blue door somewhere in the fog.",
        "next_step": "Walk along the quay and look closely at every doorway.",
        "hint": "The door is blue, even in the fog.",
        "closing": "The door opens onto a warm kitchen, and someone has kept supper for you.",
    },
    "zh": {
        "title": "雾中之门",
        "instructions": (
            "用第二人称讲述在雾气笼罩的港口小镇中的一段散步。"
            "雾中某处有一扇蓝色的门；让读者去寻找它，找到后描述门后的景象。"
        ),
        "entry": "雾中码头",
        "question": "读者在这一回合找到蓝色的门了吗？",
        "art": "结局插图的占位：蓝色的门敞开着，灯光洒在码头上。",
        "ending": "穿过蓝色的门",
        "summary": "在雾中找到那扇蓝色的门。",
        "next_step": "沿着码头走，仔细看看每一个门口。",
        "hint": "即使在雾中，那扇门也是蓝色的。",
        "closing": "门后是一间温暖的厨房，有人为你留了晚饭。",
    },
}


def default_title(language: str = "en") -> str:
    """The title a new pack gets when none is given."""
    return _TEXT["en" if language == "en" else "zh"]["title"]


def pack_id_for(title: str, suffix: str = "") -> str:
    """A pack id made from ``title`` (lowercase ASCII words joined by ``-``), then ``-suffix`` if given.

    Accents are dropped (``Café`` gives ``cafe``); a title with no ASCII letter to start with
    (``雾中之门``, ``123 go``) gives ``pack``, or ``my-pack`` without a suffix. The id is a valid Id
    (at most 80 characters): the title's part is cut to leave room for the suffix.
    """
    folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    tail = f"-{suffix}" if suffix else ""
    slug = slug[: 80 - len(tail)].rstrip("-")
    if not _ID.match(slug):
        slug = "pack" if suffix else "my-pack"
    made = slug + tail
    if not _ID.match(made):
        raise ScaffoldError(f"{made!r} is no valid pack id: use a suffix of letters, digits, '_', '.' or '-'")
    return made


def new_pack_id(title: str) -> str:
    """A fresh pack id for ``title``: :func:`pack_id_for` with 6 random hexadecimal digits.

    Two packs started with one title (every pack that keeps the default title, every Chinese
    title) must not share an id: the service keys packs by it, so the second upload would be
    taken for a revision of the first.
    """
    return pack_id_for(title, secrets.token_hex(3))


def files(
    version: str = "0.5", *, title: str | None = None, language: str = "en", pack_id: str | None = None
) -> dict[str, str]:
    """The starter files for a new pack: :data:`PACK_FILE` and :data:`SCRIPT_FILE`, by name.

    ``pack_id`` (and the runtime id) default to :func:`new_pack_id` of the title, so two calls
    give two ids; pass one to get the same files every time.

    Raises :class:`ScaffoldError` for a version outside :data:`VERSIONS`, a language outside
    :data:`LANGUAGES`, a blank title or a ``pack_id`` that is no valid Id.
    """
    if version not in VERSIONS:
        raise ScaffoldError(f"cannot start a pack in version {version!r}: choose one of {', '.join(VERSIONS)}")
    if language not in LANGUAGES:
        raise ScaffoldError(f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}")
    if title is not None and not title.strip():
        raise ScaffoldError("the title must contain a non-whitespace character")
    if pack_id is not None and not _ID.match(pack_id):
        raise ScaffoldError(
            f"{pack_id!r} is no valid pack id: start with a letter, then up to 79 letters, digits, '_', '.' or '-'"
        )
    text = _TEXT["en" if language == "en" else "zh"]
    name = title if title is not None else text["title"]
    pack = _pack(version, name, language, text, pack_id or new_pack_id(name))
    script = [{"observations": {"found_door": True}}]
    return {
        PACK_FILE: json.dumps(pack, indent=2, ensure_ascii=False) + "\n",
        SCRIPT_FILE: "".join(json.dumps(turn, ensure_ascii=False) + "\n" for turn in script),
    }


def _pack(version: str, title: str, language: str, text: dict[str, str], pack_id: str) -> dict[str, Any]:
    found = {"op": "gte", "path": "/doors_found", "value": 1}
    pack: dict[str, Any] = {
        "protocol_version": version,
        "manifest": {"pack_id": pack_id, "revision": 1, "title": title, "language": language},
        "runtime": {
            "runtime_id": pack_id,
            "state": {
                "schema": {
                    "type": "object",
                    "properties": {"doors_found": {"type": "integer", "minimum": 0, "maximum": 1}},
                    "required": ["doors_found"],
                    "additionalProperties": False,
                }
            },
            "entries": [{"id": "opening", "initial_state": {"doors_found": 0}}],
            "observations": [{"type": "boolean", "id": "found_door", "question": text["question"]}],
            "rules": [
                {
                    "kind": "effect",
                    "id": "find_the_door",
                    "when": {"op": "observed", "id": "found_door", "value": True},
                    "effects": [{"op": "increment", "path": "/doors_found", "by": 1, "limit": 1, "overflow": "clamp"}],
                }
            ],
        },
        "instructions": text["instructions"],
        "entries": [{"id": "opening", "title": text["entry"]}],
        "provenance": [{"path": "/", "basis": "original", "review": "accepted"}],
    }
    if version == "0.3":
        return pack
    placeholder = text["art"].encode("utf-8")
    pack["assets"] = [
        {
            "id": "ending_art",
            "kind": "image",
            "mime_type": "image/png",
            "sha256": hashlib.sha256(placeholder).hexdigest(),
            "byte_size": len(placeholder),
            "description": text["art"],
            "reveal_when": found,
        }
    ]
    ending = {
        "id": "through_the_door",
        "title": text["ending"],
        "when": found,
        "artwork_asset_id": "ending_art",
        "guidance": {
            "summary": text["summary"],
            "next_step": text["next_step"],
            "requirements": [{"id": "find_the_door", "hint": text["hint"], "condition_ref": ""}],
        },
        "priority": 0,
        "closing_text": text["closing"],
    }
    protocol = "service.progression/1" if version == "0.4" else "service.progression/2"
    pack["progression"] = {"protocol": protocol, "achievements": [], "endings": [ending]}
    if version == "0.5":
        pack["presentation"] = {"bindings": [], "illustration_rules": []}
    return pack

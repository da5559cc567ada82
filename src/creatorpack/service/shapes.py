"""Response shapes: one frozen dataclass per JSON body, from which both the bytes and the OpenAPI schema come.

A route's body is ``orjson.dumps(shape)`` (orjson serializes dataclasses, tuples and datetimes
natively, in field order) and its OpenAPI entry is the same class given to FastAPI as
``response_model`` (pydantic derives the JSON schema from the fields, their types and the
docstring). There is no second, hand-written description to drift from what is sent: a field
added to a shape is in both, and a key that is no field cannot be sent. Shapes are
``@dataclass(frozen=True)`` without ``slots``: orjson serializes a slotted dataclass about five
times slower (1 us against 0.2 us for three fields, as fast as a dict).

This module holds what shapes share: :data:`Timestamp` (a stored ISO 8601 text documented as a
``date-time``), :class:`Serialized` (a member already serialized, e.g. a catalog entry kept as
bytes, documented as the shape it was serialized from) and :func:`plain` (a shape as plain JSON
values, for the HTML pages and the event stream that render or embed it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import orjson
from pydantic import WithJsonSchema

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

__all__ = ["Serialized", "Timestamp", "plain"]

Timestamp = Annotated[str, WithJsonSchema({"type": "string", "format": "date-time"})]
"""An ISO 8601 date and time kept as text (a reader view is stored serialized, its time with it)."""


class Serialized:
    """``Annotated[orjson.Fragment, Serialized(Shape)]``: JSON bytes made from ``Shape``, sent as they are.

    orjson embeds a :class:`orjson.Fragment` verbatim, so a member serialized once (and kept as
    bytes) is not parsed and serialized again; the OpenAPI schema is ``Shape``'s.
    """

    def __init__(self, shape: type) -> None:
        self.shape = shape

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """The schema of the shape the bytes were serialized from (pydantic asks this for the OpenAPI document)."""
        return handler.generate_schema(self.shape)


def plain(shape: object) -> Any:
    """The shape as plain JSON values (dicts, lists, strings, numbers): exactly what its body carries."""
    return orjson.loads(orjson.dumps(shape))

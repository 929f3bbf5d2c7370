"""Strict request bodies: a field the API does not take is an error, not something silently dropped.

A client that sends ``score`` or ``outcome`` with a move is told at once that the server never
takes them (scores are computed from the move log), instead of being left to believe it worked.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension
from rest_framework import serializers
from rest_framework.request import Request

from .errors import BadRequest


def _unknown(data: Any, allowed: set[str]) -> list[str]:
    if not hasattr(data, "keys"):
        return []
    return sorted(str(key) for key in data.keys() if key not in allowed)


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not declare (and a body that is not an object)."""

    def to_internal_value(self, data: Any) -> Any:
        if not hasattr(data, "keys"):
            raise serializers.ValidationError({"non_field_errors": ["the body must be a JSON object"]})
        unknown = _unknown(data, set(self.fields))
        if unknown:
            raise serializers.ValidationError({name: ["this API does not take this field"] for name in unknown})
        return super().to_internal_value(data)


def require_no_body(request: Request) -> None:
    """For operations that take no input: any field sent is refused."""
    data = request.data
    if data is None or (hasattr(data, "keys") and not data.keys()) or data == {}:
        return
    if hasattr(data, "keys"):
        raise BadRequest(f"this request takes no fields: {', '.join(_unknown(data, set()))}")
    raise BadRequest("this request takes no body")


class StrictSerializerExtension(OpenApiSerializerExtension):
    """In the schema, a strict serializer's object says so: ``additionalProperties: false``."""

    target_class = "plumbing.inputs.StrictSerializer"
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> Any:
        schema = auto_schema._map_basic_serializer(self.target, direction)
        schema["additionalProperties"] = False
        return schema

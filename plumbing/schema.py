"""The OpenAPI schema tells the whole truth: every operation documents the errors it can answer.

drf-spectacular documents the success responses each view declares; the refusals every view
shares (plumbing/errors.py: one error shape) are added here to every operation, so a
client generated from the schema, or a schema-driven fuzzer, knows every answer it may get.
"""

from __future__ import annotations

from typing import Any

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Every refusal of the API: a code for programs and a sentence for people.",
    "properties": {
        "error": {"type": "string", "description": "invalid, illegal_move, not_yours, stale, finished, throttled, ..."},
        "message": {"type": "string"},
        "fields": {"type": "object", "additionalProperties": True, "description": "per-field problems (invalid)"},
        "retry_after": {"type": "number", "nullable": True, "description": "seconds (throttled)"},
        "moves": {"type": "integer", "description": "the game's move count (stale)"},
    },
    "required": ["error", "message"],
    "additionalProperties": True,
}

#: Answers any operation may give (405 and 415 come from DRF itself, 503 from a database outage).
ERRORS = {
    "400": "The input is malformed, or the rules refuse it.",
    "403": "Not signed in, CSRF token missing, or not allowed (e.g. someone else's game).",
    "404": "No such object.",
    "405": "This method is not allowed here.",
    "406": "No representation matches the Accept header.",
    "409": "Conflicts with the current state (e.g. a stale or repeated move, a finished game).",
    "415": "The request body's media type is not supported.",
    "429": "Too many requests: retry after retry_after seconds.",
    "503": "The service cannot reach its database just now: try again shortly.",
}


def add_error_responses(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the Error component and its responses on every operation."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    reference = {"$ref": "#/components/schemas/Error"}
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in {"get", "put", "post", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            for code, description in ERRORS.items():
                responses.setdefault(
                    code, {"description": description, "content": {"application/json": {"schema": reference}}}
                )
    return result

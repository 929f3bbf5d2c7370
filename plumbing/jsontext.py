"""JSON text for the live layer: every socket message and every event is encoded and decoded here.

orjson writes the same JSON values as the standard library's ``json`` in a fraction of the time,
in its compact form (no spaces).  A value orjson refuses (an integer past 64 bits, say) is
written by ``json`` instead, so encoding never fails where ``json.dumps`` would not.  Decoding
refuses what is not strict JSON (``NaN``, integers past 64 bits) with a ``ValueError``, as
``json.loads`` refuses any other malformed text.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # orjson.JSONEncodeError
        return json.dumps(value, separators=(",", ":"))


def loads(text: str | bytes) -> Any:
    """The value of a JSON text; ``ValueError`` (``orjson.JSONDecodeError``) when it is not one."""
    return orjson.loads(text)

"""The API's JSON parser: DRF's, reading with orjson (``plumbing.jsontext``).

The standard library's decoder recurses once per level of nesting, so a body of 100,000 "["
ran out of Python's stack: a RecursionError, which DRF does not catch, and a 500.  orjson stops
at 1,024 levels with an ordinary decoding error, which is a 400 like any other malformed JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError

from . import jsontext


class JSONParser(parsers.JSONParser):
    def parse(
        self, stream: IO[bytes], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        try:
            return jsontext.loads(stream.read())
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from None

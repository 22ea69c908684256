"""The API's JSON parser: bounded nesting, so a hostile body gets 400, not a RecursionError."""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from scoring.metrics.jsontext import JsonTooDeepError, loads


class JsonNestingError(ParseError):
    """A body nested too deep (400); ``extra`` holds the path, depth and limit for the reply."""

    def __init__(self, error: JsonTooDeepError):
        super().__init__(str(error))
        found = error.nesting
        self.extra = {"path": found.where(), "depth": found.depth, "limit": found.limit}


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, refusing bodies nested deeper than ``jsontext.MAX_DEPTH``."""

    def parse(self, stream, media_type=None, parser_context=None):
        """Parse a JSON request body.

        Args:
            stream: the body.
            media_type: its media type.
            parser_context: DRF's context (for the encoding).

        Returns:
            The parsed value.

        Raises:
            JsonNestingError: the body nests too deep (400, with the path and depth).
            ParseError: the body is not JSON (400).
        """
        encoding = (parser_context or {}).get("encoding") or "utf-8"
        try:
            return loads(stream.read().decode(encoding))
        except JsonTooDeepError as error:
            raise JsonNestingError(error) from error
        except (ValueError, UnicodeDecodeError) as error:
            raise ParseError(f"JSON parse error - {error}") from error

"""Request bodies, checked before any schema sees them: JSON only, not too large, not too deep.

webargs parses JSON with the standard library, where 1,000 nested brackets raise RecursionError
(a 500). This parser (orjson, several times faster) refuses them with a 400 problem instead; the size limit (413) is Flask's
MAX_CONTENT_LENGTH, enforced while the body is read.
"""
from __future__ import annotations

from typing import Any

from flask import Request
import orjson
from marshmallow import missing
from webargs import core
from webargs.flaskparser import FlaskParser

from service.problems import Problem

MAX_BYTES = 64 * 1024
MAX_DEPTH = 32  # the deepest request Palazzo takes (a setup) nests 4 deep


def depth(doc: Any) -> int:
    """How deeply `doc` nests, without recursion."""
    deepest, stack = 0, [(doc, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(node, dict):
            stack.extend((value, level + 1) for value in node.values())
        elif isinstance(node, list):
            stack.extend((value, level + 1) for value in node)
    return deepest


def parse(raw: bytes) -> Any:
    """A JSON body as data; 400 problems for bad or deeply nested JSON."""
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        if "recursion" in str(error).lower():
            raise Problem("too_deep", f"JSON may nest at most {MAX_DEPTH} levels") from None
        raise Problem("bad_json", f"the body is not valid JSON: {error}") from None
    if depth(doc) > MAX_DEPTH:
        raise Problem("too_deep", f"JSON may nest at most {MAX_DEPTH} levels")
    return doc


class Parser(FlaskParser):
    """flask-smorest's argument parser with Palazzo's body checks."""

    def _raw_load_json(self, req: Request) -> Any:
        raw = req.get_data(cache=True)
        if not core.is_json(req.mimetype):
            if raw:
                raise Problem("unsupported_media_type", "send the body as application/json")
            return missing
        return parse(raw) if raw else missing

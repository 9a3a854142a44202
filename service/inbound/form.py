"""An Inbound Parse post's fields as the bytes it sent, read from the multipart/form-data body.

Werkzeug's form parser decodes every field as UTF-8 (or a part's own declared charset), but Inbound
Parse sends the fields of a parsed mail in the mail's own charsets, named in its ``charsets`` field,
and a raw mail as its bytes; decoded first, their non-ASCII text was lost before anyone read it. So
the body is read here with werkzeug's own multipart decoder (`werkzeug.sansio.multipart`), keeping
the fields asked for as bytes, each cut at `cap` bytes; files (attachments) are skipped unread.
"""
from __future__ import annotations

from collections.abc import Collection, Iterator
from functools import partial
from itertools import chain
from typing import IO

from werkzeug.http import parse_options_header
from werkzeug.sansio.multipart import Data, Epilogue, Event, Field, File, MultipartDecoder, NeedData

CHUNK = 64 * 1024
MAX_PARTS = 1000  # fields and attachments; werkzeug refuses more (413)


def fields(stream: IO[bytes], content_type: str | None, wanted: Collection[str], cap: int) -> dict[str, bytes]:
    """The `wanted` fields of the body, as bytes, each at most `cap` of them (the first part of each
    name counts). Raises ValueError for a body that is not multipart/form-data, and werkzeug's
    RequestEntityTooLarge past MAX_PARTS parts (or the stream's own limit)."""
    mimetype, options = parse_options_header(content_type or "")
    if mimetype != "multipart/form-data" or not options.get("boundary"):
        raise ValueError("the body is not multipart/form-data")
    found: dict[str, bytearray] = {}
    current: bytearray | None = None
    for event in _events(stream, MultipartDecoder(options["boundary"].encode(), max_parts=MAX_PARTS)):
        if isinstance(event, Field) and event.name in wanted and event.name not in found:
            current = found[event.name] = bytearray()
        elif isinstance(event, (Field, File)):
            current = None
        elif isinstance(event, Data) and current is not None:
            current += event.data[: cap - len(current)]
    return {name: bytes(value) for name, value in found.items()}


def _events(stream: IO[bytes], decoder: MultipartDecoder) -> Iterator[Event]:
    """The decoder's events as the stream is read, chunk by chunk; ValueError for a body cut short."""
    for chunk in chain(iter(partial(stream.read, CHUNK), b""), [None]):
        decoder.receive_data(chunk)
        while not isinstance(event := decoder.next_event(), (NeedData, Epilogue)):
            yield event

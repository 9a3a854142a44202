"""An inbound mail as SendGrid's Inbound Parse posts it (multipart/form-data), read into what a reply
needs: who sent it to which addresses, which mail it answers, what SPF and DKIM said, and its text.

Both of Inbound Parse's modes are read: the parsed fields (``from``, ``to``, ``cc``, ``text``,
``html``, ``headers``, ``envelope``, ``SPF``, ``dkim``, ``charsets``, ...) and "send raw" (``email``,
the whole MIME message, beside ``envelope``, ``SPF`` and ``dkim``). Every field is taken as the bytes
posted (`form`): a raw mail is parsed from its bytes, in the charsets its parts name, and each parsed
field is decoded in the charset that ``charsets`` names for it, since Inbound Parse passes a mail's
text on in the mail's own charset (decoded as UTF-8, latin-1's "Grüße" came out "Gr��e", and a
no-break space broke the command it stood in). A mail with only an HTML part is turned into text,
quoted parts (<blockquote>) left out.

`read` takes only the headers and the envelope, so that who sent a mail to whom is known even when
its body cannot be read; `text` reads the body and raises `UnreadableMail` for anything the parser
cannot take (a charset nobody knows, parts nested too deeply), which is refused once, not retried.
"""
from __future__ import annotations

import email
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from email import policy
from email.message import Message
from email.parser import BytesHeaderParser, HeaderParser
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser
from typing import Any

Post = Mapping[str, bytes]  # an Inbound Parse post's fields, as posted

MESSAGE_ID = re.compile(r"<[^<>\s]+>")
DKIM_RESULT = re.compile(r"@?([a-z0-9.-]+)\s*:\s*([a-z]+)", re.IGNORECASE)
MAX_LINES = 500  # of a mail's text that are read: a decision mail has about 50, so a reply quoting a few fits
MAX_CHARS = 20_000  # likewise; the grammar's work grows with what it reads (1 MB of near-commands took 12 s)
FIELDS = frozenset({"from", "to", "cc", "text", "html", "headers", "envelope", "SPF", "spf", "dkim", "charsets",
                    "email"})  # all that a reply needs of a post; the rest (attachments, spam report) is never kept


class UnreadableMail(ValueError):
    """A mail the parser cannot read; the message says why, in words for its sender."""


@dataclass(frozen=True)
class Inbound:
    """A reply as the service reads it; `answers` holds the Message-IDs it answers, In-Reply-To first,
    then References from the newest."""

    sender: str
    recipients: list[str]
    message_id: str | None = None
    answers: list[str] = field(default_factory=list)
    spf: str | None = None
    dkim: str | None = None
    envelope_from: str | None = None
    automatic: bool = False  # an out-of-office answer or the like (RFC 3834): never answered, or mail loops


def read(post: Post) -> Inbound:
    """Who sent the post's mail to which addresses, what it answers and what SPF and DKIM said (either
    mode), from its headers and envelope only. Raises UnreadableMail when even those cannot be read."""
    try:
        return _read(post)
    except Exception as error:  # whatever the header parser raises: the mail is refused, never retried
        raise UnreadableMail(f"its headers could not be read ({type(error).__name__})") from error


def _read(post: Post) -> Inbound:
    charsets = _json(post.get("charsets"))
    headers = _headers_of(post)
    envelope = _json(post.get("envelope"))
    recipients = [to for to in envelope.get("to") or [] if isinstance(to, str)]
    listed = [_field(post, name.lower(), charsets) or _header(headers, name) for name in ("To", "Cc")]
    recipients += [found for _, found in getaddresses(listed) if found]
    answers = MESSAGE_ID.findall(_header(headers, "In-Reply-To"))
    answers += reversed(MESSAGE_ID.findall(_header(headers, "References")))
    sender = parseaddr(_field(post, "from", charsets) or _header(headers, "From"))[1]
    return Inbound(
        sender=sender.strip(), recipients=recipients, message_id=message_id_in(headers), answers=answers,
        spf=_field(post, "SPF") or _field(post, "spf") or None, dkim=_field(post, "dkim") or None,
        envelope_from=envelope.get("from") if isinstance(envelope.get("from"), str) else None,
        automatic=_automatic(headers),
    )


def text(post: Post) -> str:
    """What the mail says, as text: raw mode's first text/plain part (else its HTML as text), parsed
    mode's ``text`` (else ``html``), each in its own charset, and of it at most MAX_LINES lines and
    MAX_CHARS characters, which bounds the work any mail can make. Raises UnreadableMail."""
    try:
        if post.get("email"):
            body = _body(email.message_from_bytes(post["email"], policy=policy.compat32))
        else:
            charsets = _json(post.get("charsets"))
            body = _field(post, "text", charsets, strict=True) or html_text(_field(post, "html", charsets, strict=True))
        return "\n".join(body[:MAX_CHARS].split("\n", MAX_LINES)[:MAX_LINES])
    except UnreadableMail:
        raise
    except RecursionError:
        raise UnreadableMail("its parts are nested too deeply to read") from None
    except Exception as error:  # whatever else the parser raises
        raise UnreadableMail(f"it could not be read ({type(error).__name__})") from error


def _field(post: Post, name: str, charsets: Mapping[str, Any] | None = None, strict: bool = False) -> str:
    """A parsed-mode field as text, in the charset ``charsets`` names for it (else UTF-8). A charset
    Python does not know makes the mail unreadable where its words matter (`strict`); in the
    addresses, which are ASCII whatever the charset, UTF-8 stands in for it."""
    value = post.get(name)
    if not value:
        return ""
    try:
        return _decoded(value, str((charsets or {}).get(name) or "utf-8"))
    except UnreadableMail:
        if strict:
            raise
        return value.decode("utf-8", "replace")


def _decoded(value: bytes, charset: str) -> str:
    """`value` in `charset`, bytes it cannot hold replaced; UnreadableMail for a charset Python does not know."""
    try:
        return value.decode(charset, "replace")
    except LookupError:
        raise UnreadableMail(f"it is written in a character set I do not know ({charset[:40]})") from None


def _headers_of(post: Post) -> Message:
    """The mail's headers: raw mode's header block, parsed mode's ``headers`` field."""
    if post.get("email"):
        return BytesHeaderParser(policy=policy.compat32).parsebytes(post["email"], headersonly=True)
    return HeaderParser(policy=policy.compat32).parsestr(_field(post, "headers"), headersonly=True)


def _header(headers: Message, name: str) -> str:
    """A header as text (compat32 gives a Header object for one with 8-bit bytes in it)."""
    return str(headers.get(name) or "")


def _automatic(headers: Message) -> bool:
    """Whether a mail says it was sent by a program, not a person (RFC 3834 and common practice)."""
    submitted = (_header(headers, "Auto-Submitted") or "no").strip().lower()
    precedence = _header(headers, "Precedence").strip().lower()
    return (submitted != "no" or precedence in ("bulk", "junk", "list", "auto_reply")
            or any(headers.get(name) is not None for name in ("X-Autoreply", "X-Autorespond")))


def message_id_in(headers: Message) -> str | None:
    found = MESSAGE_ID.search(_header(headers, "Message-ID"))
    return found[0] if found else None


def authenticated(mail: Inbound) -> bool | None:
    """Whether SPF or DKIM passed for the sender's domain; None when the post said nothing of either.

    DKIM counts for a signing domain aligned with the From address's (the same, or one a subdomain of
    the other). SPF vouches only for the envelope sender, so it counts only when there is one and it is
    aligned with the From address too: an empty envelope sender (a bounce's) or another domain's is no
    evidence for the From address, whatever SPF said.
    """
    if mail.spf is None and mail.dkim is None:
        return None
    domain = mail.sender.rpartition("@")[2].lower()
    signed = any(result.lower() == "pass" and _aligned(signer.lower(), domain)
                 for signer, result in DKIM_RESULT.findall(mail.dkim or ""))
    bounce_domain = (mail.envelope_from or "").rpartition("@")[2].lower()
    spf = (mail.spf or "").strip().lower() == "pass" and _aligned(bounce_domain, domain)
    return signed or spf


def _aligned(one: str, other: str) -> bool:
    return bool(one and other) and (one == other or one.endswith("." + other) or other.endswith("." + one))


def _body(message: Message) -> str:
    """The text of a raw MIME message: its first text/plain part, else its first text/html as text."""
    parts = list(message.walk()) if message.is_multipart() else [message]
    for wanted in ("text/plain", "text/html"):
        for part in parts:
            if part.get_content_type() == wanted and part.get_content_disposition() != "attachment":
                body = _decoded(part.get_payload(decode=True) or b"", part.get_content_charset() or "utf-8")
                return body if wanted == "text/plain" else html_text(body)
    return ""


def _json(raw: bytes | None) -> dict[str, Any]:
    """A field that holds a JSON object (``envelope``, ``charsets``); {} for anything else."""
    try:
        found = json.loads(raw or b"{}")
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


class _Text(HTMLParser):
    """HTML as the lines a reader sees: block elements end lines, quoted and invisible parts are left out."""

    BLOCKS = frozenset({"p", "div", "br", "li", "tr", "table", "ul", "ol", "pre", "h1", "h2", "h3", "h4", "h5", "h6"})
    HIDDEN = frozenset({"style", "script", "head", "title", "blockquote"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1
        elif tag == "hr":
            self.parts.append("\n________\n")  # what a mail program draws above the history it appends
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data.replace("\n", " "))  # a line break in the source is a space on screen


def html_text(html: str) -> str:
    """An HTML mail body as plain text lines."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = (re.sub(r"[ \t\u00a0]+", " ", line).strip() for line in "".join(parser.parts).split("\n"))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()

"""An inbound mail as SendGrid's Inbound Parse posts it (multipart/form-data), read into what a reply
needs: who sent it to which addresses, which mail it answers, its text, and what SPF and DKIM said.

Both of Inbound Parse's modes are read: the parsed fields (``from``, ``to``, ``cc``, ``subject``,
``text``, ``html``, ``headers``, ``envelope``, ``SPF``, ``dkim``, ...) and "send raw" (``email``, the
whole MIME message, beside ``envelope``, ``SPF`` and ``dkim``). A mail with only an HTML part is turned
into text, quoted parts (<blockquote>) left out.
"""
from __future__ import annotations

import email
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from email import policy
from email.message import Message
from email.parser import HeaderParser
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

MESSAGE_ID = re.compile(r"<[^<>\s]+>")
DKIM_RESULT = re.compile(r"@?([a-z0-9.-]+)\s*:\s*([a-z]+)", re.IGNORECASE)


@dataclass(frozen=True)
class Inbound:
    """A reply as the service reads it; `answers` holds the Message-IDs it answers, In-Reply-To first,
    then References from the newest."""

    sender: str
    recipients: list[str]
    text: str = ""
    message_id: str | None = None
    answers: list[str] = field(default_factory=list)
    spf: str | None = None
    dkim: str | None = None
    envelope_from: str | None = None
    automatic: bool = False  # an out-of-office answer or the like (RFC 3834): never answered, or mail loops


def read(fields: Mapping[str, str]) -> Inbound:
    """The reply in an Inbound Parse post's fields (either mode)."""
    raw = fields.get("email")
    parsed = email.message_from_string(raw, policy=policy.compat32) if raw else None
    headers = parsed if parsed is not None else _headers(fields.get("headers", ""))
    text = _body(parsed) if parsed is not None else (fields.get("text") or html_text(fields.get("html") or ""))
    envelope = _envelope(fields.get("envelope"))
    recipients = [str(to) for to in envelope.get("to") or [] if isinstance(to, str)]
    listed = [fields.get("to") or headers.get("To") or "", fields.get("cc") or headers.get("Cc") or ""]
    recipients += [found for _, found in getaddresses(listed) if found]
    answers = MESSAGE_ID.findall(headers.get("In-Reply-To") or "")
    answers += reversed(MESSAGE_ID.findall(headers.get("References") or ""))
    sender = parseaddr(fields.get("from") or headers.get("From") or "")[1]
    return Inbound(
        sender=sender.strip(), recipients=recipients, text=text, message_id=message_id_in(headers), answers=answers,
        spf=fields.get("SPF") or fields.get("spf") or None, dkim=fields.get("dkim") or None,
        envelope_from=envelope.get("from") if isinstance(envelope.get("from"), str) else None,
        automatic=_automatic(headers),
    )


def _automatic(headers: Message) -> bool:
    """Whether a mail says it was sent by a program, not a person (RFC 3834 and common practice)."""
    submitted = str(headers.get("Auto-Submitted") or "no").strip().lower()
    precedence = str(headers.get("Precedence") or "").strip().lower()
    return (submitted != "no" or precedence in ("bulk", "junk", "list", "auto_reply")
            or any(headers.get(name) is not None for name in ("X-Autoreply", "X-Autorespond")))


def message_id_of(fields: Mapping[str, str]) -> str | None:
    """The post's Message-ID, read cheaply (headers only): what a repeated post is known by."""
    return message_id_in(_headers(fields.get("email") or fields.get("headers") or ""))


def message_id_in(headers: Message) -> str | None:
    found = MESSAGE_ID.search(str(headers.get("Message-ID") or ""))
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


def _headers(text: str) -> Message:
    return HeaderParser(policy=policy.compat32).parsestr(text, headersonly=True)


def _envelope(raw: str | None) -> dict:
    try:
        envelope = json.loads(raw or "{}")
    except ValueError:
        return {}
    return envelope if isinstance(envelope, dict) else {}


def _body(message: Message) -> str:
    """The text of a raw MIME message: its first text/plain part, else its first text/html as text."""
    parts = list(message.walk()) if message.is_multipart() else [message]
    for wanted in ("text/plain", "text/html"):
        for part in parts:
            if part.get_content_type() == wanted and part.get_content_disposition() != "attachment":
                payload = part.get_payload(decode=True) or b""
                text = payload.decode(part.get_content_charset() or "utf-8", "replace")
                return text if wanted == "text/plain" else html_text(text)
    return ""


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

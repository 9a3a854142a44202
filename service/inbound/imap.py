"""Replies read from a mailbox over IMAP, for a host whose provider has no Inbound Parse: any mailbox
that gets the mail sent to the reply addresses (`play+...@<PALAZZO_MAIL_DOMAIN>`, by plus addressing
or a catch-all) serves.

Each message waiting in the folder (PALAZZO_IMAP_FOLDER) is fetched whole, as its RFC 822 bytes, and
handed to the same way in as an Inbound Parse post (`receiving.receive`, as a "send raw" post); then it
is moved to the done folder (MOVE where the server has it, else COPY, \\Deleted and EXPUNGE), so that
the folder holds only mail not yet handled. A reader killed between the two finds the mail again, and
`receive` knows it by its Message-ID and plays nothing twice; a mail whose dispatch another reader
may have left half done stays in the folder and is received again at the next look. A mail larger
than MAX_BYTES is moved unread, as the endpoint refuses such a post.

SPF and DKIM: the mailbox's provider checked them when the mail arrived and said so in an
Authentication-Results header (RFC 8601) under its own name. With PALAZZO_IMAP_AUTHSERV set to that
name, the topmost such header is read as SendGrid's SPF and dkim fields, and a mail without it counts
as unverified; unset, nothing is said of either, and a reply is played on its From address alone.
"""
from __future__ import annotations

import json
import logging
import re
import ssl
import threading
import time
from collections.abc import Callable
from email import policy
from email.parser import BytesHeaderParser

from imapclient import IMAPClient

from service.inbound.message import Post
from service.inbound.receiving import FIELD_BYTES, MAX_BYTES, Receipt
from service.mail.settings import ImapSettings

log = logging.getLogger(__name__)

RESULT = re.compile(r"\b(spf|dkim)\s*=\s*([a-z]+)((?:\s*\([^)]*\))?(?:\s+[a-z]+\.[a-z-]+\s*=\s*[^\s;]+)*)", re.IGNORECASE)
PROPERTY = re.compile(r"\b(smtp\.mailfrom|header\.d|header\.i)\s*=\s*([^\s;]+)", re.IGNORECASE)


class Mailbox:
    """One logged-in session on the folder replies arrive in."""

    def __init__(self, settings: ImapSettings):
        self.settings = settings
        context = ssl.create_default_context()
        self.client = IMAPClient(settings.host, settings.port, ssl=settings.security == "tls", ssl_context=context,
                                 timeout=settings.timeout)
        try:
            if settings.security == "starttls":
                self.client.starttls(context)
            self.client.login(settings.user, settings.password)
            self.done_folder = self._folder(settings.done_folder)
            if not self.client.folder_exists(self.done_folder):
                self.client.create_folder(self.done_folder)
            self.client.select_folder(settings.folder)
        except BaseException:
            self.close()
            raise

    def _folder(self, path: str) -> str:
        """A "/"-separated folder path in the server's own separator and under its personal prefix
        (Dovecot's maildir separates with ".", some servers keep every folder under "INBOX.")."""
        if not self.client.has_capability("NAMESPACE"):
            return path
        personal = self.client.namespace().personal or [("", "/")]
        prefix, separator = (_text(part) for part in personal[0])
        converted = path.replace("/", separator or "/")
        return converted if converted.startswith(prefix) else prefix + converted

    def waiting(self) -> list[int]:
        """The UIDs of the messages in the folder, oldest first."""
        return sorted(self.client.search(["NOT", "DELETED"]))

    def fetch(self, uid: int) -> bytes | None:
        """The message's bytes (at most FIELD_BYTES, as the endpoint keeps of a raw mail), unread by
        its flags; None for one gone meanwhile or larger than MAX_BYTES."""
        size = self.client.fetch([uid], ["RFC822.SIZE"]).get(uid, {}).get(b"RFC822.SIZE")
        if size is None:
            return None
        if size > MAX_BYTES:
            log.warning("mail %s in %s is %d bytes, more than a reply can be: moved unread", uid, self.settings.folder, size)
            return None
        return self.client.fetch([uid], ["BODY.PEEK[]"]).get(uid, {}).get(b"BODY[]", b"")[:FIELD_BYTES]

    def done(self, uids: list[int]) -> None:
        """Move the handled messages out of the folder."""
        if self.client.has_capability("MOVE"):
            self.client.move(uids, self.done_folder)
            return
        self.client.copy(uids, self.done_folder)
        self.client.add_flags(uids, [b"\\Deleted"], silent=True)
        self.client.expunge(uids if self.client.has_capability("UIDPLUS") else None)

    def wait(self, seconds: float, stop: threading.Event) -> None:
        """Until new mail arrives (IDLE, where the server offers it), `seconds` pass, or `stop` is set."""
        if not self.client.has_capability("IDLE"):
            stop.wait(seconds)
            return
        self.client.idle()
        try:
            end = time.monotonic() + seconds
            while not stop.is_set() and (left := end - time.monotonic()) > 0:
                if any(len(answer) > 1 and answer[1] == b"EXISTS" for answer in self.client.idle_check(min(left, 1.0))):
                    break
        finally:
            self.client.idle_done()

    def close(self) -> None:
        try:
            self.client.logout()
        except Exception:  # a dead connection has nothing left to say
            self.client.shutdown()


def handle_waiting(box: Mailbox, receive: Callable[[Post], Receipt], authserv: str = "") -> int:
    """Receive every message waiting in the folder and move each one that is settled; how many were
    moved. What receiving raises (Redis unreachable) leaves the message where it is."""
    moved = 0
    for uid in box.waiting():
        raw = box.fetch(uid)
        if raw is None or receive(post_of(raw, authserv)).settled:
            box.done([uid])
            moved += 1
    return moved


def post_of(raw: bytes, authserv: str = "") -> dict[str, bytes]:
    """A raw mail as the fields of an Inbound Parse "send raw" post; with `authserv`, what that
    server's Authentication-Results header says of SPF and DKIM."""
    post = {"email": raw}
    if authserv:
        headers = BytesHeaderParser(policy=policy.compat32).parsebytes(raw, headersonly=True)
        post.update(authentication(headers.get_all("Authentication-Results") or [], authserv))
    return post


def authentication(headers: list, authserv: str) -> dict[str, bytes]:
    """SendGrid's SPF, dkim and envelope fields from the topmost Authentication-Results header of
    `authserv`: SPF "none" without one, which `message.authenticated` reads as unverified."""
    mine = [str(value) for value in headers if str(value).split(";", 1)[0].split()[:1] == [authserv]]
    if not mine:
        return {"SPF": b"none"}
    spf, mailfrom, dkim = "none", "", []
    for method, result, rest in RESULT.findall(mine[0].split(";", 1)[-1]):
        found = {name.lower(): value for name, value in PROPERTY.findall(rest)}
        if method.lower() == "spf":
            spf, mailfrom = result.lower(), found.get("smtp.mailfrom", "")
        elif domain := found.get("header.d") or found.get("header.i", "").rpartition("@")[2]:
            dkim.append(f"@{domain} : {result.lower()}")
    fields = {"SPF": spf.encode(), "envelope": json.dumps({"from": mailfrom}).encode()}
    if dkim:
        fields["dkim"] = ("{" + ", ".join(dkim) + "}").encode()
    return fields


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value

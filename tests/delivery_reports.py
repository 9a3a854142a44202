"""Delivery status reports (RFC 3464) as a receiving server's MTA (Postfix, here) returns them, for the
bounce tests: written out as the bytes that arrive, not built by a library that might read them back."""
from __future__ import annotations

import uuid
from email.utils import formatdate


def report(to: str, recipient: str, message_id: str, action: str = "failed", status: str = "5.1.1",
           whole: bool = False) -> bytes:
    """A report to `to` that mail `message_id` to `recipient` met `action` with `status`; it returns the
    original's headers (text/rfc822-headers), or the whole mail as message/rfc822 when `whole`."""
    original = (f"From: Palazzo <palazzo@palazzo.example>\r\nTo: {recipient}\r\nSubject: Your turn\r\n"
                f"Message-ID: {message_id}\r\n")
    returned = (f"Content-Type: message/rfc822\r\n\r\n{original}\r\nYour turn.\r\n" if whole
                else f"Content-Type: text/rfc822-headers\r\n\r\n{original}")
    return (f"From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\nTo: {to}\r\n"
            f"Subject: Undelivered Mail Returned to Sender\r\nDate: {formatdate()}\r\n"
            f"Message-ID: <{uuid.uuid4().hex}@mx.example.org>\r\nAuto-Submitted: auto-replied\r\n"
            f"MIME-Version: 1.0\r\n"
            f'Content-Type: multipart/report; report-type=delivery-status; boundary="B0"\r\n\r\n'
            f"--B0\r\nContent-Type: text/plain\r\n\r\nThis is the mail system at mx.example.org.\r\n\r\n"
            f"<{recipient}>: host mx.example.org said: 550 {status} no such user\r\n\r\n"
            f"--B0\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\n"
            f"Final-Recipient: rfc822; {recipient}\r\nOriginal-Recipient: rfc822;{recipient}\r\n"
            f"Action: {action}\r\nStatus: {status}\r\n"
            f"Diagnostic-Code: smtp; 550 {status} <{recipient}>: Recipient address rejected\r\n\r\n"
            f"--B0\r\n{returned}\r\n--B0--\r\n").encode()

"""Signed links: every link Palazzo mails is built from the configured base URL (never from the
request), signed with the server's secret, bound to what it does and expiring.

The purpose of a link is the signature's salt, so a link made for one job never opens another.
"""
from __future__ import annotations

import hashlib
import hmac
from typing import Any
from urllib.parse import urlencode

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from service.problems import Problem

LOCAL_BASE_URL = "http://127.0.0.1:8000"  # what `palazzo up` serves on; links use PALAZZO_BASE_URL

MIN_SECRET_LENGTH = 32  # a shorter secret could be guessed, and every link signed with it forged


class Links:
    def __init__(self, secret: str, base_url: str):
        self.secret = secret
        self.base_url = base_url.rstrip("/")

    def _serializer(self, purpose: str) -> URLSafeTimedSerializer:
        return URLSafeTimedSerializer(self.secret, salt=f"palazzo:{purpose}")

    def sign(self, purpose: str, payload: Any) -> str:
        return self._serializer(purpose).dumps(payload)

    def open(self, purpose: str, signed: str, max_age: int) -> Any:
        """The payload of a link we signed for `purpose`; 403 when forged, altered or expired."""
        try:
            return self._serializer(purpose).loads(signed, max_age=max_age)
        except SignatureExpired:
            raise Problem("link_expired", "this link has expired; ask for a new one") from None
        except BadSignature:
            raise Problem("bad_link", "this is not a link we sent") from None

    def digest(self, purpose: str, text: str, size: int = 16) -> bytes:
        """A keyed digest of `text` for `purpose`, `size` bytes: a short signature where a signed token
        does not fit (a reply address's local part holds at most 64 characters)."""
        return hmac.new(self.secret.encode(), f"palazzo:{purpose}:{text}".encode(), hashlib.sha256).digest()[:size]

    def url(self, path: str, **query: str) -> str:
        return f"{self.base_url}{path}" + (f"?{urlencode(query)}" if query else "")

"""The browser's session: a signed cookie holding a random id, which Redis maps to what its holder proved.

Only web pages read this cookie. The API takes bearer tokens alone (callers.identify never looks at
a cookie), so a page's session can never act through the API, and a forged request from another
site gets nothing there. What a session holds (its grants):
- `email`: the hash of an address, proved by opening a sign-in link mailed there: every seat of it;
- `seats`: [game, seat, key] for one seat, from a seat link (mailed, or passed on by the host); the
  key is the seat's address hash or token id, so a seat handed to someone else drops out at once;
- `hosts`: [game, host token id] for games created in this browser.

Every form carries a CSRF token, an HMAC of the session id under the server's secret; a POST
without it changes nothing. A sign-in starts a new id (no fixation) that keeps the old grants.

A session ends after `PALAZZO_SESSION_IDLE_DAYS` unused (`service.sign_ins`: each use slides its end,
and the cookie is sent again when it does); an ended one shows the sign-in page, saying why. One
signed in by address is listed under it, so its owner can end it from any other browser.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import Any

from flask import Response, g, request
from itsdangerous import BadSignature, Signer

from service import sign_ins, web
from service.problems import Problem
from service.store import dumps, loads

COOKIE = "palazzo_session"
PURPOSE = "palazzo:web-session"


def _key(sid: str) -> str:
    """Redis holds a session under a digest of its id: reading the keys gives no cookie away."""
    return sign_ins.session_key(sign_ins.session_digest(sid))


def _member(sid: str) -> str:
    return f"s:{sign_ins.session_digest(sid)}"


def _idle() -> sign_ins.Idle:
    return web.config().session_idle


def origin() -> str:
    """Where a sign-in came from, for its owner's list: the client's address and program."""
    return sign_ins.origin(request.remote_addr, request.headers.get("User-Agent"))


@dataclass
class Visitor:
    """Whoever holds this browser's cookie, and what he has proved."""

    sid: str
    email: str | None = None
    seats: list[list[Any]] = field(default_factory=list)
    hosts: list[list[str]] = field(default_factory=list)
    flash: list[str] = field(default_factory=list)
    new_cookie: bool = False
    expired: bool = False  # its cookie named a session that went unused too long
    stamps: dict[str, Any] = field(default_factory=dict)  # created, used, from (service.sign_ins)
    stored: str | None = None  # the record as read (or last written), so that a write never undoes another's

    @property
    def signed_in(self) -> bool:
        return bool(self.email or self.seats or self.hosts)

    def record(self) -> dict[str, Any]:
        return {"email": self.email, "seats": self.seats, "hosts": self.hosts, "flash": self.flash, **self.stamps}


def _signer() -> Signer:
    return Signer(web.links().secret, salt=PURPOSE)


def current() -> Visitor:
    """The visitor of this request, read once: a fresh anonymous one when the cookie is missing or forged."""
    visitor = g.get("visitor")
    if visitor is not None:
        return visitor
    visitor = _read()
    g.visitor = visitor
    return visitor


def _read() -> Visitor:
    raw = request.cookies.get(COOKIE, "")[:200]
    try:
        sid = _signer().unsign(raw).decode() if raw else None
    except BadSignature:
        sid = None
    if not sid:
        return Visitor(secrets.token_urlsafe(32), new_cookie=True)
    stored = web.store().redis.get(_key(sid))
    if stored is None:
        return Visitor(sid)
    record, idle = loads(stored), _idle()
    if idle.expired(record, sign_ins.now()):
        web.store().redis.delete(_key(sid))
        return Visitor(secrets.token_urlsafe(32), new_cookie=True, expired=True)
    touched = sign_ins.touch(web.store(), _member(sid), stored, record, idle)
    return Visitor(sid, record.get("email"), record.get("seats", []), record.get("hosts", []), record.get("flash", []),
                   new_cookie=touched is not record, stamps=_stamps(touched),
                   stored=dumps(touched) if touched is not record else stored)


def _stamps(record: dict[str, Any]) -> dict[str, Any]:
    return {name: record[name] for name in ("created", "used", "from") if name in record}


def csrf_token() -> str:
    return hmac.new(web.links().secret.encode(), f"csrf:{current().sid}".encode(), hashlib.sha256).hexdigest()


def check_csrf() -> None:
    """Refuse (403) a POST whose form does not carry this session's CSRF token."""
    sent = request.form.get("csrf", "")
    if not hmac.compare_digest(sent.encode(), csrf_token().encode()):
        raise Problem("forbidden", "this form is too old, came from elsewhere, or this browser keeps no "
                                   "cookies; nothing was done. Open the page again and retry.")


def sign_in(*, email: str | None = None, seat: list[Any] | None = None, host: list[str] | None = None) -> Visitor:
    """Add a grant and start a new session id holding everything the visitor had proved before."""
    old = current()
    visitor = Visitor(secrets.token_urlsafe(32), email or old.email,
                      _added(old.seats, seat), _added(old.hosts, host), old.flash, new_cookie=True,
                      stamps=_stamps(sign_ins.stamped({}, origin())))
    visitor.stored = dumps(visitor.record())
    with web.store().redis.pipeline(transaction=False) as pipe:
        pipe.delete(_key(old.sid))
        pipe.set(_key(visitor.sid), visitor.stored, ex=_idle().ttl)
        if visitor.email:
            sign_ins.enter(pipe, visitor.email, _member(visitor.sid))
        pipe.execute()
    g.visitor = visitor
    return visitor


def _added(grants: list[Any], grant: list[Any] | None) -> list[Any]:
    if grant is None or grant in grants:
        return grants
    return [*grants, grant]


def sign_out() -> None:
    web.store().redis.delete(_key(current().sid))
    g.visitor = Visitor(secrets.token_urlsafe(32), new_cookie=True)


def flash(message: str) -> None:
    """A line for the next page this visitor sees (kept with a signed-in session only)."""
    visitor = current()
    visitor.flash = [*visitor.flash, message][-5:]
    _save(visitor)


def take_flash() -> list[str]:
    visitor = current()
    shown, visitor.flash = visitor.flash, []
    if shown:
        _save(visitor)
    return shown


def _save(visitor: Visitor) -> None:
    """Keep the visitor's flash lines: only while his record is as read (a sign-out everywhere or a
    change of address meanwhile wins)."""
    if not visitor.signed_in:
        return
    record = visitor.record()
    if visitor.stored is not None and sign_ins.swap(web.store(), _key(visitor.sid), visitor.stored, record,
                                                    _idle().ttl):
        visitor.stored = dumps(record)


def set_cookie(response: Response) -> Response:
    """Send the cookie when the id is new: HttpOnly, SameSite=Lax, Secure when served over https."""
    visitor = g.get("visitor")
    if visitor is not None and visitor.new_cookie:
        secure = request.is_secure or web.links().base_url.startswith("https://")
        response.set_cookie(COOKIE, _signer().sign(visitor.sid).decode(), max_age=_idle().ttl, path="/",
                            httponly=True, samesite="Lax", secure=secure)
    return response

"""Signed webhooks: a player's (or a host's) URL that gets each notice of his games as a JSON POST.

A registration belongs to an address (its owner, by the address's hash) and covers one game or all
of his games; it names the notice kinds it wants and a body format: ``json`` (the notice whole),
``discord`` (``{"content": line}``) or ``slack`` (``{"text": line}``), whose line says nothing a
shared channel may not read. The JSON body is signed, Stripe's way:

    Palazzo-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the registration's secret>
    Palazzo-Delivery: <the notice's delivery id, the same on every retry>

A receiver checks the HMAC and that t is recent, and drops a delivery id it has seen. Each notice is
delivered once per registration (a claim per delivery id); a delivery that fails is retried with
backoff by its RQ job, and when its last try fails the registration is disabled and its owner told.

Keys: ``pz:webhook:<id>`` (the registration, JSON), ``pz:email:<hash>:webhooks`` (an owner's ids),
``pz:webhooks:{<game>}`` (the ids registered for one game), ``pz:webhook:<id>:sent:<delivery>`` (claims).
"""
from __future__ import annotations

import hashlib
import hmac
import http.client
import secrets
import socket
import ssl
import time
from dataclasses import asdict, dataclass, replace
from typing import Any

from service import deadlines, games
from service.channels import KINDS, Notice, notices, targets
from service.store import PREFIX, Store, dumps, email_key, game_key, loads

FORMATS = ("json", "discord", "slack")
MOST = 20  # registrations per owner
CLAIM_TTL = 90 * 24 * 3600  # a delivery id is remembered as long as a slow game may last
TIMEOUT = 10.0  # seconds a receiver may take to answer


@dataclass(frozen=True)
class Registration:
    id: str
    owner: str  # the owner's address hash
    url: str
    secret: str
    game: str | None = None  # None: every game the owner holds a seat in
    events: tuple[str, ...] = KINDS
    format: str = "json"
    enabled: bool = True
    failures: int = 0
    created: str = ""

    def shown(self) -> dict[str, Any]:
        """What the owner sees of it later: everything but the secret."""
        return {key: value for key, value in asdict(self).items() if key not in ("secret", "owner")} | {
            "events": list(self.events)}


def _key(hook_id: str) -> str:
    return f"{PREFIX}:webhook:{hook_id}"


def _game_key(game_id: str) -> str:
    return game_key(game_id, "webhooks")


def save(store: Store, hook: Registration) -> None:
    store.redis.set(_key(hook.id), dumps(asdict(hook) | {"events": list(hook.events)}))


def register(store: Store, owner: str, url: str, game: str | None, events: list[str], format: str, at: str
             ) -> Registration:
    """A new registration, with its signing secret (shown once, in the answer)."""
    hook = Registration(id=secrets.token_hex(8), owner=owner, url=url, secret="whsec_" + secrets.token_urlsafe(24),
                        game=game, events=tuple(events), format=format, created=at)
    save(store, hook)
    store.redis.sadd(email_key(owner, "webhooks"), hook.id)
    if game is not None:
        store.redis.sadd(_game_key(game), hook.id)
    return hook


def add(store: Store, owner: str, url: str, game: str | None, events: list[str], format: str,
        allow_private: bool) -> Registration:
    """Check and register, for the API and the settings page alike: raises targets.Refused (with the
    problem's code) for a game the owner neither plays nor hosts, one registration too many, or a
    target refused; nothing is stored then."""
    if game is not None and not notices.reader_of(games.load(store, game), owner)[0]:
        raise targets.Refused("not_a_seat", "you hold no seat at this game and do not host it")
    if len(of_owner(store, owner)) >= MOST:
        raise targets.Refused("too_many_webhooks", f"you have {MOST} webhooks: remove one first")
    targets.check(url, allow_private)
    return register(store, owner, url, game, list(dict.fromkeys(events)), format, deadlines.stamp(deadlines.now()))


def _read(raw: str | None) -> Registration | None:
    if raw is None:
        return None
    data = loads(raw)
    return Registration(**data | {"events": tuple(data["events"])})


def get(store: Store, hook_id: str) -> Registration | None:
    return _read(store.redis.get(_key(hook_id)))


def _many(store: Store, ids: list[str]) -> list[Registration]:
    """The registrations of `ids` still stored, in one round trip (their keys lie in many cluster slots)."""
    with store.redis.pipeline(transaction=False) as pipe:
        for hook_id in ids:
            pipe.get(_key(hook_id))
        return [hook for hook in map(_read, pipe.execute()) if hook is not None]


def of_owner(store: Store, owner: str) -> list[Registration]:
    return sorted(_many(store, sorted(store.redis.smembers(email_key(owner, "webhooks")))), key=lambda hook: hook.created)


def for_game(store: Store, game_id: str, owners: list[str]) -> list[Registration]:
    """The enabled registrations that cover the game: its own, and every-game ones of `owners`. It runs
    after every commit of a game with an address, so a game nobody hooked costs one round trip."""
    with store.redis.pipeline(transaction=False) as pipe:
        pipe.smembers(_game_key(game_id))
        for owner in owners:
            pipe.smembers(email_key(owner, "webhooks"))
        ids = sorted(set().union(*pipe.execute()))
    found = _many(store, ids) if ids else []
    return [hook for hook in found if hook.enabled and hook.game in (None, game_id)]


def remove(store: Store, hook: Registration) -> None:
    store.redis.delete(_key(hook.id))
    store.redis.srem(email_key(hook.owner, "webhooks"), hook.id)
    if hook.game is not None:
        store.redis.srem(_game_key(hook.game), hook.id)


def set_enabled(store: Store, hook: Registration, enabled: bool) -> Registration:
    changed = replace(hook, enabled=enabled, failures=0 if enabled else hook.failures)
    save(store, changed)
    return changed


def claim(store: Store, hook: Registration, delivery: str) -> bool:
    """Whether this delivery id is new for the registration (then it is claimed, once)."""
    return bool(store.redis.set(f"{_key(hook.id)}:sent:{delivery}", 1, nx=True, ex=CLAIM_TTL))


def delivery_id(hook: Registration, notice: Notice) -> str:
    return hashlib.sha256(f"{hook.id}:{notice.game}:{notice.key}".encode()).hexdigest()[:24]


def body(hook: Registration, notice: Notice, delivery: str, links: dict[str, str]) -> bytes:
    """The POST's body in the registration's format."""
    if hook.format == "discord":
        return dumps({"content": notice.text}).encode()
    if hook.format == "slack":
        return dumps({"text": notice.text}).encode()
    return dumps({"id": delivery, "event": notice.kind, "game": notice.game, "seat": notice.seat, "at": notice.at,
                  "text": notice.text, "data": notice.data, "links": links}).encode()


def signature(secret: str, payload: bytes, at: int | None = None) -> str:
    """The Palazzo-Signature header's value for `payload`, signed at unix time `at` (now)."""
    stamp = int(time.time()) if at is None else at
    digest = hmac.new(secret.encode(), f"{stamp}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={stamp},v1={digest}"


class DeliveryFailed(RuntimeError):
    """The receiver did not take the delivery (not a 2xx, or no answer); the job tries again."""


def _connection(target: targets.Target) -> http.client.HTTPConnection:
    """A connection to the checked address only; TLS still checks the certificate against the URL's name."""
    if target.scheme == "https":
        made: http.client.HTTPConnection = http.client.HTTPSConnection(
            target.host, target.port, timeout=TIMEOUT, context=ssl.create_default_context())
    else:
        made = http.client.HTTPConnection(target.host, target.port, timeout=TIMEOUT)
    made._create_connection = lambda _, timeout, source: socket.create_connection(  # type: ignore[attr-defined]
        (target.address, target.port), timeout, source)
    return made


def post(hook: Registration, target: targets.Target, payload: bytes, delivery: str) -> int:
    """POST one delivery to the checked `target`; its status when 2xx, else DeliveryFailed (the message
    holds no body). A 3xx is an answer, not a new target: it could lead anywhere, so it is a failure."""
    connection = _connection(target)
    try:
        connection.request("POST", target.path, body=payload, headers={
            "Content-Type": "application/json", "User-Agent": "Palazzo-Webhooks/1",
            "Palazzo-Signature": signature(hook.secret, payload), "Palazzo-Delivery": delivery})
        status = connection.getresponse().status
    except (OSError, http.client.HTTPException) as error:
        raise DeliveryFailed(f"no answer from the webhook: {type(error).__name__}") from None
    finally:
        connection.close()
    if not 200 <= status < 300:
        raise DeliveryFailed(f"the webhook answered {status}")
    return status


def failed(store: Store, hook_id: str, last: bool) -> Registration | None:
    """Count a failed try; after the last try of a delivery the registration is disabled (returned
    then, so the caller tells its owner), else None."""
    hook = get(store, hook_id)
    if hook is None:
        return None
    changed = replace(hook, failures=hook.failures + 1, enabled=hook.enabled and not last)
    save(store, changed)
    return changed if hook.enabled and not changed.enabled else None


def succeeded(store: Store, hook_id: str) -> None:
    hook = get(store, hook_id)
    if hook is not None and hook.failures:
        save(store, replace(hook, failures=0))

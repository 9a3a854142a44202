"""What every resource needs: the store, the caller, his seat at a game, and the game as he sees it."""
from __future__ import annotations

import hashlib
import re
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Callable

from flask import Response, current_app, g, json, request
from flask_smorest import Blueprint

from service import games, preferences, tokens, vacation
from service.bodies import Parser
from service.callers import Caller
from service.links import Links
from service.inbound import inbox
from service.mail import undelivered
from service.problems import CODES, PROBLEM_TYPE, RULES_STATUS, Problem
from service.schemas import ProblemSchema
from service.store import Store

if TYPE_CHECKING:  # the configuration builds the store, whose followups reach the resources' modules
    from service.config import Config

ANYONE = [{}, {"token": []}]  # served to anonymous callers and to token holders alike
TOKEN = [{"token": []}]  # refused without a token (401 token_required)
# What If-Match takes: the version, or an ETag we made ("7.ab12", weak or not), with the coding that
# compression adds to a compressed answer's tag ("7.ab12:gzip"); the spec publishes the same pattern.
VERSION_FORM = r'(W/)?"?([0-9]{1,15})(\.[0-9a-f]{1,16})?(:[a-z]+)?"?'
VERSION_PATTERN = f"^{VERSION_FORM}$"
IF_MATCH = {"in": "header", "name": "If-Match", "required": False,
            "schema": {"type": "string", "pattern": VERSION_PATTERN, "example": '"7"'},
            "description": "The game version the move was made against (the ETag of the game, or just the "
                           "number). Either this or the body's `version` is required: 428 without both."}
IF_NONE_MATCH = {"in": "header", "name": "If-None-Match", "required": False, "schema": {"type": "string"},
                 "description": "The ETag you hold: 304 with no body when nothing you may see has changed."}
IDEMPOTENCY_KEY = {"in": "header", "name": "Idempotency-Key", "required": False,
                   "schema": {"type": "string", "minLength": 1, "maxLength": 200},
                   "description": "A retry with the same key returns the first response and moves nothing."}
ETAG = {"ETag": {"description": "What the caller saw: the game version, a dot, and a digest of the answer",
                 "schema": {"type": "string"}}}
RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer"}}}
EVERYWHERE = ("bad_token", "token_expired", "rate_limited", "store_unavailable")
WITH_BODY = ("bad_json", "too_deep", "too_large", "unsupported_media_type", "invalid_request")


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.capitalize() for part in rest)


def documented(blp: Blueprint, *codes: str, body: bool = False, parameters: list[dict] | None = None,
               secured: bool = True) -> Callable:
    """Publish a route's operationId (its function's name), security, extra header parameters and
    every problem it can answer, listed by code under each status (codes from problems.CODES, and
    "rules" for the game's own 422 codes).

    A route listing `token_required` refuses an anonymous caller before its body is even read, and
    its security says so: the token alone. Other routes serve anonymous callers too; a route that is
    not `secured` (signing in) asks for no token at all.
    """
    everything = [*codes, *(WITH_BODY if body else ()), *EVERYWHERE]
    by_status: dict[int, list[str]] = {}
    for code in dict.fromkeys(everything):
        status = RULES_STATUS if code == "rules" else CODES[code][0]
        by_status.setdefault(status, []).append(code)

    def decorate(view: Callable) -> Callable:
        # alt_response wraps the view once per status, and each wrapper costs time on every call:
        # the statuses are documented on a stand-in and only the documentation is kept.
        docs: Callable = lambda: None  # noqa: E731
        docs._apidoc = getattr(view, "_apidoc", {})
        for status, listed in sorted(by_status.items()):
            text = "; ".join("a code of the rules (see the game's error codes)" if code == "rules"
                             else f"`{code}`: {CODES[code][1]}" for code in listed)
            docs = blp.alt_response(status, schema=ProblemSchema, content_type=PROBLEM_TYPE,
                                    description=f"{HTTPStatus(status).phrase}. code: {text}",
                                    headers=RETRY_AFTER if status in (429, 503) else None)(docs)
        view._apidoc = docs._apidoc
        if parameters:
            # beside the query parameters flask-smorest makes of the route's arguments (blp.doc's would replace them)
            view._apidoc.setdefault("arguments", {}).setdefault("parameters", []).extend(parameters)
        view.token_required = "token_required" in codes
        security = (TOKEN if view.token_required else ANYONE) if secured else []
        return blp.doc(operationId=_camel(view.__name__), security=security)(view)
    return decorate


class PalazzoBlueprint(Blueprint):
    """flask-smorest's Blueprint with Palazzo's body checks (size, depth, media type)."""

    ARGUMENTS_PARSER = Parser()


def blueprint(name: str, description: str) -> Blueprint:
    return PalazzoBlueprint(name, name, url_prefix="/api/v1", description=description)


def config() -> Config:
    return current_app.extensions["palazzo.config"]


def store() -> Store:
    return current_app.extensions["palazzo.store"]


def links() -> Links:
    return current_app.extensions["palazzo.links"]


def uncounted() -> Callable[[Any], None] | None:
    """The request's rate count, for a commit to queue in its own round trip.

    Once queued the request is counted and the way out does not count it again; a move refused before
    any commit is still counted on the way out.
    """
    window = g.get("uncounted")
    if window is None:
        return None

    def count(pipe: Any) -> None:
        window.count(pipe)
        g.pop("uncounted", None)
    return count


def caller() -> Caller:
    return g.caller


def load_game(game_id: str) -> games.Table:
    """The game named in the path: the copy read with the caller's token (once), else a fresh read.

    Only the first load of a request takes the prefetched copy; a view that loads again (to retry
    after a stale commit, say) reads Redis anew.
    """
    prefetched = g.pop("prefetched_game", None)
    head = prefetched[1] if prefetched is not None and prefetched[0] == game_id else None
    return games.load(store(), game_id, head)


def viewer(table: games.Table, who: Caller) -> tuple[str, int | None]:
    """The caller's role at this game and his seat: seat tokens and player tokens act for a seat."""
    if who.kind == "seat":
        if who.game != table.id:
            raise Problem("wrong_game", "this seat token belongs to another game")
        _still_named(who, table.meta["seats"][who.seat].get("token"))
        return "seat", who.seat
    if who.kind == "host":
        if who.game != table.id:
            raise Problem("wrong_game", "this host token belongs to another game")
        _still_named(who, table.meta.get("host"))
        return "host", None
    if who.kind == "player":
        seat = table.seat_of_email(who.email)
        if seat is not None:
            return "seat", seat
        return ("host", None) if who.email and games.host_address_of(table) == who.email else ("spectator", None)
    return "spectator", None


def as_host(table: games.Table) -> Caller:
    """The game's host, for answers built for him without his token in hand (just after creating it,
    or on a page whose session proved it)."""
    return Caller("host", f"t:{table.meta['host']}", table.id)


def _still_named(who: Caller, token_id: str | None) -> None:
    """The game names the token ids that act for it: a token a crash left behind after its seat was
    given away (tokens live outside the game's keys, so they are deleted in a later step) acts for nothing."""
    if who.identity != f"t:{token_id}":
        raise Problem("bad_token", "this token is unknown or revoked")


def seat_of(table: games.Table, who: Caller) -> int:
    """The seat the caller acts for; 401 without a token, 403 when he holds no seat here."""
    if who.kind == "anonymous":
        raise Problem("token_required", "send a seat token as 'Authorization: Bearer <token>'")
    role, seat = viewer(table, who)
    if seat is None:
        raise Problem("not_a_seat", "only a player seated at this game may do this")
    return seat


def host_of(table: games.Table, who: Caller) -> None:
    """Refuse anyone but the game's host: his host token, or a player token of the address he proved."""
    if who.kind == "anonymous":
        raise Problem("token_required", "send the host token as 'Authorization: Bearer <token>'")
    if who.kind == "host" and who.game == table.id:
        _still_named(who, table.meta.get("host"))
        return
    if who.kind == "player" and who.email and games.host_address_of(table) == who.email:
        return
    raise Problem("host_only", "only this game's host may do this")


def game_out(table: games.Table, who: Caller) -> dict[str, Any]:
    """The game as the caller may see it: the engine's redacted view plus what the service adds."""
    role, seat = viewer(table, who)
    seats = []
    for number, entry in enumerate(table.meta["seats"]):
        out = {"seat": number, "name": entry["name"], "bot": entry.get("bot"), "missed": entry.get("missed", 0),
               "standin": entry.get("standin"), "open": games.seat_is_open(entry), "left": entry.get("left"),
               "away": entry.get("away"), "vacation_left": vacation.hours_left(table.meta, number)}
        if role == "host" or (role == "seat" and seat == number):
            out["email"] = entry.get("email")
        seats.append(out)
    host_only: dict[str, Any] = {}
    if role == "host":
        _mark_bounced(seats)
        host_only["undelivered"] = undelivered.listed(store().redis, table.id)
        # what became of mailed replies, without their text or reasons: those may name a seat's secrets
        host_only["replies"] = [{k: entry.get(k) for k in ("at", "seat", "status")}
                                for entry in inbox.noted(store().redis, table.id)]
    return {
        "id": table.id, "game": table.meta["game"], "title": games.title_of(table), "status": table.status,
        "version": table.version,
        "created_at": table.meta["created_at"], "options": table.meta["options"],
        "deadlines": table.meta["deadlines"], "seats": seats, "pending": table.pending,
        "view": table.game.view(table.state, seat), "result": table.game.result(table.state),
        "you": {"role": role, "seat": seat}, "paused_until": table.meta.get("paused_until"),
        "pauses_left": games.MAX_PAUSES - table.meta["pauses_used"], "grace_hours": table.meta.get("grace_hours"),
        "stand_in": games.stand_in_of(table.meta),
        "public": bool(table.meta.get("public")), "start_when_full": bool(table.meta.get("start_when_full")),
        "vacation_days": table.meta.get("vacation_days", vacation.DEFAULT_DAYS),
        "vacations": table.meta.get("vacations", []),
        **host_only,
    }


def _mark_bounced(seats: list[dict[str, Any]]) -> None:
    """The host's seat list says why mail to an address stopped: one round trip for all seats."""
    mailed = [out for out in seats if out.get("email")]
    settings = preferences.read_many(store(), [tokens.email_hash(out["email"]) for out in mailed])
    for out, found in zip(mailed, settings):
        out["bounced"] = found["bounced"]


def expected_version(body_version: int | None) -> int:
    """The version the caller saw: the body's `version` or If-Match ("7", W/"7", 7 or an ETag "7.ab12:gzip")."""
    header = request.headers.get("If-Match")
    if header is not None:
        match = re.fullmatch(VERSION_FORM, header.strip())
        if match is None:
            raise Problem("bad_if_match", "If-Match must be the game version, e.g. \"7\", or its ETag")
        version = int(match[2])
        if body_version is not None and version != body_version:
            raise Problem("version_mismatch", "If-Match and version disagree")
        return version
    if body_version is None:
        raise Problem("version_required", "name the version you saw: If-Match or a 'version' field")
    return body_version


def validator(tag: str) -> str:
    """An ETag as a client sends it back, as we made it: no W/, and no ":gzip" (or other coding) that
    compression added to a compressed answer's tag."""
    tag = tag.strip().removeprefix("W/")
    return re.sub(r':[a-z]+"$', '"', tag)


def etag(version: int, answer: Any = None) -> dict[str, str]:
    """The ETag of an answer: the game version, and a digest of what this caller was shown.

    The digest makes it change with anything private to the caller (his standing orders) that
    leaves the public version alone; clients may send it back as If-Match.
    """
    if answer is None:
        return {"ETag": f'"{version}"'}
    digest = hashlib.sha256(json.dumps(answer).encode()).hexdigest()[:12]
    return {"ETag": f'"{version}.{digest}"'}


def conditional(answer: dict[str, Any], version: int) -> Response | tuple[dict[str, Any], dict[str, str]]:
    """The answer with its ETag, or 304 Not Modified when the caller holds that ETag already.

    `answer` must be what the route's response schema dumps it to.
    """
    headers = etag(version, answer)
    held = [validator(tag) for tag in request.headers.get("If-None-Match", "").split(",")]
    if headers["ETag"] in held or "*" in held:
        return Response(status=304, headers=headers)
    return answer, headers

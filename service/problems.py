"""Errors as RFC 9457 problem documents, so every client parses one shape with a stable `code`.

`CODES` is the catalog: every code the service answers with, its HTTP status and what it means.
The OpenAPI document lists them per operation, and a test holds every raise in the code to it.
The rules' own codes (422) come from the game (`Game.error_codes`).
"""
from __future__ import annotations

from http import HTTPStatus
from typing import Any

from flask import Response, json

PROBLEM_TYPE = "application/problem+json"

CODES: dict[str, tuple[int, str]] = {
    "bad_request": (400, "the request could not be read"),
    "bad_json": (400, "the body is not valid JSON"),
    "too_deep": (400, "the JSON body is nested more deeply than any request needs"),
    "unauthorized": (401, "authentication is needed"),
    "bad_token": (401, "the bearer token is malformed, unknown or revoked"),
    "token_expired": (401, "the player token went unused longer than the idle time and has ended; sign in again"),
    "token_required": (401, "this needs a token: Authorization: Bearer <token>"),
    "forbidden": (403, "not allowed"),
    "wrong_game": (403, "the seat or host token belongs to another game"),
    "not_a_seat": (403, "the caller holds no seat at this game"),
    "host_only": (403, "only the game's host may do this"),
    "bad_link": (403, "not a link we sent"),
    "link_expired": (403, "the link has expired; ask for a new one"),
    "link_used": (403, "the link was used already; ask for a new one"),
    "bad_join_link": (403, "not a join link we made, or one made for another game"),
    "join_link_expired": (403, "the join link is too old; the host's page and the lobby show the current one"),
    "address_unproved": (403, "the sign-in did not tell us the address to mail; sign in again by a mailed link"),
    "not_found": (404, "no such resource"),
    "game_not_found": (404, "no such game"),
    "seat_not_found": (404, "no such seat"),
    "token_not_found": (404, "no token or session of the caller's by that id"),
    "message_not_found": (404, "no such message among those the caller may see"),
    "method_not_allowed": (405, "the resource does not take this method (see Allow)"),
    "conflict": (409, "the request conflicts with the resource's state"),
    "stale_version": (409, "the caller's pending decision changed since the version he saw; see current_version"),
    "busy": (409, "the game kept changing under the request; try again"),
    "pause_limit": (409, "the game has used all its pauses"),
    "game_open": (409, "the game has not started"),
    "game_running": (409, "the game is running (not paused)"),
    "game_paused": (409, "the game is paused"),
    "game_finished": (409, "the game is over"),
    "game_cancelled": (409, "the game was cancelled"),
    "seats_open": (409, "a seat is open: a game starts once every seat is taken (or filled with a bot)"),
    "game_full": (409, "no seat of the game is open"),
    "game_over": (409, "the game is over or cancelled: nobody can join it"),
    "already_seated": (409, "the address holds a seat at this game already"),
    "seat_not_open": (409, "that seat is taken; choose an open one"),
    "address_taken": (409, "another player plays from that address"),
    "name_taken": (409, "another seat of the game has that name"),
    "join_link_revoked": (410, "the host turned this join link off or made a new one"),
    "seat_open": (409, "the seat is open: nobody holds it to leave it or be removed from it"),
    "seat_is_bot": (409, "a bot plays the seat: hand it to a player instead"),
    "away_already": (409, "the player is away already: he comes back before he takes other time off"),
    "not_away": (409, "the player is not away: there is no vacation to end"),
    "talk_full": (409, "the game keeps no more messages (10,000 at most)"),
    "too_large": (413, "the body is larger than the limit (64 KB)"),
    "mail_too_large": (413, "the inbound post is larger than any reply needs (1 MB); attachments are never read"),
    "uri_too_long": (414, "the request line is too long"),
    "unsupported_media_type": (415, "send the body as application/json"),
    "invalid_request": (422, "the body or query does not match the schema; see errors"),
    "invalid_move": (422, "the move does not match its type's schema; see errors"),
    "bad_if_match": (422, "If-Match is not a game version"),
    "version_mismatch": (422, "If-Match and the body's version disagree"),
    "bad_idempotency_key": (422, "an Idempotency-Key has 1 to 200 characters"),
    "idempotency_key_reused": (422, "the Idempotency-Key was used for another move"),
    "bad_seats": (422, "the game does not take this many seats"),
    "confirm_required": (422, "leaving a game, or deleting one's data, needs {\"confirm\": true}: nothing was changed"),
    "reason_required": (422, "removing a player needs a reason, which the table reads: nothing was changed"),
    "address_unchanged": (422, "that is the address you play from already"),
    "duplicate_email": (422, "each address may hold one seat of a game"),
    "bad_deadlines": (422, "a deadline names no decision kind or deadline class of the game"),
    "vacation_hours_or_days": (422, "a vacation is asked for in hours or in days: one of them, not both"),
    "vacation_too_short": (422, "a vacation is a whole number of hours or days, at least one hour"),
    "vacation_too_long": (422, "the vacation asked for is longer than what is left of the player's bank"),
    "message_empty": (422, "a message needs some text"),
    "message_too_long": (422, "a message holds at most 2,000 characters"),
    "message_control_character": (422, "a message holds no control characters but newlines"),
    "bad_recipient": (422, "a private message goes to another seat that a player holds"),
    "bad_reminders": (422, ("a reminder step is 1% to 99% of the time, or a time before the deadline (30m, 1h, 2d); "
                            "at most 5, none twice: nothing was changed")),
    "bad_quiet_hours": (422, ("quiet hours are from and to as HH:MM, not the same time (that would be the whole day): "
                              "nothing was changed")),
    "bad_inbound": (422, "the inbound post is not a mail as Inbound Parse sends it"),
    "version_required": (428, "name the version you saw: If-Match or a 'version' field"),
    "rate_limited": (429, "too many requests; wait Retry-After seconds"),
    "headers_too_large": (431, "the request's headers are too large"),
    "internal_error": (500, "a fault on our side"),
    "store_unavailable": (503, "the game store is unreachable; retry after Retry-After seconds"),
    "webhook_not_found": (404, "no such webhook among the caller's"),
    "bad_webhook_url": (422, "a webhook URL must be an absolute https URL, without a user name or password"),
    "webhook_target_refused": (422, "the webhook URL leads to a loopback, private or link-local address"),
    "webhook_unreachable": (422, "the webhook URL's host has no address"),
    "too_many_webhooks": (422, "the caller has as many webhooks as one may have"),
    "metrics_token_required": (401, "the metrics answer only to Authorization: Bearer <PALAZZO_METRICS_TOKEN>"),
    "game_not_over": (404, "the game is not finished: its archive page exists once it is"),
}
RULES_STATUS = 422  # every code of the rules (IllegalMove) is answered with this status


class Problem(Exception):
    """Raise anywhere in a request to answer with a problem document; `code` is from CODES."""

    def __init__(self, code: str, detail: str, *, headers: dict[str, str] | None = None,
                 status: int | None = None, **extra: Any):
        super().__init__(detail)
        self.status = status or CODES[code][0]
        self.code = code
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra

    @classmethod
    def of_rules(cls, error: Any) -> "Problem":
        """The rules refused a move, option or setup: 422 with the rules' own code."""
        return cls(error.code, error.message, status=RULES_STATUS)


def problem_response(status: int, code: str, detail: str, headers: dict[str, str] | None = None,
                     **extra: Any) -> Response:
    """The one place a problem document is rendered."""
    body = {
        "type": f"https://palazzo.invalid/problems/{code}",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "code": code,
        "detail": detail,
        **extra,
    }
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM_TYPE)
    response.problem_code = code  # counted by code after the request (service.app), not parsed back
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def render(problem: Problem) -> Response:
    return problem_response(problem.status, problem.code, problem.detail, problem.headers, **problem.extra)

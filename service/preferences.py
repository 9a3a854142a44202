"""A player's mail preferences, kept under his address: time zone, which mails he wants, and, per
game, how its table talk reaches him by mail.

`mail` is about the game's own mails (decisions, reminders, round results, scores) and stops all
mail at `none`; table talk follows its own choice per game (`TALK_CHOICES`, one by one unless he
chose otherwise), which `mail: none` (unsubscribing from everything) and a bounce stop too.
A game taken as a daily digest remembers the last message a digest listed (`digested`), set to
the game's latest message when the player chooses the digest, so the first one lists only what
came after.

The mail's rhythm (`rhythm`): each decision mailed at once, or one daily digest at `digest_hour` in his
zone; reminders before a deadline on his own schedule (`reminders`: steps such as "50%" of the time
or "1h" before); his quiet hours (`quiet`, copied into his seats by `service.time_off`); and per game
(`games`) a rhythm, reminders or mail of its own, `mail: none` there being unsubscribed from that game.
`effective` merges them for one game; `check` validates a change whole, before anything is written.
"""
from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from typing import Any

from service import zones
from service.store import Store, dumps, email_key

MAIL_CHOICES = ("all", "decisions", "none")  # decisions: only his decisions and reminders
TALK_CHOICES = ("each", "digest", "none")  # a game's messages: one by one, in a daily digest, or never
TALK_DEFAULT = "each"
RHYTHM_CHOICES = ("each", "digest")  # each decision mailed at once, or one mail a day at his digest hour
DIGEST_HOUR = 18
REMINDERS = ["80%"]
MOST_REMINDERS = 5
GAME_KEYS = ("rhythm", "reminders", "mail")  # what a game's own settings may override
DEFAULTS: dict[str, Any] = {"time_zone": "UTC", "mail": "all", "bounced": None,  # bounced: why mail to it stopped
                            "rhythm": "each", "digest_hour": DIGEST_HOUR, "reminders": REMINDERS, "quiet": None,
                            "games": {}}
STEP_RULE = ('a reminder step is a share of the time given, from "1%" to "99%", or a time before the deadline '
             'in minutes, hours or days ("30m", "1h", "2d"); at most 5 steps, none twice')
QUIET_RULE = ('quiet hours are {"from": "HH:MM", "to": "HH:MM"} (24-hour clock), or null for none; from and to '
              'differ, since the same time would cover the whole day')
_SHARE = re.compile(r"([1-9][0-9]?)%")
_BEFORE = re.compile(r"([1-9][0-9]{0,3})([mhd])")
_CLOCK = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")
_UNITS = {"m": 60, "h": 3600, "d": 86400}
LONGEST_BEFORE = 30 * 86400  # no deadline is longer than 30 days


class Refused(ValueError):
    """A setting that cannot be kept: `code` (from service.problems), the `field` and why, in words."""

    def __init__(self, code: str, field: str, detail: str):
        super().__init__(detail)
        self.code, self.field, self.detail = code, field, detail


def step(text: str) -> tuple[str, float] | None:
    """A reminder step read: ("share", 0.5) for "50%", ("before", 3600) for "1h"; None if it is neither."""
    share = _SHARE.fullmatch(text)
    if share:
        return "share", int(share.group(1)) / 100
    before = _BEFORE.fullmatch(text)
    if before and int(before.group(1)) * _UNITS[before.group(2)] <= LONGEST_BEFORE:
        return "before", int(before.group(1)) * _UNITS[before.group(2)]
    return None


def step_time(text: str, since: datetime, deadline: datetime) -> datetime | None:
    """When step `text` of a decision pending since `since` and due at `deadline` falls; None when it
    falls before the decision was pending (an hour before a deadline half an hour away)."""
    read = step(text)
    if read is None:
        return None
    kind, amount = read
    when = since + (deadline - since) * amount if kind == "share" else deadline - timedelta(seconds=amount)
    return when if since < when < deadline else None


def reminders_fault(steps: Any) -> str | None:
    """Why a reminder schedule cannot be kept, or None."""
    if not isinstance(steps, list) or not all(isinstance(text, str) for text in steps):
        return "reminders are a list of steps"
    if len(steps) > MOST_REMINDERS:
        return f"at most {MOST_REMINDERS} reminder steps"
    for text in steps:
        if step(text) is None:
            return f"{text!r} is no reminder step: {STEP_RULE}"
    if len(set(steps)) != len(steps) or len({step(text) for text in steps}) != len(steps):
        return "a reminder step is listed twice"
    return None


def quiet_fault(quiet: Any) -> str | None:
    """Why quiet hours cannot be kept, or None."""
    if quiet is None:
        return None
    if not isinstance(quiet, dict) or set(quiet) != {"from", "to"} or not all(
            isinstance(quiet[end], str) and _CLOCK.fullmatch(quiet[end]) for end in ("from", "to")):
        return QUIET_RULE
    if quiet["from"] == quiet["to"]:
        return f"quiet hours from {quiet['from']} to {quiet['to']} would cover the whole day"
    return None


def _choice(field: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise Refused("invalid_request", field, f"{field} is one of {', '.join(choices)}")


def _check_game(game_id: str, override: Any) -> dict[str, Any]:
    if not isinstance(override, dict) or set(override) - set(GAME_KEYS):
        raise Refused("invalid_request", f"games.{game_id}", f"a game's settings are some of {', '.join(GAME_KEYS)}")
    if "rhythm" in override:
        _choice(f"games.{game_id}.rhythm", override["rhythm"], RHYTHM_CHOICES)
    if "mail" in override:
        _choice(f"games.{game_id}.mail", override["mail"], MAIL_CHOICES)
    if "reminders" in override and (fault := reminders_fault(override["reminders"])):
        raise Refused("bad_reminders", f"games.{game_id}.reminders", fault)
    return dict(override)


def check(changes: dict[str, Any], held: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
    """The changes, checked whole (raises Refused at the first fault, before anything is written).
    `games` may name only the games in `held` (where the address holds a seat)."""
    if "time_zone" in changes and not (isinstance(changes["time_zone"], str) and zones.known(changes["time_zone"])):
        raise Refused("invalid_request", "time_zone", "not a known time zone (IANA name, e.g. Europe/Rome)")
    if "mail" in changes:
        _choice("mail", changes["mail"], MAIL_CHOICES)
    if "rhythm" in changes:
        _choice("rhythm", changes["rhythm"], RHYTHM_CHOICES)
    if "digest_hour" in changes and (type(changes["digest_hour"]) is not int or not 0 <= changes["digest_hour"] < 24):
        raise Refused("invalid_request", "digest_hour", "the digest hour is a whole hour from 0 to 23")
    if "reminders" in changes and (fault := reminders_fault(changes["reminders"])):
        raise Refused("bad_reminders", "reminders", fault)
    if "quiet" in changes and (fault := quiet_fault(changes["quiet"])):
        raise Refused("bad_quiet_hours", "quiet", fault)
    overrides = changes.get("games", {})
    strangers = sorted(set(overrides) - set(held))
    if strangers:
        raise Refused("not_a_seat", "games",
                      f"you hold no seat at game {strangers[0]}, so its mail is not yours to set")
    return {**changes, **({"games": {game_id: _check_game(game_id, override)
                                     for game_id, override in overrides.items()}} if "games" in changes else {})}


def effective(settings: dict[str, Any], game_id: str) -> dict[str, Any]:
    """His settings as they hold for one game: the game's own rhythm, reminders and mail over his
    general ones. His general `mail: none` (unsubscribed from everything) holds for every game."""
    own = {key: value for key, value in settings.get("games", {}).get(game_id, {}).items() if key in GAME_KEYS}
    merged = {**DEFAULTS, **settings, **own}
    if settings.get("mail") == "none":
        merged["mail"] = "none"
    merged.pop("games")
    return merged


def unsubscribed(settings: dict[str, Any]) -> list[str]:
    """The games he stopped the mail of (a game's own `mail: none`)."""
    return sorted(game_id for game_id, own in settings.get("games", {}).items() if own.get("mail") == "none")


def _parse(raw: str | None) -> dict[str, Any]:
    return {**DEFAULTS, "reminders": list(REMINDERS), "games": {}, **(json.loads(raw) if raw else {})}


def read(store: Store, email_hash: str) -> dict[str, Any]:
    return _parse(store.redis.get(email_key(email_hash, "settings")))


def read_many(store: Store, email_hashes: list[str]) -> list[dict[str, Any]]:
    """Several addresses' settings in one round trip (a pipeline, not MGET: the keys lie in
    different cluster slots)."""
    if not email_hashes:
        return []
    with store.redis.pipeline(transaction=False) as pipe:
        for email_hash in email_hashes:
            pipe.get(email_key(email_hash, "settings"))
        return [_parse(raw) for raw in pipe.execute()]


def write(store: Store, email_hash: str, changes: dict[str, Any]) -> dict[str, Any]:
    """Keep checked `changes`; `games` names the games whose own settings change: each one given
    replaces that game's (an empty one drops them), the others keep theirs."""
    settings = read(store, email_hash)
    games = {**settings["games"], **changes.get("games", {})}
    settings = {**settings, **changes, "games": {game_id: own for game_id, own in games.items() if own}}
    store.redis.set(email_key(email_hash, "settings"), dumps(settings))
    return settings


def set_game(store: Store, email_hash: str, game_id: str, **own: Any) -> dict[str, Any]:
    """Change some of one game's own settings (a value None drops it, back to his general one)."""
    kept = {**read(store, email_hash)["games"].get(game_id, {}), **own}
    return write(store, email_hash, {"games": {game_id: {k: v for k, v in kept.items() if v is not None}}})


def talk_choices(store: Store, email_hash: str) -> dict[str, str]:
    """How each game's messages reach the address, for the games where it chose (others: TALK_DEFAULT)."""
    return store.redis.hgetall(email_key(email_hash, "talk"))


def talk_choice(store: Store, email_hash: str, game_id: str) -> str:
    return store.redis.hget(email_key(email_hash, "talk"), game_id) or TALK_DEFAULT


def choose_talk(store: Store, email_hash: str, game_id: str, choice: str, latest: int) -> None:
    """Set how the game's messages reach the address; a digest chosen now starts after the game's
    `latest` message (choosing it again keeps what the coming digest is to list)."""
    was = talk_choice(store, email_hash, game_id)
    with store.redis.pipeline(transaction=False) as pipe:
        pipe.hset(email_key(email_hash, "talk"), game_id, choice)
        if choice == "digest" and was != "digest":
            pipe.hset(email_key(email_hash, "digested"), game_id, latest)
        pipe.execute()


def digested(store: Store, email_hash: str) -> dict[str, int]:
    """The last message of each game a digest to the address listed."""
    return {game_id: int(seq) for game_id, seq in store.redis.hgetall(email_key(email_hash, "digested")).items()}


def mark_digested(store: Store, email_hash: str, marks: dict[str, int]) -> None:
    if marks:
        store.redis.hset(email_key(email_hash, "digested"), mapping=marks)

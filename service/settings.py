"""A player's settings as he sees and changes them, by the API or the settings page: his preferences
(`service.preferences`) with each game's talk choice, checked whole before anything is written.

A change of his quiet hours or time zone is carried into every seat he holds (`service.time_off`),
which moves those seats' pending deadlines out of the new quiet hours.
"""
from __future__ import annotations

from typing import Any

from service import games, messages, preferences, time_off
from service.store import Store

SHOWN = ("time_zone", "mail", "rhythm", "digest_hour", "reminders", "quiet", "games")


def shown(store: Store, email_hash: str) -> dict[str, Any]:
    """His settings as the API and the page show them (no bounce: that is ours, not his)."""
    kept = preferences.read(store, email_hash)
    return {**{key: kept[key] for key in SHOWN}, "talk": messages.mail_choices(store, email_hash)}


def change(store: Store, email_hash: str, changes: dict[str, Any]) -> dict[str, Any]:
    """Check the changes whole (raises `preferences.Refused`, nothing written), keep them, carry quiet
    hours and zone into his seats when they changed, and return his settings as shown."""
    changes = dict(changes)
    talk = changes.pop("talk", {})
    held = set(games.seats_held(store, email_hash)) if talk or changes.get("games") else set()
    strangers = sorted(set(talk) - held)
    if strangers:
        raise preferences.Refused("not_a_seat", "talk", f"you hold no seat at game {strangers[0]}, "
                                                        "so its talk is not yours to choose")
    checked = preferences.check(changes, held)
    before = preferences.read(store, email_hash)
    after = preferences.write(store, email_hash, checked)
    for game_id, choice in talk.items():
        messages.choose_mail(store, email_hash, game_id, choice)
    if (before["quiet"], before["time_zone"]) != (after["quiet"], after["time_zone"]):
        time_off.apply_quiet(store, email_hash)
    return shown(store, email_hash)

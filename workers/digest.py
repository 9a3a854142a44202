"""The daily digest: one mail a day per address, at the hour its player chose (`digest_hour`, in his
time zone), instead of a mail at once for what he takes as a digest.

It lists, per game he holds a seat at: the decision waiting for him where his rhythm for the game is
`digest` (with its one-click answers), the rounds finished since the last digest there (kept by
`defer_round` instead of their own mail), what a deadline played for him there since he last moved
(`notify.notice_of`, once per decision), and the messages since the last digest where he takes the
game's talk as a digest. Its timer (`service.timers`, on the game's clock) waits one per address:
set again, it stays (or moves to his new hour). Whatever sets something aside for the digest calls
`schedule`; the digest sets the next day's itself while a game still waits on him. Every part is
checked again when the mail leaves (`service.mail.seats.still_due`): a decision answered meanwhile is
left out, and a digest with nothing left is not sent.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from service import deadlines, games, messages, preferences, timers
from service import phrases
from service.mail import render, seats
from service.store import Store, email_key
from workers import context

JOB = "workers.digest.daily"


def _job_id(email_hash: str) -> str:
    return f"pz-digest-{email_hash}"


def next_at(now: datetime, time_zone: str, hour: int) -> datetime:
    """The next `hour` o'clock in the player's zone, after `now`."""
    local = now.astimezone(phrases.zone(time_zone))
    due = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    while due <= local:
        due = (due + timedelta(days=1)).replace(hour=hour)
    return due


def schedule(store: Store, email_hash: str, after: datetime | None = None) -> datetime:
    """Make sure the address's digest is coming, at its player's next digest hour (after `after`, by
    default now); a digest already due keeps its time, so that it still leaves today."""
    now = deadlines.now()
    waiting = timers.pending_at(store, JOB, email_hash, job_id=_job_id(email_hash))
    if waiting is not None and waiting <= now.timestamp():
        return datetime.fromtimestamp(waiting, now.tzinfo)
    wanted = preferences.read(store, email_hash)
    when = next_at(after or now, wanted["time_zone"], wanted["digest_hour"])
    timers.at(store, when, JOB, email_hash, job_id=_job_id(email_hash))
    return when


def defer_round(store: Store, email_hash: str, game_id: str, finished: int) -> None:
    """Keep a finished round for the address's next digest instead of its own mail."""
    store.redis.sadd(email_key(email_hash, "rounds"), f"{game_id}:{finished}")
    schedule(store, email_hash)


def daily(email_hash: str) -> int:
    """Mail the address its digest; returns how many parts it held (0: no mail)."""
    from workers import notify, talk  # noqa: I001 (both import this module: imported when first needed)
    store = context.store()
    wanted = preferences.read(store, email_hash)
    chosen = preferences.talk_choices(store, email_hash)
    marks = preferences.digested(store, email_hash)
    rounds_key = email_key(email_hash, "rounds")
    rounds = sorted(store.redis.smembers(rounds_key))
    links, domain = context.links(), context.config().mail.domain
    parts: list[render.Part] = []
    done: dict[str, int] = {}
    to = None
    waits = False
    for game_id, (seat, _) in sorted(games.seats_held(store, email_hash).items()):
        table = games.load(store, game_id)
        recipient = seats.recipient(store, table, seat)
        to = to or recipient
        if chosen.get(game_id) == "digest":
            found = messages.since(store, game_id, marks.get(game_id, messages.count(store, game_id)))
            if found:
                done[game_id] = found[-1]["seq"]
            if recipient is not None:
                parts += [talk.part_of(table, seat, recipient, seen, digest=True) for message in found
                          if (seen := messages.shown(message, messages.Reader(seat))) is not None
                          and seen["text"] is not None and message["by"] != seat and not seen["hidden"]]
        if recipient is None or preferences.effective(wanted, game_id)["rhythm"] != "digest":
            continue
        frame = seats.frame(table, domain)
        view = table.game.view(table.state, seat)
        decision = table.decision_of(seat) if table.status == games.RUNNING else None
        told = notify.notice_of(store, table, frame, seat, recipient, deadlines.now(),
                                with_decision=decision is not None and bool(decision.get("deadline_at")))
        parts += [told] if told is not None else []
        if decision is not None and decision.get("deadline_at"):
            parts.append(notify.decision_part_of(store, table, seat, decision, frame, recipient, deadlines.now()))
            waits = True
        finished = sorted(int(item.split(":")[1]) for item in rounds if item.split(":")[0] == game_id)
        if seats.recipient(store, table, seat, everyone=True) is not None:
            parts += [part for number in finished
                      if (part := render.round_part(view, frame, recipient, seats.links_of(links, table, seat),
                                                    number)) is not None]
    if parts and to is not None:
        store.followups.send_mail(store, render.digest(parts, to.email, domain))
    preferences.mark_digested(store, email_hash, done)
    if rounds:
        store.redis.srem(rounds_key, *rounds)
    if waits:
        schedule(store, email_hash, after=deadlines.now() + timedelta(hours=1))
    return len(parts)

"""Mail, the first channel (`service.channels`): who gets which mail, and when, told of each public
commit (`tell`, from `workers.channels.game`) by looking at the game as it is now.

- a seat with an address gets one mail per decision (your turn, your bid, choose), with its
  one-click answers, what happened since his last decision (`service.mail.recap`) and his
  principality, at once, or (his rhythm for the game is `digest`) in his daily digest
  (`workers.digest`); and reminders on his schedule (`preferences` `reminders`: "50%" of the time,
  "1h" before) while the decision is still his, each step once (`remind`, on a timer);
- everyone with an address gets the round's result when a round ends (or in his digest) and the
  scores at the end;
- grace, pause and resume mails (`workers.time_off`);
- while a player is away (`service.vacation`) his decision mails wait for the commit that ends his
  vacation;
- a player who has taken over a seat of a game under way (`joined`, set by `games.replace_seat`) gets
  a welcome mail with where the game stands, once per holder;
- a player whose decision ran out gets what the deadline played for him (`service.told`), once per
  decision, as a part before his next decision's in the same mail when one waits, else by itself.
Every mail is sent once: a Redis key per decision (for the seat's holder: a newcomer to a seat
gets the decision he takes over), reminder, round or game end claims it first (SET NX).
Decision mails with a far deadline, and messages of the tables' talk (`workers.talk`), wait a short
window (PALAZZO_MAIL_MERGE_SECONDS) so that several games waiting on one player, and a decision with
the messages written meanwhile, reach him as one mail. What waits is each decision's part
(`render.Part`: what it was made for and its facts), not a rendered mail: the flush renders them as
one mail, and its send job (`service.mail.sending`) drops the parts answered in the meantime.
Mails are rendered from each seat's redacted view only, so a mail shows what its seat may see.
"""
from __future__ import annotations

import json
from datetime import timedelta

from service import deadlines, games, logs, preferences, timers, tokens, told, vacation
from service.inbound import address
from service.mail import recap, render, seats
from service.mail.message import Mail
from service.store import Store, email_key
from workers import context
from workers import time_off
from workers import digest as daily_digest

REMIND_JOB = "workers.notify.remind"
CLAIM_TTL = 30 * 24 * 3600
MERGE_ONLY_BEFORE = 10  # a decision mail waits to be merged only if its deadline is this many windows away
name = "mail"  # as a channel (`service.channels.Channel`)


def _claim(store, game_id: str, what: str) -> bool:
    """True the first time `what` is claimed for this game (for CLAIM_TTL): the mail is ours to send."""
    return seats.claim(store, game_id, what, CLAIM_TTL)


def _links(table: games.Table, seat: int) -> render.MailLinks:
    """The seat's links (`seats.links_of`), signed with the workers' secret."""
    return seats.links_of(context.links(), table, seat)


def reply_of(table: games.Table, seat: int) -> render.Reply | None:
    """How the seat answers its decision by replying, when replies are taken (PALAZZO_INBOUND_SECRET)."""
    settings = context.config().mail
    return address.reply_for(context.links(), table, seat, settings.reply_domain) if settings.replies else None


def _send(store: Store, mail: Mail) -> None:
    store.followups.send_mail(store, mail)


def merge_window() -> float:
    """Seconds a decision mail waits for others to the same player (PALAZZO_MAIL_MERGE_SECONDS, 30)."""
    return context.config().mail_merge_seconds


def _send_decision(store: Store, part: render.Part, to: str, due, also: list[render.Part] = ()) -> None:
    """Send a decision mail, or hold its part for the merge window when its deadline is far enough
    away, so that decisions of several games waiting on one player arrive as one mail; `also` (what a
    deadline played for him) goes in the same mail."""
    window = merge_window()
    send_part(store, part, to, wait=due is not None and (due - deadlines.now()).total_seconds()
              >= MERGE_ONLY_BEFORE * window, also=also)


def send_part(store: Store, part: render.Part, to: str, wait: bool, also: list[render.Part] = ()) -> None:
    """Send a part's mail (with the parts `also`) now, or (`wait`) hold them for the merge window with
    whatever else waits for the player: decisions of other games, messages of the tables (which
    always wait), so that what comes within the window arrives as one mail."""
    window = merge_window()
    if window <= 0 or not wait:
        _send(store, render.merged([part, *also], to, context.config().mail.domain))
        return
    held = email_key(tokens.email_hash(to), "held")
    with store.redis.pipeline(transaction=False) as pipe:
        pipe.rpush(held, *(json.dumps({"to": to, "part": each}) for each in (part, *also)))
        pipe.set(f"{held}:flush", "1", nx=True, ex=int(window) + 60)
        _, first = pipe.execute()
    if first:
        store.followups.queue.enqueue_in(timedelta(seconds=window), "workers.notify.flush", tokens.email_hash(to))


def flush(email_hash: str) -> int:
    """Send what was held for one player as one mail (one part: its own decision mail); its send job
    leaves out every part answered by then. Returns how many parts were held.

    The list and its flush mark lie in different Redis Cluster slots, so they cannot go in one
    transaction: the mark goes first, then the list is read and emptied in one transaction in its
    slot. A mail held in between sets a new mark and its own flush job, and is sent by this one (a
    little before its window ends) or that one, never by both. A crash between the two steps leaves
    the list held until the next mail to the player, whose new mark schedules a flush.
    """
    store = context.store()
    held = email_key(email_hash, "held")
    store.redis.delete(f"{held}:flush")
    with store.redis.pipeline(transaction=True) as pipe:
        pipe.lrange(held, 0, -1)
        pipe.delete(held)
        raw, _ = pipe.execute()
    entries = [json.loads(item) for item in raw]
    for old in (entry for entry in entries if "part" not in entry):  # a whole mail, held before parts were
        _send(store, Mail.from_json(old))
    parts = [entry for entry in entries if "part" in entry]
    if parts:
        _send(store, render.merged([entry["part"] for entry in parts], parts[0]["to"], context.config().mail.domain))
    return len(entries)


def game(game_id: str) -> int:
    """A job queued before every channel was told of a commit (`workers.channels.game`, which it is now)."""
    from workers import channels  # it imports this module: imported when first needed
    return channels.game(game_id)


def tell(store: Store, table: games.Table) -> int:
    """Send whatever the game's current state calls for and nobody has sent yet; returns how many."""
    frame = seats.frame(table, context.config().mail.domain)
    now = deadlines.now()
    sent = _welcome(store, table, frame, now)
    told_seats: set[int] = set()
    for decision, seat, to in _new_decisions(store, table, now):
        due = deadlines.parse(decision["deadline_at"]) if decision.get("deadline_at") else None
        if due is not None:
            _arm_reminder(store, table, seat, decision["since"], to.holder, deadlines.stamp(now), due)
        if to.rhythm == "digest":
            daily_digest.schedule(store, tokens.email_hash(to.email))
            continue
        part = decision_part_of(store, table, seat, decision, frame, to, now)
        notice = notice_of(store, table, frame, seat, to, now, with_decision=True)
        told_seats.add(seat)
        _send_decision(store, part, to.email, due, also=[notice] if notice else [])
        sent += 1
    for seat in range(len(table.meta["seats"])):
        to = seats.recipient(store, table, seat) if seat not in told_seats else None
        if to is None or told.last_timeout(table, seat) is None:
            continue
        if to.rhythm == "digest":  # his digest tells it (`workers.digest`)
            daily_digest.schedule(store, tokens.email_hash(to.email))
            continue
        notice = notice_of(store, table, frame, seat, to, now)
        if notice is not None:
            send_part(store, notice, to.email, wait=True)
            sent += 1
    sent += _to_everyone(store, table, frame) + time_off.mails(store, table, frame, now)
    return sent


def _new_decisions(store: Store, table: games.Table, now):
    """Each pending decision whose seat takes mail now (not away) and has not been told of it, with
    its seat and recipient: claimed here, once per decision and holder."""
    for decision in table.pending if table.status == games.RUNNING else []:
        seat = decision["seat"]
        to = None if vacation.away_until(table.meta["seats"][seat], now) else seats.recipient(store, table, seat)
        if to is not None and _claim(store, table.id, seats.decision_claim(seat, to.holder, decision["since"])):
            yield decision, seat, to


def decision_part_of(store: Store, table: games.Table, seat: int, decision: dict, frame: render.Table,
                     to: render.Recipient, now) -> render.Part:
    """The seat's decision as a mail's part, from its own view: its facts, one-click answers, reply,
    recap and who answers at the deadline; the same at once, merged, or in the daily digest."""
    return render.decision_part(table.game.view(table.state, seat), decision, frame, to, _links(table, seat), now,
                                table.game.default_move(table.state, seat), reply_of(table, seat),
                                recap=recap.of(store, table, seat), stand_in=table.stand_in(seat))


def notice_of(store: Store, table: games.Table, frame: render.Table, seat: int, to: render.Recipient,
            now, with_decision: bool = False) -> render.Part | None:
    """What the seat's last deadline played for him (`told`), once per decision he let run out, while
    the game goes on; `with_decision` when it goes in the mail of the decision he has now."""
    timed_out = told.last_timeout(table, seat)
    if timed_out is None or table.status not in (games.RUNNING, games.PAUSED) \
            or not _claim(store, table.id, f"told:{seat}:{to.holder}:{timed_out['since']}"):
        return None
    links = {**_links(table, seat), "seat": seats.talk_links(context.links(), table, seat)["seat"]}
    return render.notice_part(table.game.view(table.state, seat), timed_out, told.label(store, table, seat, timed_out),
                              told.misses(table, seat), frame, to, links, now, table.decision_of(seat), with_decision)


def _welcome(store: Store, table: games.Table, frame: render.Table, now) -> int:
    """The welcome of each player who took over a seat of a running or paused game in the last
    CLAIM_TTL (its claim lasts that long), once per holder."""
    if table.status not in (games.RUNNING, games.PAUSED):
        return 0
    sent = 0
    for seat, entry in enumerate(table.meta["seats"]):
        joined = entry.get("joined")
        if not joined or (now - deadlines.parse(joined["at"])).total_seconds() > CLAIM_TTL:
            continue
        to = seats.recipient(store, table, seat)
        if to is None or not _claim(store, table.id, f"welcome:{seat}:{to.holder}"):
            continue
        _send(store, render.welcome(table.game.view(table.state, seat), table.pending, frame, to,
                                    _links(table, seat), now, joined.get("after"), reply_of(table, seat)))
        sent += 1
    return sent


def _to_everyone(store, table: games.Table, frame: render.Table) -> int:
    """The result of every round that has ended, and the scores when the game is over."""
    sent = 0
    over = table.status == games.FINISHED
    ended = table.state.get("round", 1) - (0 if over else 1)
    for seat in range(len(table.meta["seats"])):
        to = seats.recipient(store, table, seat, everyone=True)
        if to is None:
            continue
        view = table.game.view(table.state, seat)
        if ended >= 1 and not over and _claim(store, table.id, f"round:{ended}:{seat}"):
            if to.rhythm == "digest":
                daily_digest.defer_round(store, tokens.email_hash(to.email), table.id, ended)
                continue
            mail = render.round_result(view, frame, to, _links(table, seat), ended)
            if mail is not None:  # None: the game mails no round results (`engine.presentation.PlainMails`)
                _send(store, mail)
                sent += 1
        if over and _claim(store, table.id, f"over:{seat}"):
            _send(store, render.game_over(view, frame, to, _links(table, seat)))
            sent += 1
    return sent


def _steps(store: Store, table: games.Table, to: render.Recipient, opened: str,
           due) -> list[tuple[str, object]]:
    """His reminder steps for the game and when each falls, from when the decision was first mailed
    (`opened`) to its deadline `due` as it is now, soonest first (steps that fall outside left out)."""
    start = deadlines.parse(opened)
    timed = [(text, preferences.step_time(text, start, due)) for text in to.reminders]
    return sorted(((text, when) for text, when in timed if when is not None), key=lambda step: step[1])


def _arm_reminder(store: Store, table: games.Table, seat: int, since: int, holder: int | None, opened: str,
                  due, after=None) -> None:
    """Set the decision's one reminder timer for its next step not yet come (after `after`, by default now)."""
    to = seats.recipient(store, table, seat)
    if to is None:
        return
    after = after or deadlines.now()
    coming = [when for _, when in _steps(store, table, to, opened, due) if when > after]
    if coming:
        timers.at(store, coming[0], REMIND_JOB, table.id, seat, since, holder, opened,
                  job_id=f"pz-remind-{table.id}-{seat}-{holder}-{since}")


@logs.game_job
def remind(game_id: str, seat: int, since: int, holder: int | None, opened: str) -> bool:
    """A reminder timer has come: if the decision is still the holder's, send one reminder for the steps
    that have come and were not sent yet (each step once, by its claim), from the decision's deadline
    as it is now; then set the timer for the next step. A deadline moved later moves its steps: the
    timer is set again for the new time instead. A paused game looks again when the pause ends, a player
    who is away when he is due back (the steps that came meanwhile are skipped: the end of his vacation
    mails him the decision again)."""
    store = context.store()
    table = games.load(store, game_id)
    decision = table.decision_of(seat)
    to = seats.recipient(store, table, seat)
    if decision is None or decision["since"] != since or to is None or to.holder != holder \
            or not decision.get("deadline_at") or table.status not in (games.RUNNING, games.PAUSED):
        return False
    due = deadlines.parse(decision["deadline_at"])
    if table.status == games.PAUSED:
        _arm_reminder(store, table, seat, since, holder, opened, due, deadlines.parse(table.meta["paused_until"]))
        return False
    back = vacation.away_until(table.meta["seats"][seat])
    if back:
        _arm_reminder(store, table, seat, since, holder, opened, due, back)
        return False
    now = deadlines.now()
    come = [text for text, when in _steps(store, table, to, opened, due) if when <= now]
    fresh = [text for text in come if _claim(store, game_id, f"reminder:{seat}:{holder}:{since}:{text}")]
    if fresh:
        frame = seats.frame(table, context.config().mail.domain)
        view = table.game.view(table.state, seat)
        _send(store, render.reminder(view, decision, frame, to, _links(table, seat), now,
                                     table.game.default_move(table.state, seat), reply_of(table, seat),
                                     recap=recap.of(store, table, seat, recap.REMINDER_LINES),
                                     stand_in=table.stand_in(seat)))
    _arm_reminder(store, table, seat, since, holder, opened, due, now)
    return bool(fresh)


def reminder(game_id: str, seat: int, since: int, holder: int = 0) -> bool:
    """A reminder queued in RQ before reminders waited on timers (`remind`): one reminder of a decision
    still the holder's, once. Jobs queued before holders were named remind holder 0."""
    store = context.store()
    table = games.load(store, game_id)
    decision = table.decision_of(seat)
    to = seats.recipient(store, table, seat)
    if table.status != games.RUNNING or decision is None or decision["since"] != since or to is None \
            or to.holder != holder or not _claim(store, game_id, f"reminder:{seat}:{holder}:{since}"):
        return False
    frame = seats.frame(table, context.config().mail.domain)
    view = table.game.view(table.state, seat)
    _send(store, render.reminder(view, decision, frame, to, _links(table, seat),
                                 deadlines.now(), table.game.default_move(table.state, seat), reply_of(table, seat),
                                 recap=recap.of(store, table, seat, recap.REMINDER_LINES),
                                 stand_in=table.stand_in(seat)))
    return True

"""Playing one kept reply: for which seat it is, whether its sender holds that seat, what it asks, and
the mail that answers it. `handle` is what the RQ job (`workers.replies`) runs, or the endpoint
itself when there are no workers.

Checks, in order: a mail sent by a program (out of office) is ignored, as answering it could start a
mail loop (our answers say they are automatic, RFC 3834); the address must be a genuine reply
address (`address.seat_of`; else the mail is ignored, unanswered, as nobody can be told); it must name
the seat's current holder (a mail to an earlier player's address is refused, and nobody is told: it
is no forgery, only an old address, and the new player has nothing to hear of it); the sender
must be the seat's address, compared as the service stores addresses (case-insensitive); SPF or DKIM
must have passed when the post says how they went. A mail that fails the last two is not played, and
the seat's own address (never the sender) is told, at most once an hour, unless its player takes no
mail (`seats.recipient`). Then the reply must answer the seat's decision still pending: the decision
a mail is about is named in its Message-ID, which the reply quotes (`headers.decision_in`); a reply
that quotes none answers the decision pending now, and standing orders may answer any mail. A reply
of more than MAX_COMMANDS commands is refused unplayed: each would be a commit of its own. A reply whose
one command is `leave` is answered with what leaving means and a leave link (`leaving.leave_url`);
`leave confirm` leaves (`leaving.vacate`), and the mail saying so is its answer.

Table talk is read here, not by the game's grammar (`service.inbound.talk`): in any reply a `say ...`
line is a message to the table and a `tell <name> ...` line one to that player alone, beside the
commands (and whatever the game's state, but a cancelled game's); the lines left are the grammar's.
A reply to a mail of table talk (its Message-ID names the message, `headers.talk_in`) with no such
line and nothing the grammar reads as a command is a message as a whole: to the table when the
message it answers went to the table, back to its writer alone when it was private (a private
message of the host's cannot be answered so: the answer says how to write instead). Each message
is posted once, with an idempotency key of the mail and its place, so a retry posts nothing twice;
the answer says what was posted.

A mail the parser cannot read (a charset nobody knows, parts nested too deeply) is kept as unreadable,
with the reason, and never raises, so the job is not retried on it; its sender hears why only if
the checks above passed (they read only its headers), as every answer goes to the seat's own address.

`handle` reads the mail and its state again each time, so a retry after any failure carries on where
the last try stopped: the moves read from a mail are stored before the first is played, each is played
through `playing.submit` with an idempotency key of the mail and its place, and the answer goes once.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from engine.core import LEAVE, Parsed, Unreadable, grammar_of, read_commands
from service import deadlines, games, leaving, messages, playing, preferences, ratelimit, tokens, vacation
from service.inbound import address, inbox, message, quoting
from service.inbound import talk as talk_lines
from service.inbound import vacation_lines
from service.links import Links
from service import phrases
from service.mail import headers, render, seats
from service.mail.settings import MailSettings
from service.problems import Problem
from service.store import Store

log = logging.getLogger(__name__)

STATUS = {"done": "applied", "refused": "refused", "stale": "stale", "help": "help", "closed": "closed",
          "leave": "leave_asked", "left": "left", "said": "said", "vacation": "vacation"}
FINAL = frozenset(STATUS.values()) | {"ignored", "unreadable"}
MAX_COMMANDS = 20  # lines of one reply that are played; each is a commit, and a turn takes a few
NOTICE_EVERY = 3600  # seconds between two notices to a seat about mail for it that was not played
CLOSED = {games.OPEN: "The game has not started yet.", games.PAUSED: "The game is paused; reply once it goes on.",
          games.FINISHED: "The game is over.", games.CANCELLED: "The game was cancelled."}


@dataclass(frozen=True)
class Replies:
    """What handling a reply needs: the store, the link signer (reply addresses, links in answers),
    the mail settings (domains) and the limit of messages per seat (PALAZZO_TALK_LIMIT)."""

    store: Store
    links: Links
    settings: MailSettings
    talk_limit: ratelimit.Limit = ratelimit.Limit.parse(messages.LIMIT)

    def handle(self, key: str) -> str:
        """Play the kept mail `key` if it is a genuine reply, answer it, and return its final status."""
        redis = self.store.redis
        state = inbox.state(redis, key)
        if state.get("status") in FINAL:
            return state["status"]
        post = inbox.fields(redis, key)
        if post is None:
            return "gone"
        try:
            mail = message.read(post)
        except message.UnreadableMail as error:
            return self._finish(key, "unreadable", str(error))
        if mail.automatic:
            return self._finish(key, "ignored", "an automatic reply (out of office, say): not answered, lest mail loop")
        found = address.seat_of(self.links, mail.recipients)
        if found is None:
            return self._finish(key, "ignored", "sent to no reply address of ours (mistyped or forged)")
        game_id, seat, holder = found
        try:
            table = games.load(self.store, game_id)
        except Problem:
            return self._finish(key, "ignored", f"game {game_id} is gone")
        seats = table.meta["seats"]
        if seat >= len(seats):
            return self._finish(key, "ignored", f"game {game_id} has no seat {seat}", game_id)
        if holder != table.holder(seat):
            detail = f"sent to the address of an earlier player of the seat (holder {holder}, now {table.holder(seat)})"
            return self._finish(key, "refused", detail, game_id, seat)
        entry = seats[seat]
        if entry.get("bot") or not entry.get("email_hash"):
            return self._finish(key, "ignored", "nobody plays this seat by mail", game_id, seat)
        if tokens.email_hash(mail.sender) != entry["email_hash"]:
            self._notice(table, seat, "not_yours", "it came from another address than the one your seat has.")
            return self._finish(key, "refused", f"sent from {mail.sender or 'no address'}, not the seat's", game_id, seat)
        if message.authenticated(mail) is False:
            self._notice(table, seat, "unverified",
                         "it gave your address as its sender, but your mail provider did not vouch that you "
                         "sent it (SPF and DKIM failed).")
            return self._finish(key, "refused", "SPF and DKIM failed", game_id, seat)
        plan = state.get("plan")
        if plan is None:
            try:
                written = quoting.written_lines(message.text(post))  # before anything reads it
            except message.UnreadableMail as error:
                unread: render.Outcome = {"kind": "refused", "reason": f"I could not read your mail: {error}."}
                self._answer(table, seat, mail, unread, key)
                return self._finish(key, "unreadable", str(error), game_id, seat)
            plan = _read(self.store, table, seat, mail, written)
            if "moves" in plan or plan.get("talk"):
                inbox.update(redis, key, plan=plan, game=game_id, seat=seat)
        said, unsaid = self._say(table, seat, plan, key)
        if plan.get("kind") == "left":
            return self._leave(table, seat, holder, mail, key)
        if plan.get("kind") == "leave":
            plan = {**plan, "confirm_url": leaving.leave_url(self.links, table, seat)}
        time_off = self._time_off(table, seat, plan, key) if plan.get("time_off") else None
        if time_off is not None:
            table = games.load(self.store, table.id)
        if plan.get("kind") == "vacation":
            outcome = {**time_off, "ignored": plan.get("ignored", [])}
        else:
            outcome, table = self._play(table, seat, plan, key) if "moves" in plan else (_answered_at_once(plan), table)
            if time_off is not None:
                outcome = {**outcome, "vacation": time_off.get("vacation") or time_off.get("reason")}
        outcome = {**outcome, "said": said, "unsaid": unsaid}
        self._answer(table, seat, mail, outcome, key)
        detail = outcome.get("reason") or "; ".join(outcome.get("done") or []) or outcome["kind"]
        return self._finish(key, STATUS[outcome["kind"]], detail, game_id, seat)

    def _time_off(self, table: games.Table, seat: int, plan: dict[str, Any], key: str) -> render.Outcome:
        """Take the time off a `vacation` line asks for, or come back for a `back` line (`service.vacation`),
        once: the outcome is kept with the plan, so a retry answers it again instead of asking twice."""
        if plan.get("time_off_done"):
            return plan["time_off_done"]
        asked = plan["time_off"]
        zone = preferences.read(self.store, table.meta["seats"][seat]["email_hash"])["time_zone"]
        try:
            if asked["kind"] == vacation_lines.BACK:
                table, hours = vacation.end(self.store, table, seat)
                words = (f"welcome back to “{games.title_of(table)}”: your vacation took {vacation.span(hours)}, and "
                         f"{vacation.span(vacation.hours_left(table.meta, seat))} of vacation is left.")
            else:
                table = vacation.start(self.store, table, seat, asked.get("hours"), asked.get("days"))
                until = deadlines.parse(table.meta["seats"][seat]["away"]["until"])
                words = (f"you are away from “{games.title_of(table)}” until {phrases.clock(until, zone)}: only your "
                         "deadlines stand still until then (the others play on), and your decision mails wait. "
                         f"{vacation.span(vacation.hours_left(table.meta, seat))} of vacation is left. Reply "
                         "'back' (or make a move) to come back sooner; the unused time goes back to your bank.")
            done: render.Outcome = {"kind": "vacation", "vacation": words, "back": asked["kind"] == vacation_lines.BACK}
        except Problem as problem:
            if problem.status >= 500:
                raise
            done = {"kind": "refused", "line": asked["line"], "reason": _sentence(problem.detail) + " Nothing changed."}
        inbox.update(self.store.redis, key, plan={**plan, "time_off_done": done})
        return done

    def _leave(self, table: games.Table, seat: int, holder: int, mail: message.Inbound, key: str) -> str:
        """'leave confirm': the seat's player leaves it; the mail saying so answers his (`leaving.vacate`).
        A retry after the seat went finds an earlier holder's address, and is refused unanswered."""
        try:
            leaving.vacate(self.store, self.links, table, seat, games.LEFT, holder=holder, answering=mail.message_id)
        except Problem as problem:
            if problem.status >= 500:
                raise
            return self._finish(key, "refused", problem.detail, table.id, seat)
        return self._finish(key, STATUS["left"], "the player left the game", table.id, seat)

    def failed(self, key: str, reason: str) -> None:
        """The job gave up on the mail: it stays kept, marked failed, for the host and a later post."""
        state = inbox.state(self.store.redis, key)
        log.warning("reply %s failed for good: %s", key, reason)
        seat = int(state["seat"]) if state.get("seat") else None
        self._finish(key, inbox.FAILED, reason, state.get("game"), seat)

    def _say(self, table: games.Table, seat: int, plan: dict[str, Any], key: str
             ) -> tuple[list[str], list[list[str]]]:
        """Post the reply's messages, each once: (what was posted, in words; (line, why) of each that
        was not, the reading's refusals first)."""
        said: list[str] = []
        unsaid = [list(pair) for pair in plan.get("unsaid", [])]
        names = [entry.get("name") for entry in table.meta["seats"]]
        for index, wanted in enumerate(plan.get("talk", [])):
            try:
                messages.post(self.store, table, messages.Reader(seat), wanted["to"], wanted["text"],
                              self.talk_limit, f"reply:{key}:{index}")
            except Problem as problem:
                unsaid.append([wanted["line"], problem.detail])
                continue
            whom = "the table" if wanted["to"] is None else f"{names[wanted['to']]} alone"
            said.append(f"to {whom}: {_quoted(wanted['text'])}")
        return said, unsaid

    def _play(self, table: games.Table, seat: int, plan: dict[str, Any], key: str
              ) -> tuple[render.Outcome, games.Table]:
        """Play the planned moves in order against the decision the reply answered; the first one
        refused stops the rest. Returns the outcome and the game as last read, which the answer shows.

        The followups (bots, decision mails) are told once, after the last move played: lines that make
        one turn would otherwise mail the seat the decisions between them, already answered when read.
        """
        done: list[str] = []
        seen = plan["seen"]
        outcome: render.Outcome = {"kind": "done", "done": done, "ignored": plan["ignored"],
                                   "settled": plan.get("settled", [])}
        for index, move in enumerate(plan["moves"]):
            label = table.game.describe(move)
            try:
                body, _ = playing.submit(self.store, table, seat, move, seen,
                                         lambda after, events, label=label: {"label": label, "version": after.version},
                                         f"reply:{key}:{index}", follow=False)
            except Problem as problem:
                if problem.code == "stale_version" and not done:
                    return {"kind": "stale"}, table
                outcome = {"kind": "refused", "done": done, "reason": problem.detail, "line": plan["lines"][index]}
                break
            done.append(body["label"])
            seen = body["version"]
            table = games.load(self.store, table.id)
        if done:
            games.follow_up(self.store, table)
        return outcome, table

    def _answer(self, table: games.Table, seat: int, mail: message.Inbound, outcome: render.Outcome,
                key: str) -> None:
        """Mail the seat what became of its reply, as `table` now stands, once (a failed send frees
        the claim for the retry); nothing to a player who takes no mail."""
        to = seats.recipient(self.store, table, seat)
        if to is None or not inbox.claim(self.store.redis, key, "answer"):
            return
        try:
            self._send(table, seat, to, {**outcome, "message_id": mail.message_id})
        except Exception:
            inbox.unclaim(self.store.redis, key, "answer")
            raise

    def _notice(self, table: games.Table, seat: int, kind: str, reason: str) -> None:
        """Tell the seat's own address that mail for its seat was not played, at most once an hour
        (a stranger's forged mail can ask for it), and never to a player who takes no mail."""
        to = seats.recipient(self.store, table, seat)
        if to is not None and seats.claim(self.store, table.id, f"notice:{seat}", NOTICE_EVERY):
            self._send(table, seat, to, {"kind": kind, "reason": reason})

    def _send(self, table: games.Table, seat: int, to: render.Recipient, outcome: render.Outcome) -> None:
        """The answer, rendered from the seat's own view, with its commands while the game runs."""
        running = table.status == games.RUNNING
        pending = table.decision_of(seat) if running else None
        reply = (address.reply_for(self.links, table, seat, self.settings.reply_domain, full=outcome["kind"] == "help")
                 if running else None)
        answer = render.answer(table.game.view(table.state, seat), pending, seats.frame(table, self.settings.domain),
                       to, seats.links_of(self.links, table, seat), deadlines.now(), outcome, reply)
        self.store.followups.send_mail(self.store, answer)

    def _finish(self, key: str, status: str, detail: str, game_id: str | None = None, seat: int | None = None) -> str:
        inbox.finish(self.store.redis, key, status, detail[:500])
        if game_id is not None:
            inbox.note(self.store.redis, game_id, {"message": key, "seat": seat, "status": status, "detail": detail[:500]})
        return status


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _quoted(text: str, most: int = 80) -> str:
    flat = " ".join(text.split())
    return f'"{flat if len(flat) <= most else flat[:most - 1] + "…"}"'


def _answered_at_once(plan: dict[str, Any]) -> render.Outcome:
    """The outcome of a plan that plays nothing, without what the plan kept for posting."""
    return {key: value for key, value in plan.items() if key not in ("talk", "unsaid")}


def _read(store: Store, table: games.Table, seat: int, mail: message.Inbound, written: list[str]
          ) -> dict[str, Any]:
    """The plan for a reply whose writer wrote the lines `written`: the messages it asks for ({talk, unsaid}, see
    `service.inbound.talk`), and its commands ({moves, lines, seen, ignored}) or the outcome that
    answers them at once: help, a refusal, a stale decision, a game that is not running, or, for a
    reply that only talks, "said"."""
    names = [entry.get("name") for entry in table.meta["seats"]]
    found = talk_lines.read(written, names)
    answering = _talk_answered(mail, table.id, seat)
    if answering is not None and not found.any and not _reads_as_commands(table, found.rest) \
            and vacation_lines.read(found.rest) is None:
        return _answer_back(store, table, seat, answering, talk_lines.whole(written))
    talked = {"talk": [{"line": said.line, "to": said.to, "text": said.text} for said in found.said],
              "unsaid": [list(pair) for pair in found.refused]}
    asked = vacation_lines.read(found.rest)
    if asked is not None:
        return _time_off_plan(table, seat, mail, asked, talked)
    if found.any and (not _first_line(found.rest) or (table.status != games.RUNNING
                                                       and not _reads_as_commands(table, found.rest))):
        return {"kind": "said", "ignored": [line for line in found.rest.split("\n") if line], **talked}
    plan = _read_commands(table, seat, mail, found.rest)
    if found.any and plan.get("kind") == "refused" and plan.get("code") in ("no_command", "unknown_command") \
            and plan.get("line", "") in ("", _first_line(found.rest)):
        return {"kind": "said", "ignored": [line for line in found.rest.split("\n") if line], **talked}
    return {**{k: v for k, v in plan.items() if k != "code"}, **talked}


def _time_off_plan(table: games.Table, seat: int, mail: message.Inbound, asked: vacation_lines.Asked,
                   talked: dict[str, Any]) -> dict[str, Any]:
    """The plan of a reply with a `vacation` or `back` line (`service.inbound.vacation_lines`). Taking
    time off is a reply of its own (with talk beside it): a move after it would end it at once. `back`
    may come with commands, which are played after it."""
    ignored = [line for line in asked.rest.split("\n") if line.strip()]
    if asked.kind == vacation_lines.UNREAD:
        return {"kind": "refused", "line": asked.line, "reason": vacation_lines.HOW[:1].upper() + vacation_lines.HOW[1:]
                + ". Nothing changed.", "ignored": ignored, **talked}
    wanted = {"kind": asked.kind, "line": asked.line, "hours": asked.hours, "days": asked.days}
    commands = _reads_as_commands(table, asked.rest)
    if asked.kind == vacation_lines.TAKE and commands:
        return {"kind": "refused", "line": asked.line, "ignored": ignored, **talked,
                "reason": "Taking time off is a reply of its own: a move after it would end it at once. Nothing "
                          "was played or changed."}
    if asked.kind == vacation_lines.BACK and commands:
        plan = _read_commands(table, seat, mail, asked.rest)
        return {**{k: v for k, v in plan.items() if k != "code"}, "time_off": wanted, **talked}
    return {"kind": "vacation", "time_off": wanted, "ignored": ignored, **talked}


def _first_line(text: str) -> str:
    return next((line for line in text.split("\n") if line.strip()), "")


def _reads_as_commands(table: games.Table, text: str) -> bool:
    """Whether the game's grammar reads `text` as commands (without the state: only their form)."""
    grammar = grammar_of(table.game)
    if grammar is None:
        return False
    try:
        grammar.parse(text.split("\n"))
    except Unreadable:
        return False
    return True


def _answer_back(store: Store, table: games.Table, seat: int, seq: int, text: str) -> dict[str, Any]:
    """The plan of a reply to message `seq`'s mail that is a message as a whole: to the table, or back
    to the writer of a private message alone."""
    answered = messages.message(store, table.id, seq)
    shown = messages.shown(answered, messages.Reader(seat)) if answered is not None else None
    if shown is None or (shown["to"] is not None and shown["by"] is None):
        why = ("the host wrote to you alone, and a reply cannot reach him: start a line with 'say' to write "
               "to the table, or with 'tell' and a player's name to write to him alone")
        return {"kind": "said", "talk": [], "unsaid": [[_first_line(text)[:60], why]]}
    to = shown["by"] if shown["to"] is not None and shown["by"] != seat else None
    return {"kind": "said", "talk": [{"line": _first_line(text)[:60], "to": to, "text": text}], "unsaid": []}


def _talk_answered(mail: message.Inbound, game_id: str, seat: int) -> int | None:
    """The seq of the message whose mail (to this seat) the reply answers, if it quotes one first
    of all our mails (In-Reply-To, then References from the newest); None otherwise."""
    for quoted in mail.answers:
        if headers.decision_in(quoted) is not None:
            return None
        found = headers.talk_in(quoted)
        if found is not None and found[0] == game_id and found[1] == seat:
            return found[2]
    return None


def _read_commands(table: games.Table, seat: int, mail: message.Inbound, text: str) -> dict[str, Any]:
    """The plan for the commands of a reply ({moves, lines, seen, ignored}), or the outcome that
    answers it at once: help, a refusal (with the grammar's `code`), a stale decision or a game that
    is not running."""
    closed = {"kind": "closed", "reason": CLOSED.get(table.status, f"The game is {table.status}.")}
    grammar = grammar_of(table.game)
    if grammar is None:
        return closed if table.status != games.RUNNING else {
            "kind": "refused", "reason": f"{table.game.name} cannot be played by mail"}
    try:
        parsed = grammar.parse(text.split("\n"))
    except Unreadable as error:
        return closed if table.status != games.RUNNING else {
            "kind": "refused", "reason": error.message, "line": error.line or "", "code": error.code}
    if parsed.leaving:
        return _leaving(table, parsed) or closed
    if table.status != games.RUNNING:
        return closed
    if parsed.help:
        return {"kind": "help", "ignored": parsed.ignored}
    if len(parsed.commands) > MAX_COMMANDS:
        return {"kind": "refused", "line": parsed.commands[MAX_COMMANDS].text,
                "reason": f"A reply may hold at most {MAX_COMMANDS} commands, one turn's worth: nothing was read."}
    decision = table.decision_of(seat)
    current = decision["since"] if decision else table.version
    answered = _answered(mail, table.id, seat)
    free = all(table.game.move_types[command.move["type"]].get("free") for command in parsed.commands)
    if answered is not None and answered != current and not free:
        return {"kind": "stale"}
    try:
        reading = read_commands(table.game, parsed, table.state, seat)
    except Unreadable as error:
        return {"kind": "refused", "reason": error.message, "line": error.line or ""}
    return {"moves": reading.moves, "lines": reading.lines, "seen": current, "ignored": parsed.ignored,
            "settled": [list(pair) for pair in reading.settled]}


def _leaving(table: games.Table, parsed: Parsed) -> dict[str, Any] | None:
    """A reply whose one command is 'leave' (asked: the answer asks to confirm) or 'leave confirm'
    (left); one beside other commands is refused, unplayed; None in a game that is over."""
    if table.status not in (games.OPEN, games.RUNNING, games.PAUSED):
        return None
    if len(parsed.commands) > 1:
        line = next(command.text for command in parsed.commands if command.asks)
        return {"kind": "refused", "line": line, "ignored": parsed.ignored,
                "reason": "Leaving the game is a reply of its own: write 'leave' alone. Nothing was played."}
    return {"kind": "leave" if parsed.leaving == LEAVE else "left", "ignored": parsed.ignored}


def _answered(mail: message.Inbound, game_id: str, seat: int) -> int | None:
    """The `since` of the seat's decision that the mail answers, from the first of our decision mails
    it quotes (In-Reply-To, then References from the newest); None when it quotes none."""
    for quoted in mail.answers:
        found = headers.decision_in(quoted)
        if found is not None and found[0] == game_id and found[1] == seat:
            return found[2]
    return None

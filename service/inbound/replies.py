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
from service import deadlines, games, leaving, playing, tokens
from service.inbound import address, inbox, message
from service.links import Links
from service.mail import headers, render, seats
from service.mail.settings import MailSettings
from service.problems import Problem
from service.store import Store

log = logging.getLogger(__name__)

STATUS = {"done": "applied", "refused": "refused", "stale": "stale", "help": "help", "closed": "closed",
          "leave": "leave_asked", "left": "left"}
FINAL = frozenset(STATUS.values()) | {"ignored", "unreadable"}
MAX_COMMANDS = 20  # lines of one reply that are played; each is a commit, and a turn takes a few
NOTICE_EVERY = 3600  # seconds between two notices to a seat about mail for it that was not played
CLOSED = {games.OPEN: "The game has not started yet.", games.PAUSED: "The game is paused; reply once it goes on.",
          games.FINISHED: "The game is over.", games.CANCELLED: "The game was cancelled."}


@dataclass(frozen=True)
class Replies:
    """What handling a reply needs: the store, the link signer (reply addresses, links in answers)
    and the mail settings (domains)."""

    store: Store
    links: Links
    settings: MailSettings

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
                text = message.text(post)
            except message.UnreadableMail as error:
                unread: render.Outcome = {"kind": "refused", "reason": f"I could not read your mail: {error}."}
                self._answer(table, seat, mail, unread, key)
                return self._finish(key, "unreadable", str(error), game_id, seat)
            plan = _read(table, seat, mail, text)
            if "moves" in plan:
                inbox.update(redis, key, plan=plan, game=game_id, seat=seat)
        if plan.get("kind") == "left":
            return self._leave(table, seat, holder, mail, key)
        if plan.get("kind") == "leave":
            plan = {**plan, "confirm_url": leaving.leave_url(self.links, table, seat)}
        outcome, table = self._play(table, seat, plan, key) if "moves" in plan else (plan, table)
        self._answer(table, seat, mail, outcome, key)
        detail = outcome.get("reason") or "; ".join(outcome.get("done") or []) or outcome["kind"]
        return self._finish(key, STATUS[outcome["kind"]], detail, game_id, seat)

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


def _read(table: games.Table, seat: int, mail: message.Inbound, text: str) -> dict[str, Any]:
    """The plan for a reply saying `text` ({moves, lines, seen, ignored}), or the outcome that answers
    it at once: help, a refusal, a stale decision, a game that is not running, or leaving (asked, to
    be confirmed; or confirmed, `left`), which an open or paused game takes too."""
    closed = {"kind": "closed", "reason": CLOSED.get(table.status, f"The game is {table.status}.")}
    grammar = grammar_of(table.game)
    if grammar is None:
        return closed if table.status != games.RUNNING else {
            "kind": "refused", "reason": f"{table.game.name} cannot be played by mail"}
    try:
        parsed = grammar.parse(text)
    except Unreadable as error:
        return closed if table.status != games.RUNNING else {
            "kind": "refused", "reason": error.message, "line": error.line or ""}
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

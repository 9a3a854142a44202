"""Every mail Palazzo sends, rendered in one place from Jinja templates (a .txt and an .html per kind).

Game mails are built from a seat's *view* (what `game.view(state, seat)` returns), never from the
state: redaction is the caller's job, so a mail can only show what its reader may see. The one
private part a mail reads is the reader's own (`players[seat].private`); everything else is public.
Links arrive built and signed by the caller; a mail only lays them out.

A decision mail is rendered from one `Part` (the decision's facts), and a merged mail from several,
through one template each, so the two read alike and a merged mail is one document. A message of
the table's talk is a `Part` too (`talk_part`, made only for a seat that may read it): alone or with
others of its game it is a talk mail, beside its game's decision it joins that decision's mail, and
with parts of other games it joins a merged mail; a digest lists a day's messages. Message text is
plain text everywhere: escaped in HTML, never made a link.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined, select_autoescape

from engine import get_game
from engine.core import Game, Move
from engine.presentation import PLAIN_MAILS, Mails, asking, listing, mails_of, presentation_of, said, sentence
from service import deadlines, titles
from service import phrases
from service.mail import headers
from service.mail.message import Mail
from service.served import games_loader

if TYPE_CHECKING:
    from service.mail.recap import Recap

_TEMPLATES = Environment(
    loader=ChoiceLoader([PackageLoader("service.mail", "templates"), games_loader()]),
    autoescape=select_autoescape(["html"]),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


class OneClick(TypedDict, total=False):
    """A signed link that answers a decision at once; without a label, the move's own describe()."""
    label: str
    move: Move
    url: str


class MailLinks(TypedDict, total=False):
    seat: str
    one_click: list[OneClick]
    unsubscribe: str


class Reply(TypedDict):
    """How to answer by replying, for a seat's decision mails: its reply address (the Reply-To), the
    commands it may send now as (line, note), notes on writing others, a picture of its yard with the
    coordinates (or None), and the grammar's guide. Built by the caller from the seat's own options."""
    address: str
    commands: list[tuple[str, str]]
    notes: list[str]
    picture: str | None
    guide: list[str]


class Outcome(TypedDict, total=False):
    """What became of a player's reply, for the mail that answers it.

    `kind`: done (moves played), refused (nothing played: `reason`, at `line`), stale (it answered a
    decision that has moved on), help (the commands he may send), closed (the game is not running),
    not_yours (a mail for his seat that did not come from his address), unverified (a mail from his
    address that SPF and DKIM did not vouch for), leave (he asked to leave: the answer asks him to
    confirm, by replying 'leave confirm' or at `confirm_url`), said (it only talked), vacation (time off
    taken, or ended when `back`: `vacation` says what, in a sentence after his name, as it does beside moves played
    after a `back`). `done` lists the
    moves played, `settled` the lines that needed no move, with why (an "end" of a turn that had ended
    by itself), `ignored` the lines not read, `said` the messages posted (to whom, and their text),
    `unsaid` the (line, why) of messages not posted, `message_id` is his mail's, which the answer
    threads under."""
    kind: str
    done: list[str]
    reason: str
    line: str
    ignored: list[str]
    settled: list[list[str]]
    said: list[str]
    unsaid: list[list[str]]
    message_id: str | None
    confirm_url: str
    vacation: str
    back: bool


class Part(TypedDict):
    """One decision (or message) as a mail shows it: the (game, seat, holder, since) it was made for,
    the mail `kind` it gets, the `summary` that heads it and the `facts` its template reads. Plain
    data, so a merged mail carries its parts through its send job and can drop one answered (or a
    message hidden) meanwhile. A message's part names it by `seq`."""
    kind: str
    game: str
    seat: int
    holder: int | None
    since: int | None
    summary: str
    facts: dict[str, Any]
    seq: NotRequired[int]


TALK_KINDS = frozenset({"talk", "talk_digest"})  # a message mailed by itself (or merged), in a digest
NOTICE_KINDS = frozenset({"defaulted", "standin"})  # what a deadline played for a seat; the stand-in taking over
DIGEST_DECISIONS = frozenset({"your_turn", "your_bid", "choose"})  # a decision as the daily digest lists it


@dataclass(frozen=True)
class Recipient:
    """Who reads the mail: his address and name, his seat (None for a host or spectator), his time
    zone, the seat's holder generation he holds it as (`games.Seated.holder`), and, for a seat's
    player, his rhythm and reminder steps for the game (`preferences.effective`), read with the rest."""
    email: str
    name: str
    seat: int | None = None
    time_zone: str = "UTC"
    holder: int | None = None
    rhythm: str = "each"
    reminders: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    """The game a mail is about: its id, every seat's name (a view knows seats by number), our mail
    domain, the game's title (`games.title_of`), which names the game in subjects and text, and the
    name of the game it plays (None for a mail that shows no view: its one-click links carry labels)."""
    game_id: str
    names: list[str]
    domain: str
    title: str
    game: str | None = None


def decision(view: dict[str, Any], pending: dict[str, Any], table: Table, to: Recipient, links: MailLinks,
             now: datetime, default_move: Move | None = None, reply: Reply | None = None,
             stand_in: str | None = None) -> Mail:
    """The mail for a seat's new decision: your_bid for a bid, choose for a follow-up, else your_turn.
    With `reply`, it says how to answer by replying, and replies go to its address; with `stand_in`
    (the bot answering at the seat's deadlines), that the stand-in, not the default, answers."""
    return part_mail(decision_part(view, pending, table, to, links, now, default_move, reply, stand_in=stand_in),
                     to.email, table.domain)


def reminder(view: dict[str, Any], pending: dict[str, Any], table: Table, to: Recipient, links: MailLinks,
             now: datetime, default_move: Move | None = None, reply: Reply | None = None, *,
             recap: Recap | None = None, stand_in: str | None = None) -> Mail:
    """The decision mail's facts again, headed as a reminder, with the time left as of `now` (and,
    with `recap`, a short one: what happened since; with `stand_in`, that the stand-in answers)."""
    part = decision_part(view, pending, table, to, links, now, default_move, reply, reminder=True, recap=recap,
                         stand_in=stand_in)
    return part_mail(part, to.email, table.domain)


def round_result(view: dict[str, Any], table: Table, to: Recipient, links: MailLinks,
                 finished: int | None = None) -> Mail | None:
    """What the public view shows of a finished round (by default the one before the view's), as the
    game's mails tell it (`Mails.round_result`); None when the game mails no round results."""
    facts = _round_facts(view, table, to, links, finished)
    if facts is None:
        return None
    return game_mail("round_result", facts["summary"], facts, table, to, links,
                     template=_own_template(_check(view, table), "round_result"))


def round_part(view: dict[str, Any], table: Table, to: Recipient, links: MailLinks, finished: int) -> Part | None:
    """A finished round as a daily digest lists it (`digest`), with the facts of its own mail; None
    when the game mails no round results."""
    facts = _round_facts(view, table, to, links, finished)
    if facts is None:
        return None
    return {"kind": "round_result", "game": table.game_id, "seat": to.seat, "holder": to.holder, "since": None,
            "summary": facts["summary"], "facts": facts}


def _round_facts(view: dict[str, Any], table: Table, to: Recipient, links: MailLinks,
                 finished: int | None) -> dict[str, Any] | None:
    game = _check(view, table)
    own = _mails(game).round_result(view, table.names, finished)
    return None if own is None else {**frame(table, to, links, game), **own}


def game_over(view: dict[str, Any], table: Table, to: Recipient, links: MailLinks) -> Mail:
    """The final scores from the game's result, as the game's mails tell them (`Mails.game_over`),
    beside the game's log sentence of its end as the reader reads it (`told`, his seat "(you)")."""
    game = _check(view, table)
    own = _mails(game).game_over(view, table.names)  # refused before the game is over
    told = sentence(game, {"type": "game_over", "result": view["result"]}, table.names, to.seat)
    facts = {**frame(table, to, links, game), "told": told, **own}
    return game_mail("game_over", facts["summary"], facts, table, to, links, template=_own_template(game, "game_over"))


def sign_in(to: str, url: str, signed: str, domain: str) -> Mail:
    """The single-use sign-in link a player asked for."""
    return _account_mail("sign_in", "Your Palazzo sign-in link", to, {"url": url, "signed": signed}, domain)


def invitation(to: str, name: str, seat: int, game_id: str, url: str, signed: str, domain: str, *,
               title: str, played: str) -> Mail:
    """A seated player's way in: the seat is his once he opens the link. Of what the creator typed it
    shows the game's title alone (`service.titles`: one line, nothing a mail program makes a link of);
    `played` is what people call the game it plays (`games.game_words`)."""
    shown = titles.one_line(title)
    facts = {"url": url, "signed": signed, "seat": seat, "game_id": game_id, "title": shown, "played": played}
    return _account_mail("invitation", f"You have a seat in “{shown}” · Palazzo", to, facts, domain, game_id)


def host_link(to: str, game_id: str, url: str, signed: str, domain: str, *, title: str) -> Mail:
    """The way back to a game one hosts, from any browser: a sign-in link that also proves the host's address."""
    shown = titles.one_line(title)
    return _account_mail("host_link", f"Your host link for “{shown}” · Palazzo", to,
                         {"url": url, "signed": signed, "game_id": game_id, "title": shown}, domain, game_id)


def _account_mail(kind: str, subject: str, to: str, facts: dict[str, Any], domain: str,
                  game_id: str | None = None) -> Mail:
    context = {**facts, "subject": subject, "one_click": [], "seat_url": None, "unsubscribe": None}
    return Mail(to=to, subject=subject, text=_text(kind, context), html=_html(kind, context),
                headers=headers.build(domain, game_id), kind=kind, game=game_id)


def game_mail(kind: str, summary: str, facts: dict[str, Any], table: Table, to: Recipient, links: MailLinks, *,
          reply: Reply | None = None, decision: tuple[int, int] | None = None, answering: str | None = None,
          template: str | None = None, automatic: bool = False) -> Mail:
    """A game mail of `kind` (rendered from `template`, by default the kind's own); with `reply` its
    replies go to the seat's reply address, and a mail about the seat's `decision` (seat, since, given
    only with `reply`) names it in its Message-ID so that a reply says what it answers."""
    subject = _subject(summary, table.title)
    context = {**facts, "subject": subject}
    mail_headers = headers.build(table.domain, table.game_id, links.get("unsubscribe"), decision=decision,
                                 reply_to=reply["address"] if reply else None, answering=answering,
                                 automatic=automatic)
    return Mail(to=to.email, subject=subject, text=_text(template or kind, context),
                html=_html(template or kind, context), headers=mail_headers, kind=kind, game=table.game_id,
                seat=to.seat, holder=to.holder)


def _subject(summary: str, title: str) -> str:
    """A game mail's subject: what it is about, then the game's title, on one line whatever it holds."""
    return f"{titles.one_line(summary)} · {titles.one_line(title)}"


def _text(kind: str, context: dict[str, Any]) -> str:
    return _TEMPLATES.get_template(f"{kind}.txt").render(context).strip() + "\n"


def _html(kind: str, context: dict[str, Any]) -> str:
    return _TEMPLATES.get_template(f"{kind}.html").render(context)


def _check(view: dict[str, Any], table: Table) -> Game:
    """The game a mail of `table` is about (the table's, else the one its view names); refuses what is
    no view, above all a raw state, which still holds its secrets."""
    if "secret" in view:
        raise ValueError("a mail is rendered from a seat's view, never from the raw state")
    name = table.game or view.get("game")
    if name is None:
        raise ValueError("a mail's table names no game, nor does its view")
    return get_game(name)


def _mails(game: Game) -> Mails:
    """The facts of the game's mails: its own, else the generic ones (`engine.presentation.PlainMails`)."""
    return mails_of(game)


def _mail_folder(game: Game) -> str:
    """The folder of the templates that say what only the game says (`_mail.txt`/`.html`, and its
    whole-mail kinds): the game's own, else the service's generic one that `PlainMails` fills."""
    return f"games/{game.name}/mail" if presentation_of(game).mails is not None else PLAIN_MAILS


def _own_template(game: Game, kind: str) -> str:
    """A mail kind that is all the game's own (a round's result, the final scores, a welcome): its
    template in the game's mail folder (`_mail_folder`)."""
    return f"{_mail_folder(game)}/{kind}"


def _waiting(game: Game, view: dict[str, Any], pending: dict[str, Any] | None, to: Recipient,
             now: datetime) -> dict[str, str] | None:
    """The reader's own decision, if one waits with a deadline: what it asks, by when (in his zone), how soon."""
    if pending is None or not pending.get("deadline_at"):
        return None
    due = deadlines.parse(pending["deadline_at"])
    return {"pending": asking(game, view, pending), "deadline": phrases.clock(due, to.time_zone),
            "relative": phrases.relative(due, now)}


def frame(table: Table, to: Recipient, links: MailLinks, game: Game | None = None) -> dict[str, Any]:
    """What every game mail shows around its facts: the reader's name and the links (a one-click link
    without a label named by its move in the words of `game`, by default the table's), and the
    folder of the game's mail partials (`templates`, imported as `own` for what only it says)."""
    name = game.name if game else table.game
    played = get_game(name) if name else None
    describe = played.describe if played and links.get("one_click") else None
    one_click = [{"label": link.get("label") or describe(link["move"]), "url": link["url"]}
                 for link in links.get("one_click", [])]
    return {"name": to.name, "game_id": table.game_id, "title": table.title, "one_click": one_click,
            "templates": _mail_folder(played) if played else None,
            "seat_url": links.get("seat"), "unsubscribe": links.get("unsubscribe")}


def decision_part(view: dict[str, Any], pending: dict[str, Any], table: Table, to: Recipient, links: MailLinks,
                  now: datetime, default_move: Move | None = None, reply: Reply | None = None,
                  reminder: bool = False, recap: Recap | None = None, stand_in: str | None = None) -> Part:
    """A seat's decision as a mail shows it, alone (`part_mail`) or among others (`merged`); a
    reminder shows the same facts under its own heading. `recap` (`service.mail.recap.of`, made from
    the seat's redacted feed by the caller) tells what happened since the seat's last decision. With
    `stand_in`, the bot that answers at the deadline instead of `default_move` (`playing.default_on`)."""
    mails = _mails(_check(view, table))
    kind = mails.kind(pending["kind"])
    facts = {**_decision_facts(view, pending, table, to, links, now, default_move), "reply": reply,
             "mail": kind, "reminder": reminder, "recap": recap, "standin": stand_in}
    summary = mails.summary(kind, facts)
    return {"kind": "reminder" if reminder else kind, "game": table.game_id, "seat": pending["seat"],
            "holder": to.holder, "since": pending.get("since"),
            "summary": f"Reminder: {summary}" if reminder else summary, "facts": facts}


def part_mail(part: Part, to: str, domain: str, talk: list[Part] = (), notices: list[Part] = ()) -> Mail:
    """The mail of one decision: a decision mail with replies on names the decision in its
    Message-ID, so that a reply to it says what it answers. Messages of its game's `talk` that
    are due at the same time follow the decision, and what the game's deadlines played for the
    seat (`notices`) comes before it; the mail then carries all its parts."""
    facts, reply = part["facts"], part["facts"]["reply"]
    decision = (part["seat"], part["since"]) if reply is not None and part["since"] is not None else None
    subject = _subject(part["summary"], _title_of(part))
    context = {**facts, "subject": subject, "part": facts, "talk": [p["facts"] for p in talk],
               "notices": [p["facts"] for p in notices]}
    mail_headers = headers.build(domain, part["game"], facts["unsubscribe"], decision=decision,
                                 reply_to=reply["address"] if reply else None)
    return Mail(to=to, subject=subject, text=_text("decision", context), html=_html("decision", context),
                headers=mail_headers, kind=part["kind"], game=part["game"], seat=part["seat"],
                holder=part["holder"], since=part["since"],
                parts=[part, *notices, *talk] if talk or notices else [])


def talk_part(message: dict[str, Any], table: Table, to: Recipient, links: MailLinks, reply_to: str | None,
              digest: bool = False, title: str | None = None) -> Part:
    """A message of the table as a mail shows it to `to`: who wrote it, to whom, when, its text, and
    whom a reply to its mail reaches (`reply_to`, the seat's reply address, when replies are taken).
    The caller passes only a message `to` may read, as `messages.shown` gives it to his seat; `title`
    names the game (its id when it has none)."""
    if message["text"] is None:
        raise ValueError("a hidden message is not mailed")
    private = message["to"] is not None
    answered_by = "the table" if not private else f"{message['name']} alone" if message["by"] is not None else None
    facts = {**frame(table, to, links), "sender": message["name"], "private": private, "text": message["text"],
             "lines": message["text"].split("\n"), "when": phrases.clock(deadlines.parse(message["at"]), to.time_zone),
             "reply_to": reply_to, "answered_by": answered_by, "game_name": title or table.title}
    summary = f"{message['name']} to you alone" if private else f"{message['name']} to the table"
    return {"kind": "talk_digest" if digest else "talk", "game": table.game_id, "seat": to.seat,
            "holder": to.holder, "since": None, "seq": message["seq"], "summary": summary, "facts": facts}


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def talk_mail(talk: list[Part], to: str, domain: str) -> Mail:
    """Messages of one game's table to one seat, as one mail in the game's thread; a reply to it is a
    message, to where its last message came from (the table, or its writer alone)."""
    last = talk[-1]
    facts = last["facts"]
    summary = last["summary"] if len(talk) == 1 else _plural(len(talk), "message", "messages") + " at the table"
    subject = _subject(summary, _title_of(last))
    context = {**facts, "subject": subject, "talk": [p["facts"] for p in talk], "last": facts}
    mail_headers = headers.build(domain, last["game"], facts["unsubscribe"], talk=(last["seat"], last["seq"]),
                                 reply_to=facts["reply_to"])
    return Mail(to=to, subject=subject, text=_text("talk", context), html=_html("talk", context),
                headers=mail_headers, kind="talk", game=last["game"], seat=last["seat"], holder=last["holder"],
                parts=list(talk))


def digest(parts: list[Part], to: str, domain: str) -> Mail | None:
    """A player's daily mail: per game, the decision waiting for him (with its one-click answers), the
    rounds finished since the last one, and the messages of its table since then, each game under its
    own heading with its seat link, in the game's thread when there is one game. No parts, no mail."""
    if not parts:
        return None
    by_game: dict[str, list[Part]] = {}
    for part in parts:
        by_game.setdefault(part["game"], []).append(part)
    talk = [part for part in parts if part["kind"] in TALK_KINDS]
    decisions = [part for part in parts if part["kind"] in DIGEST_DECISIONS]
    said = [_plural(len(decisions), "game waits", "games wait") + " for you"] if decisions else []
    said += [_plural(len(talk), "message", "messages")] if talk else []
    notices = [part for part in parts if part["kind"] in NOTICE_KINDS]
    said += [_plural(len(notices), "decision", "decisions") + " played for you"] if notices else []
    rounds = len(parts) - len(talk) - len(decisions) - len(notices)
    said += [_plural(rounds, "round", "rounds") + " over"] if rounds else []
    subject = f"Your day at Palazzo: {', '.join(said)}"
    unsubscribe = parts[0]["facts"]["unsubscribe"]
    context = {"subject": subject, "name": parts[0]["facts"]["name"], "one_click": [], "seat_url": None,
               "unsubscribe": unsubscribe,
               "games": [{"game_name": _title_of(listed[0]), "seat_url": listed[0]["facts"]["seat_url"],
                          "decisions": [{"subject": p["summary"], "facts": p["facts"]} for p in listed
                                        if p["kind"] in DIGEST_DECISIONS],
                          "rounds": [p["facts"] for p in listed if p["kind"] == "round_result"],
                          "talk": [p["facts"] for p in listed if p["kind"] in TALK_KINDS],
                          "notices": [p["facts"] for p in listed if p["kind"] in NOTICE_KINDS]}
                         for listed in by_game.values()]}
    only = next(iter(by_game)) if len(by_game) == 1 else None
    return Mail(to=to, subject=subject, text=_text("digest", context), html=_html("digest", context),
                headers=headers.build(domain, only, unsubscribe), kind="digest", game=only, parts=list(parts))


def remade(mail: Mail, parts: list[Part], domain: str) -> Mail | None:
    """A mail of parts again with only `parts` (those still due when it leaves): a digest stays a
    digest; any other becomes what its parts make (`merged`)."""
    return digest(parts, mail.to, domain) if mail.kind == "digest" else merged(parts, mail.to, domain)


def _decision_facts(view: dict[str, Any], pending: dict[str, Any], table: Table, to: Recipient,
                    links: MailLinks, now: datetime, default_move: Move | None) -> dict[str, Any]:
    """The facts of a decision mail: the decision in words, the deadline, the default, and the game's
    own facts (`Mails.decision`: what the reader has, his board)."""
    game = _check(view, table)
    if pending["seat"] != to.seat:
        raise ValueError(f"seat {pending['seat']}'s decision mailed to seat {to.seat}")
    due = deadlines.parse(pending["deadline_at"])
    return {
        **frame(table, to, links, game),
        **_mails(game).decision(view, to.seat, pending, table.names),
        "kind": pending["kind"],
        "pending": asking(game, view, pending),
        "deadline": phrases.clock(due, to.time_zone),
        "relative": phrases.relative(due, now),
        "default": game.describe(default_move) if default_move else None,
    }


_ANSWERS: dict[str, Callable[[Outcome], str]] = {
    "done": lambda outcome: "Done: " + "; ".join(outcome.get("done") or ["nothing"]),
    "refused": lambda outcome: "Not played: " + (outcome.get("line") or "your reply")[:60],
    "stale": lambda outcome: "Not played: your decision had moved on",
    "help": lambda outcome: "The commands you can send",
    "closed": lambda outcome: "Not played: the game is not running",
    "not_yours": lambda outcome: "Not played: a reply for your seat from another address",
    "unverified": lambda outcome: "Not played: a reply in your name that could not be verified",
    "leave": lambda outcome: "Do you want to leave this game? Please confirm",
    "said": lambda outcome: "Posted: your message" if outcome.get("said") else "Not posted: your message",
    "vacation": lambda outcome: "Welcome back" if outcome.get("back") else "Your time off",
}


def answer(view: dict[str, Any], pending: dict[str, Any] | None, table: Table, to: Recipient, links: MailLinks,
           now: datetime, outcome: Outcome, reply: Reply | None = None) -> Mail:
    """The answer to a player's reply: what was played (or why nothing was), his situation now from his
    own view (where he stands, in the words of a game with mails of its own), and, with `reply`, the
    commands he may send next. It threads under his mail."""
    game = _check(view, table)
    facts = {
        **frame(table, to, links, game),
        "standing": _mails(game).standing(view, to.seat),
        "outcome": {"done": [], "reason": None, "line": None, "ignored": [], "settled": [], "said": [], "unsaid": [],
                    "vacation": None, **outcome},
        "situation": _waiting(game, view, pending, to, now),
        "reply": reply,
    }
    decision = (to.seat, pending["since"]) if reply is not None and pending is not None and "since" in pending else None
    return game_mail(f"reply_{outcome['kind']}", _ANSWERS[outcome["kind"]](outcome), facts, table, to, links,
                 reply=reply, decision=decision, answering=outcome.get("message_id"), template="answer",
                 automatic=True)


def welcome(view: dict[str, Any], pending: list[dict[str, Any]], table: Table, to: Recipient, links: MailLinks,
            now: datetime, after: str | None = None, reply: Reply | None = None) -> Mail:
    """For a player who has just taken over a seat of a game under way: where the game stands (round,
    phase, his cash and prestige, the standings, whose decision it is and until when) from his own
    view, and his links; his seat page shows the rest of his private part. `after` names the player
    whose seat it was, `pending` is the game's pending decisions (his own with its deadline)."""
    game = _check(view, table)
    own = next((d for d in pending if d["seat"] == to.seat), None)
    waiting = listing(list(dict.fromkeys(table.names[d["seat"]] for d in pending if d["seat"] != to.seat)))
    facts = {
        **frame(table, to, links, game),
        "lines": presentation_of(game).decision_lines(view, to.seat, own, table.names) if own else [],
        **_mails(game).welcome(view, to.seat, table.names),
        "seat": to.seat, "after": after, "decision": _waiting(game, view, own, to, now), "waiting": waiting,
        "reply": reply,
    }
    return game_mail("welcome", f"Welcome: you now play seat {to.seat + 1}", facts, table, to, links, reply=reply,
                     template=_own_template(game, "welcome"))


def notice_part(view: dict[str, Any], timed_out: dict[str, Any], label: str | None, misses: dict[str, Any],
                table: Table, to: Recipient, links: MailLinks, now: datetime,
                pending: dict[str, Any] | None = None, with_decision: bool = False) -> Part:
    """What a deadline played for the seat (`told.record`, the move's `label`), as a mail shows it: the
    decision it answered, who chose the move (the default or the stand-in), where the seat stands with
    its missed decisions (`told.misses`), and what waits for him now (`pending`, his own decision, unless
    it is mailed `with_decision`, as the part beside it). Kind `standin` when this timeout made the
    stand-in take over, else `defaulted`; rendered from his own view, as every seat's mail."""
    game = _check(view, table)
    standing = _mails(game).standing(view, to.seat)  # refused from any view but the seat's own
    started = bool(misses["standin"]) and misses["standin_since"] == timed_out["at"]
    following = None if with_decision else _waiting(game, view, pending, to, now)
    facts = {**frame(table, to, {key: value for key, value in links.items() if key != "one_click"}, game),
             "standing": standing,
             "asked": said(game, timed_out["kind"]) if timed_out.get("kind") else "",
             "when": phrases.clock(deadlines.parse(timed_out["at"]), to.time_zone), "by": timed_out["by"],
             "label": label, "started": started, "next": following, "with_decision": with_decision,
             **{key: misses[key] for key in ("missed", "standin", "before_standin", "before_removal")}}
    if started:
        summary = "The stand-in answers for you from now on"
    elif timed_out["by"] != "default":
        summary = "Time ran out: the stand-in played for you"
    else:
        summary = "Time ran out: Palazzo played for you"
    return {"kind": "standin" if started else "defaulted", "game": table.game_id, "seat": to.seat,
            "holder": to.holder, "since": timed_out.get("since"), "summary": summary, "facts": facts}


def notice_mail(notices: list[Part], to: str, domain: str, talk: list[Part] = ()) -> Mail:
    """What a game's deadlines played for one seat, as a mail of its own in the game's thread (with the
    game's messages due at the same time after it); a reply to it reaches nobody."""
    last = notices[-1]
    facts = last["facts"]
    subject = _subject(last["summary"], _title_of(last))
    context = {**facts, "subject": subject, "part": None, "notices": [n["facts"] for n in notices],
               "talk": [p["facts"] for p in talk]}
    return Mail(to=to, subject=subject, text=_text("decision", context), html=_html("decision", context),
                headers=headers.build(domain, last["game"], facts["unsubscribe"]), kind=last["kind"],
                game=last["game"], seat=last["seat"], holder=last["holder"], since=last["since"],
                parts=[*notices, *talk] if talk or len(notices) > 1 else [])


def grace(view: dict[str, Any], pending: dict[str, Any], table: Table, to: Recipient, links: MailLinks,
          now: datetime, hours: int, default_move: Move | None = None, reply: Reply | None = None) -> Mail:
    """To a player whose deadline passed and who got the game's one grace instead of the default move:
    until when he has (in his zone), that it comes once, and what will be played then. Made for his
    decision (`since`), so that it leaves only while the decision is still his."""
    facts = {**_decision_facts(view, pending, table, to, links, now, default_move), "hours": hours, "reply": reply}
    decision = (pending["seat"], pending["since"]) if reply is not None and "since" in pending else None
    mail = game_mail("grace", f"Your deadline passed: you have until {facts['deadline']}, once", facts, table, to,
                 links, reply=reply, decision=decision)
    return replace(mail, since=pending.get("since"))


def paused(table: Table, to: Recipient, links: MailLinks, now: datetime, until: datetime) -> Mail:
    """To everyone at the table: the host paused the game, until when, and what that does to deadlines."""
    facts = {**frame(table, to, links), "until": phrases.clock(until, to.time_zone),
             "relative": phrases.relative(until, now)}
    return game_mail("paused", f"The host paused the game until {facts['until']}", facts, table, to, links)


def resumed(view: dict[str, Any], pending: dict[str, Any] | None, table: Table, to: Recipient, links: MailLinks,
            now: datetime, moved: int) -> Mail:
    """To everyone at the table: the game goes on, every deadline moved later by `moved` seconds, and
    his own decision (if one waits for him) with its deadline now."""
    game = _check(view, table)
    facts = {**frame(table, to, links, game), "moved": _span(moved), "decision": _waiting(game, view, pending, to, now)}
    return game_mail("resumed", "The game goes on", facts, table, to, links)


def _span(seconds: int) -> str:
    """"2 days 3 hours", "5 hours 10 minutes", "40 minutes": a pause's length, to the minute."""
    minutes = max(0, round(seconds / 60))
    days, hours, minutes = minutes // 1440, minutes // 60 % 24, minutes % 60
    said = [_plural(count, unit, unit + "s") for count, unit in ((days, "day"), (hours, "hour"), (minutes, "minute"))
            if count]
    return " ".join(said[:2]) or "less than a minute"


def seat_left(to: str, name: str, game_id: str, title: str, why: str, reason: str | None, watch_url: str,
              domain: str, answering: str | None = None) -> Mail:
    """To a player whose seat was taken from him (he left, the host removed him, or he missed too many
    decisions): what happened, that nothing more comes to him about the game and where to watch it.
    An account mail, not a seat's: he holds the seat no more, and it must leave all the same."""
    facts = {"name": name, "game_id": game_id, "title": title, "why": why, "reason": reason, "watch_url": watch_url}
    subject = {"left": "You have left the game", "removed": "The host has removed you from the game",
               "missed": "You were removed from the game after missing decisions"}[why]
    context = {**facts, "subject": _subject(subject, title), "one_click": [], "seat_url": None,
               "unsubscribe": None}
    return Mail(to=to, subject=context["subject"], text=_text("seat_left", context), html=_html("seat_left", context),
                headers=headers.build(domain, game_id, answering=answering, automatic=answering is not None),
                kind="seat_left", game=game_id)


def merged(parts: list[Part], to: str, domain: str) -> Mail | None:
    """What waited for one player in the merge window, as one mail. Parts of one game make that
    game's mail: its decision's (with its messages after it), or a talk mail of messages alone.
    Parts of several games (or several decisions) make one document rendered from the parts' facts,
    each decision with its own one-click answers and reply address and the messages after them; it
    threads with no single game and carries no Reply-To. No parts, no mail."""
    talk = [part for part in parts if part["kind"] in TALK_KINDS]
    notices = [part for part in parts if part["kind"] in NOTICE_KINDS]
    decisions = [part for part in parts if part["kind"] not in TALK_KINDS | NOTICE_KINDS]
    one_game = len({part["game"] for part in parts}) == 1
    if not parts:
        return None
    if len(decisions) == 1 and (one_game or not talk and all(n["game"] == decisions[0]["game"] for n in notices)):
        return part_mail(decisions[0], to, domain, talk, notices)
    if not decisions and one_game:
        return notice_mail(notices, to, domain, talk) if notices else talk_mail(talk, to, domain)
    messages = _plural(len(talk), "message", "messages")
    if decisions:
        subject = (_plural(len(decisions), "decision", "decisions") + (f" and {messages}" if talk else "")
                   + " wait for you · Palazzo")
    elif notices:
        subject = "Played for you at the deadline" + (f", and {messages}" if talk else "") + " · Palazzo"
    else:
        subject = f"{messages} at your tables · Palazzo"
    unsubscribe = (decisions or parts)[0]["facts"]["unsubscribe"]
    waiting = {(p["game"], p["seat"]) for p in decisions}
    context = {"subject": subject, "parts": [{"subject": _subject(p["summary"], _title_of(p)), "facts": p["facts"]}
                                             for p in decisions],
               "notices": [{"subject": _subject(n["summary"], _title_of(n)), "facts": n["facts"],
                            "joined": (n["game"], n["seat"]) in waiting} for n in notices],
               "talk": [p["facts"] for p in talk], "one_click": [], "seat_url": None, "unsubscribe": unsubscribe,
               "tables": [{"game_name": name, "seat_url": url} for name, url in
                          {p["facts"]["game_name"]: p["facts"]["seat_url"] for p in talk
                           if p["facts"]["seat_url"]}.items()]}
    return Mail(to=to, subject=subject, text=_text("merged", context), html=_html("merged", context),
                headers=headers.build(domain, None, unsubscribe), kind="merged", parts=list(parts))


def _title_of(part: Part) -> str:
    """The title of a part's game; a part held in a send job from before titles were kept names its id."""
    return part["facts"].get("title") or f"game {part['game']}"

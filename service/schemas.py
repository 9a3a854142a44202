"""Request and response schemas: strict on the way in (unknown fields and floats are refused)."""
from __future__ import annotations

from email_validator import EmailNotValidError, validate_email
from flask import current_app
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from engine.bots import BOTS
from service import titles, zones
from service.games import STAND_IN
from service.preferences import MAIL_CHOICES, MOST_REMINDERS, QUIET_RULE, RHYTHM_CHOICES, STEP_RULE, TALK_CHOICES
from service.status import Status
from service.vocabulary import (Choice, Deadlines, EventDoc, GameDoc, GameName, GameTerm, MoveField, MoveFields,
                                MovePart, StrictBoolean)

STATUSES = [status.value for status in Status]
DEADLINE_SECONDS = (1, 30 * 24 * 3600)
SEAT_NUMBER = ("The seat's number from 0, as the API counts seats everywhere (paths too); mails and pages "
               "number seats from 1 for people, so seat 0 is their seat 1.")
PRINTABLE = validate.Regexp(r"^[^\x00-\x1f\x7f-\x9f]*$", error="No control characters.")


def Int(**kwargs) -> fields.Integer:
    return fields.Integer(strict=True, **kwargs)


def always_present(*optional: str):
    """Mark every field of a response schema required but `optional` ones: the answer always has
    it, so a generated client types it plainly instead of as maybe-unset."""
    def mark(schema: type[Schema]) -> type[Schema]:
        for name, field in schema._declared_fields.items():
            field.required = name not in optional
        return schema
    return mark


@always_present("current_version", "retry_after", "errors")
class ProblemSchema(Schema):
    """RFC 9457 problem details, with a stable machine `code`."""

    type = fields.String()
    title = fields.String()
    status = Int()
    code = fields.String(required=True, metadata={"description": "Stable machine code (listed in full by service.spec)."})
    detail = fields.String()
    current_version = Int()
    retry_after = Int()
    errors = fields.Dict()


class Title(fields.String):
    """A game's title as its host types it, trimmed, and checked by `titles.fault`."""

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs).strip()
        fault = titles.fault(text)
        if fault:
            raise ValidationError(fault)
        return text


ADDRESS_RULE = ("Checked by email-validator without DNS: special-use and reserved domains (.test, "
                "localhost, IP literals) and quoted local parts are refused with 422 invalid_request.")


class Address(fields.String):
    """An email address, checked for syntax by email-validator (no DNS lookups) and normalized."""

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return validate_email(text, check_deliverability=False).normalized
        except EmailNotValidError as error:
            raise ValidationError(str(error)) from None


NAME_RULES = [validate.Length(min=1, max=60), PRINTABLE]


class SeatIn(Schema):
    """A seat: a player (a name, perhaps an address), a bot, or open (`{"open": true}`, nothing else)."""

    name = fields.String(validate=NAME_RULES, metadata={"description": "Required unless the seat is open."})
    email = Address(load_default=None, allow_none=True, validate=validate.Length(max=254),
                    metadata={"format": "email", "description": "The player gets a sign-in link here, and "
                                                                  "only that link gives his seat's token. " + ADDRESS_RULE})
    bot = Choice("Bot", BOTS, load_default=None, allow_none=True,
                 metadata={"description": "A bot plays this seat; null or left out for a human."})
    open = StrictBoolean(load_default=False, metadata={"description": (
        "An open seat, with no name, address or bot: whoever opens the game's join link (after signing in "
        "by mail) may take it. A game cannot start while a seat is open. Given to PUT /games/{id}/seats/{seat} "
        "before the start, it removes the seat's player.")})

    @validates_schema
    def _named_or_open(self, data, **kwargs) -> None:
        if data.get("open"):
            given = [name for name in ("name", "email", "bot") if data.get(name) is not None]
            if given:
                raise ValidationError(f"An open seat has no {', '.join(given)}.", "open")
        elif data.get("name") is None:
            raise ValidationError("Missing data for required field (unless the seat is open).", "name")


def first_served() -> str:
    """A game created without a name is the first of PALAZZO_GAMES."""
    return current_app.extensions["palazzo.games"][0].name


class GameIn(Schema):
    game = GameName(load_default=first_served, metadata={"description": "One of the served games."})
    seats = fields.List(fields.Nested(SeatIn), required=True, validate=validate.Length(min=3, max=5),
                        metadata={"description": "The players as listed; with shuffle_seats, seat i is the "
                                                 "player listed at setup.seat_order[i]."})
    options = GameDoc("options", load_default=dict)
    deadlines = Deadlines(
        *DEADLINE_SECONDS, load_default=dict,
        metadata={"description": "Seconds allowed per decision kind (or deadline class): default 24 h, bids 12 h; "
                                 "at least the server's PALAZZO_MIN_DEADLINE (60 s unless set lower)."},
    )
    missed_turns = Int(load_default=3, validate=validate.Range(min=1, max=20),
                       metadata={"description": "Timeouts in a row on real choices after which the stand-in bot "
                                                "(`stand_in`) plays the seat until its player moves again."})
    stand_in = Choice("Bot", BOTS, load_default=STAND_IN, metadata={
        "description": "The bot that stands in, at his deadlines, for a player who missed `missed_turns` "
                       "decisions in a row (until he moves again), and for a seat whose player left (until "
                       "someone takes it)."})
    remove_after = Int(load_default=None, allow_none=True, validate=validate.Range(min=1, max=50),
                       metadata={"description": "Timeouts in a row on real choices (counted as for `missed_turns`) "
                                                "after which the player loses his seat: it is open for a substitute "
                                                "and the stand-in plays it meanwhile. Null or left out: never."})
    grace_hours = Int(load_default=None, allow_none=True, validate=validate.Range(min=1, max=72),
                      metadata={"description": "Grace: on each seat's first timeout of a decision with a real "
                                               "choice, the deadline moves this many hours later (once per seat) "
                                               "instead of the default move, and the player is mailed. Null or "
                                               "left out: no grace."})
    vacation_days = Int(load_default=7, validate=validate.Range(min=0, max=30), metadata={
        "description": "Each player's vacation bank at this game, in days: time off he takes in whole hours or days "
                       "(POST /games/{id}/vacation), during which only his deadlines stand still. 0: none."})
    seed = Int(load_default=None, allow_none=True, validate=validate.Range(min=0, max=2**53))
    setup = GameDoc("setup", load_default=None, allow_none=True,
                    metadata={"description": "An explicit setup instead of one drawn from the seed."})
    title = Title(load_default=None, allow_none=True, validate=validate.Length(min=1, max=titles.LONGEST),
                  metadata={"description": "The game's name in every mail, page and list. Default: \"<name>'s "
                                           "game\" with the name of the seat the caller's player token holds, "
                                           "or without one of the first person listed; else \"A game of "
                                           "<game>\". " + titles.RULE})
    host_email = Address(load_default=None, allow_none=True, validate=validate.Length(max=254),
                         metadata={"format": "email", "description": (
                             "The host's own address, when he calls without a player token: a host link is "
                             "mailed there, and opening it lets him host the game from any browser or a player "
                             "token of that address. Counts as an invitation. " + ADDRESS_RULE)})
    public = StrictBoolean(load_default=False, metadata={"description": (
        "List the game in the lobby (GET /lobby) while a seat is open, with its join link: anyone may join.")})
    start_when_full = StrictBoolean(load_default=False, metadata={"description": (
        "Start the game by itself when the last open seat is taken (or at once, if none is open); "
        "otherwise the host starts it.")})


@always_present()
class SeatLeftOut(Schema):
    name = fields.String(metadata={"description": "The name of the player who left the seat."})
    why = fields.String(validate=validate.OneOf(["left", "removed", "missed"]), metadata={
        "description": "left: he left; removed: the host removed him; missed: he missed remove_after decisions."})
    reason = fields.String(allow_none=True, metadata={"description": "The host's reason, which the table reads."})
    at = fields.String(metadata={"description": "When, UTC ISO time."})


@always_present()
class AwayOut(Schema):
    start = fields.String(attribute="from", data_key="from",
                          metadata={"description": "When he went away, UTC ISO time."})
    until = fields.String(metadata={"description": "When he is due back, UTC ISO time; his deadlines stand still "
                                                   "until then."})


@always_present()
class VacationUseOut(Schema):
    seat = Int(metadata={"description": SEAT_NUMBER})
    holder = Int(metadata={"description": "The seat's holder generation then (0: its first player)."})
    start = fields.String(attribute="from", data_key="from", metadata={"description": "When it began, UTC ISO time."})
    until = fields.String(metadata={"description": "When it was to end, UTC ISO time."})
    asked = Int(metadata={"description": "Hours asked for (and charged to the bank at the start)."})
    hours = Int(allow_none=True, metadata={"description": "Hours it took, rounded up; null while it lasts."})
    ended = fields.String(allow_none=True, metadata={"description": "When it ended; null while it lasts."})
    how = fields.String(allow_none=True, validate=validate.OneOf(["back", "moved", "over", "handed"]), metadata={
        "description": "back: he said so; moved: he moved; over: its time ran out; handed: the seat changed hands. "
                       "Null while it lasts."})


@always_present("email", "bounced")
class SeatOut(Schema):
    seat = Int(metadata={"description": SEAT_NUMBER})
    name = fields.String(allow_none=True, metadata={"description": "The player's name; null for an open seat."})
    open = fields.Boolean(metadata={"description": "Nobody holds the seat: the join link takes it."})
    bot = Choice("Bot", BOTS, allow_none=True, metadata={"description": "The bot that plays this seat, if one does."})
    missed = Int(metadata={"description": "Timeouts in a row on decisions with a real choice."})
    standin = Choice("Bot", BOTS, allow_none=True, metadata={
        "description": "The bot answering at the deadlines of a player who keeps missing his decisions, until he "
                       "moves."})
    bounced = fields.String(allow_none=True, metadata={"description": "Host only: why mail to this address stopped."})
    email = fields.String(allow_none=True, metadata={"description": "Shown to the host only."})
    open = fields.Boolean(metadata={"description": "Nobody holds the seat: its player left or was removed (a "
                                                   "stand-in plays it at its deadlines until someone takes it)."})
    left = fields.Nested(SeatLeftOut, allow_none=True, metadata={
        "description": "Why the seat is open, when its last player left it or was removed; null otherwise."})
    away = fields.Nested(AwayOut, allow_none=True, metadata={
        "description": "While the seat's player is on vacation: since and until when. Null otherwise."})
    vacation_left = Int(metadata={"description": "Hours left in the vacation bank of the seat's player."})


@always_present()
class PendingOut(Schema):
    seat = Int(metadata={"description": SEAT_NUMBER})
    kind = GameTerm("decision_kind")
    deadline = fields.String(allow_none=True)
    deadline_at = fields.String(allow_none=True, metadata={"description": "UTC ISO time; null until started."})
    since = Int(metadata={"description": "The version at which this decision became pending: its id. A move "
                                         "made against this version or a later one answers this decision."})


@always_present()
class YouOut(Schema):
    role = fields.String(validate=validate.OneOf(["seat", "host", "spectator"]))
    seat = Int(allow_none=True, metadata={"description": SEAT_NUMBER + " Null for the host and spectators."})


@always_present()
class UndeliveredOut(Schema):
    at = Int(allow_none=True, metadata={"description": "When it was given up, in seconds since 1970 (UTC); "
                                                        "null for entries kept before times were."})
    seat = Int(allow_none=True, metadata={"description": "The seat it was for, numbered from 0; null for mail to "
                                                        "no seat."})
    to = fields.String()
    kind = fields.String(metadata={"description": "What the mail was, e.g. your_turn."})
    reason = fields.String(metadata={"description": "Why it did not arrive, in our words with the provider's "
                                                    "status code; never the provider's text, which may quote it."})


@always_present()
class ReplyNoteOut(Schema):
    at = Int(metadata={"description": "When the reply was read, in seconds since 1970 (UTC)."})
    seat = Int(allow_none=True, metadata={"description": "The seat it was played for, numbered from 0; null when "
                                                        "it reached none."})
    status = fields.String(metadata={"description": "What became of it, e.g. played or refused."})


@always_present("undelivered", "replies")
class GameOut(Schema):
    id = fields.String()
    game = fields.String()
    title = fields.String(metadata={"description": "The game's name, as people read it everywhere."})
    status = fields.String(validate=validate.OneOf(STATUSES))
    version = Int()
    created_at = fields.String()
    options = GameDoc("normalized_options")
    deadlines = Deadlines(*DEADLINE_SECONDS, metadata={"description": "Seconds allowed per decision kind or "
                                                                     "deadline class, as the game was created."})
    seats = fields.List(fields.Nested(SeatOut))
    pending = fields.List(fields.Nested(PendingOut))
    view = GameDoc("view", metadata={"description": "The game as the caller may see it."})
    result = GameDoc("result", allow_none=True, metadata={"description": "Scores and ranking once over."})
    you = fields.Nested(YouOut)
    paused_until = fields.String(allow_none=True)
    pauses_left = Int()
    grace_hours = Int(allow_none=True, metadata={"description": "The grace a seat gets once on a missed "
                                                                "deadline, in hours; null: none."})
    stand_in = Choice("Bot", BOTS, metadata={"description": "The bot that stands in for a player who keeps "
                                                            "missing his decisions, or left (the game's setting; "
                                                            "`seats[].standin` says where it plays now)."})
    public = fields.Boolean(metadata={"description": "Listed in the lobby while a seat is open."})
    start_when_full = fields.Boolean(metadata={"description": "Starts by itself when the last open seat is taken."})
    vacation_days = Int(metadata={"description": "Each player's vacation bank at this game, in days."})
    vacations = fields.List(fields.Nested(VacationUseOut), metadata={
        "description": "Every vacation taken at this game, oldest first."})
    undelivered = fields.List(fields.Nested(UndeliveredOut), metadata={
        "description": "Host only: mail that did not reach a player; never its subject or text."})
    replies = fields.List(fields.Nested(ReplyNoteOut), metadata={
        "description": "Host only: the last mailed replies and what became of each; never their text."})


@always_present()
class SeatTokenOut(Schema):
    seat = Int(metadata={"description": SEAT_NUMBER})
    token = fields.String()


@always_present()
class TokensOut(Schema):
    host = fields.String()
    seats = fields.List(fields.Nested(SeatTokenOut),
                        metadata={"description": "Tokens of the seats without an address, to pass on by hand."})


@always_present()
class JoinLinkOut(Schema):
    link = fields.String(allow_none=True, metadata={
        "description": "The join link's signed value, for POST /games/{id}/join and POST /sign-in; null when "
                       "the host turned it off. Each answer signs it anew (valid 30 days); the host's new link "
                       "or turning it off ends every earlier one."})
    url = fields.String(allow_none=True, metadata={"description": "The join page for people: sign in, pick a "
                                                                  "name, take a seat."})
    open_seats = Int(metadata={"description": "How many seats are open now."})
    joinable = fields.Boolean(metadata={"description": "Whether the link takes anyone now: it is on, a seat is "
                                                       "open and the game is not over."})


@always_present()
class CreatedOut(Schema):
    game = fields.Nested(GameOut)
    tokens = fields.Nested(TokensOut, metadata={"description": "Shown once; only hashes are kept."})
    join = fields.Nested(JoinLinkOut, metadata={"description": "The game's join link, for its open seats."})


class JoinIn(Schema):
    link = fields.String(required=True, validate=validate.Length(min=1, max=500),
                         metadata={"description": "The join link's signed value (its `link=` part)."})
    name = fields.String(required=True, validate=[validate.Length(min=1, max=60), validate.Regexp(
                             r"^[^\x00-\x1f\x7f-\x9f]*[^\x00-\x20\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$",
                             error="No control characters, and not only spaces.")],
                         metadata={"description": "The name the table reads for you; no other seat's."})
    seat = Int(load_default=None, allow_none=True, validate=validate.Range(min=0, max=99), metadata={
        "description": "The open seat to take (0-based); left out, the first open one."})


@always_present()
class LobbySeatOut(Schema):
    seat = Int(metadata={"description": "0-based; people read seat numbers from 1."})
    name = fields.String(allow_none=True, metadata={"description": "Null for an open seat."})
    bot = Choice("Bot", BOTS, allow_none=True, metadata={"description": "The bot that plays this seat, if one does."})
    open = fields.Boolean()


@always_present()
class LobbyGameOut(Schema):
    id = fields.String()
    title = fields.String()
    game = fields.String()
    status = fields.String(validate=validate.OneOf(STATUSES))
    created_at = fields.String()
    options = GameDoc("normalized_options")
    deadlines = Deadlines(*DEADLINE_SECONDS, metadata={"description": "Seconds allowed per decision kind or "
                                                                     "deadline class (unset: the defaults)."})
    missed_turns = Int()
    stand_in = Choice("Bot", BOTS, metadata={"description": "The bot that stands in for a player who keeps "
                                                            "missing his decisions, or left."})
    start_when_full = fields.Boolean()
    open_seats = Int()
    seats = fields.List(fields.Nested(LobbySeatOut), metadata={"description": "Who sits where, open seats too."})
    join = fields.Nested(JoinLinkOut)


@always_present()
class LobbyOut(Schema):
    games = fields.List(fields.Nested(LobbyGameOut), metadata={"description": "Newest first."})
    next = fields.String(allow_none=True, metadata={"description": "Pass as ?after= for the next page; null "
                                                                   "on the last."})


class LobbyQuery(Schema):
    after = fields.String(load_default=None, validate=validate.Length(max=60),
                          metadata={"description": "The `next` of the page before."})
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=50))


@always_present()
class FillChoice(Schema):
    value = GameTerm("fill_value", metadata={"description": "An item the field may hold (a bonus card)."})
    adds = Int(metadata={"description": "What it adds to the sum the field must reach (work value)."})


@always_present()
class FillOut(Schema):
    """A field of the listed move the seat fills in: the move stays legal with `field` set to any subset
    of the choices' values (each at most once, any order) whose `adds`, with `base`, reach `least`."""

    field = GameTerm("fill_field", metadata={"description": "The move's list field to fill in, e.g. bonus_cards."})
    choices = fields.List(fields.Nested(FillChoice))
    base = Int(metadata={"description": "The sum with nothing in the field (a work's value without cards)."})
    least = Int(metadata={"description": "What the sum must reach (the round's minimum work value)."})
    measure = fields.String(metadata={"description": "What is summed, for people (\"work value\")."})


@always_present()
class LabelledMove(Schema):
    move = MoveField(metadata={"description": "Legal exactly as listed."})
    label = fields.String()
    fill = fields.List(fields.Nested(FillOut), metadata={
        "description": "Fields of `move` the seat may fill in otherwise (empty for most moves): a publish is "
                       "listed once per profession, and this says which bonus cards may go with it."})


@always_present()
class FreeMove(Schema):
    type = fields.String()
    doc = fields.String()


@always_present()
class LegalMovesOut(Schema):
    version = Int()
    seat = Int(metadata={"description": SEAT_NUMBER})
    pending = fields.List(fields.Nested(PendingOut))
    moves = fields.List(fields.Nested(LabelledMove))
    free = fields.List(fields.Nested(FreeMove))


class MoveIn(Schema):
    move = MoveField(required=True)
    version = Int(metadata={"description": "The version the move was made against (or send If-Match)."})


@always_present("timeout")
class EventOut(Schema):
    seq = Int()
    version = Int()
    at = fields.String()
    by = Int(allow_none=True, metadata={"description": "The seat that moved (numbered from 0); null for the host "
                                                       "or the service."})
    timeout = fields.Boolean()
    event = EventDoc()


@always_present()
class MoveOut(Schema):
    """Kept small so that submitting is cheap: GET the game (ETag = version) for the full view."""

    version = Int(metadata={"description": "The game's version after this move (unchanged by a private one)."})
    label = fields.String()
    events = fields.List(EventDoc(), metadata={"description": "What the move did, redacted for you."})
    status = fields.String(validate=validate.OneOf(STATUSES))
    pending = fields.List(fields.Nested(PendingOut))


class EventsQuery(Schema):
    """Query strings are text, so these integers are parsed (a float like 2.5 is still refused)."""

    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**53))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=500))
    wait = fields.Integer(load_default=0, validate=validate.Range(min=0, max=30),
                          metadata={"description": "Seconds to wait for an event after `after` (long-poll)."})


@always_present()
class EventPageOut(Schema):
    events = fields.List(fields.Nested(EventOut))
    next_after = Int(metadata={"description": "Pass as ?after= to resume."})
    more = fields.Boolean()


class MessagesQuery(EventsQuery):
    """The same cursor as the feed's: `after` a seq, at most `limit` messages, `wait` to long-poll."""

    wait = fields.Integer(load_default=0, validate=validate.Range(min=0, max=30),
                          metadata={"description": "Seconds to wait for a message after `after` (long-poll)."})


class MessageIn(Schema):
    text = fields.String(required=True, metadata={
        "minLength": 1, "maxLength": 2000,
        "description": "1 to 2,000 characters of plain text (never read as HTML); newlines are kept, other "
                       "control characters refused, blank edges trimmed."})
    to = Int(load_default=None, allow_none=True, validate=validate.Range(min=0, max=2**31),
             metadata={"description": "The seat (0-based) a private message goes to, seen by it and its sender only; "
                                      "null or left out for the whole table."})


@always_present()
class MessageOut(Schema):
    seq = Int(metadata={"description": "Its place in the game's talk, from 1; pass it as ?after= to resume."})
    at = fields.String(metadata={"description": "When it was written (UTC ISO time)."})
    by = Int(allow_none=True, metadata={"description": "The seat (0-based) that wrote it; null for the host."})
    name = fields.String(metadata={"description": "Its writer's name when he wrote it (\"the host\" for the host)."})
    to = Int(allow_none=True, metadata={"description": "The seat a private message went to; null for the table."})
    text = fields.String(allow_none=True, metadata={
        "description": "Plain text; null when the host hid the message (only its writer still reads it)."})
    hidden = fields.Boolean(metadata={"description": "The host hid it: it stays in the record without its text."})


@always_present()
class MessagePageOut(Schema):
    messages = fields.List(fields.Nested(MessageOut), metadata={
        "description": "The caller's share: messages to the table, and private ones he wrote or was sent."})
    next_after = Int(metadata={"description": "Pass as ?after= to resume (it counts messages you may not see too)."})
    more = fields.Boolean()



@always_present()
class RecordSeatOut(Schema):
    seat = Int(metadata={"description": SEAT_NUMBER})
    name = fields.String(metadata={"description": "The name people read for the seat; never an address."})


@always_present()
class RecordMoveOut(Schema):
    seat = Int(metadata={"description": "The seat that moved (numbered from 0)."})
    move = MoveField()
    at = fields.String(allow_none=True, metadata={"description": "When it was made (UTC ISO time)."})


@always_present()
class RecordOut(Schema):
    """A game's portable record; a finished game's is a file `palazzo replay` plays to the same result."""

    format = fields.String(validate=validate.OneOf(["palazzo-record-1"]))
    game = fields.String()
    rules = Int(metadata={"description": "The rules version the game plays by, from its start to its end."})
    options = GameDoc("normalized_options")
    title = fields.String()
    seats = fields.List(fields.Nested(RecordSeatOut))
    setup = GameDoc("setup", allow_none=True, metadata={
        "description": "The game's setup (deck orders, hidden cards): null until the game is finished, "
                       "and for a cancelled game."})
    moves = fields.List(fields.Nested(RecordMoveOut), allow_none=True, metadata={
        "description": "Every move, oldest first: null until the game is finished (a move may hide a "
                       "standing order or a sealed bid), and for a cancelled game."})
    messages = fields.List(fields.Nested(MessageOut), metadata={
        "description": "The table talk the caller may read: to the table, and private ones he wrote or was sent."})
    status = fields.String(validate=validate.OneOf(STATUSES))
    result = GameDoc("result", allow_none=True, metadata={"description": "Scores and ranking once finished."})

@always_present()
class TurnOut(Schema):
    game_id = fields.String()
    game = fields.String()
    title = fields.String(metadata={"description": "The game's name, as people read it everywhere."})
    seat = Int(metadata={"description": SEAT_NUMBER})
    kind = GameTerm("decision_kind")
    deadline_at = fields.String(allow_none=True)
    version = Int()


@always_present()
class TurnsOut(Schema):
    turns = fields.List(fields.Nested(TurnOut))


@always_present("deadline_at")
class WaitingOut(Schema):
    seat = Int(metadata={"description": SEAT_NUMBER})
    name = fields.String(metadata={"description": "The seat's player."})
    kind = GameTerm("decision_kind")
    deadline_at = fields.String(allow_none=True, metadata={"description": "UTC ISO time."})
    yours = fields.Boolean(metadata={"description": "Whether it is the caller's own decision."})


@always_present()
class MyResultOut(Schema):
    rank = Int(allow_none=True, metadata={"description": "The caller's place, 1 for a win (a shared place "
                                                         "repeats); null for a host without a seat."})
    score = Int(allow_none=True, metadata={"description": "The caller's score in the game's own points "
                                                          "(prestige points); null without a seat."})
    winners = fields.List(fields.String(), metadata={"description": "The names of the seats ranked first."})


@always_present()
class MyGameOut(Schema):
    game_id = fields.String()
    game = fields.String()
    title = fields.String(metadata={"description": "The game's name, as people read it everywhere."})
    status = fields.String(validate=validate.OneOf(STATUSES))
    version = Int()
    created_at = fields.String(allow_none=True)
    seat = Int(allow_none=True, metadata={"description": SEAT_NUMBER + " Null in a game the caller only hosts."})
    name = fields.String(allow_none=True, metadata={"description": "The caller's seat's name."})
    host = fields.Boolean(metadata={"description": "Whether the caller hosts the game."})
    players = fields.List(fields.String(), metadata={"description": "Every seat's name, in seat order."})
    waiting = fields.List(fields.Nested(WaitingOut), metadata={
        "description": "The decisions the game waits on (while it runs), the caller's own marked `yours`."})
    your_turn = fields.Boolean(metadata={"description": "Whether one of `waiting` is the caller's."})
    result = fields.Nested(MyResultOut, allow_none=True, metadata={
        "description": "Once the game is finished: the caller's rank and score, and who won."})
    archive = fields.String(allow_none=True, metadata={
        "description": "Once the game is finished: the path, from the server's root, of its archive page (the "
                       "final standings and a replay viewer, one move a step); null before."})


@always_present()
class MyGamesOut(Schema):
    games = fields.List(fields.Nested(MyGameOut), metadata={
        "description": "Games waiting for the caller first (most urgent first), then running, paused, open, "
                       "finished and cancelled ones, newest first within each."})
    total = Int(metadata={"description": "How many games the caller has in all."})
    next_offset = Int(allow_none=True, metadata={"description": "Pass as ?offset= for the next page; null "
                                                                "on the last one."})


class MyGamesQuery(Schema):
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=100_000))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=100))


class TitleIn(Schema):
    title = Title(required=True, validate=validate.Length(min=1, max=titles.LONGEST),
                  metadata={"description": titles.RULE})


class OrdersIn(Schema):
    """The fields of the game's `set_orders` move (checked against its vocabulary once the game is known)."""

    limits = MovePart("set_orders", "limits", keys=fields.String(), values=Int(validate=validate.Range(min=0)),
                      required=True, metadata={"description": "Highest bid per auction item."})
    step_out_otherwise = StrictBoolean(required=True)


@always_present()
class OrdersOut(Schema):
    version = Int()
    orders = MoveFields("set_orders", allow_none=True, metadata={
        "description": "The caller's standing orders: the fields of his last set_orders, and whatever else the "
                       "game keeps with them (such as the round they are for); null when he has none."})


class TimeZone(fields.String):
    """An IANA time zone name, such as Europe/Rome: deadlines in mails are shown in it."""

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if not zones.known(text):
            raise ValidationError("Not a known time zone (IANA name, e.g. Europe/Rome).")
        return text


MAIL_WORDS = ("The game's own mail: all; decisions (only his own decisions and reminders, no round results or "
              "scores); none (no mail at all, table talk included).")
TALK_WORDS = ("Per game (by id), how its table talk comes by mail: each (one mail per message, joined to a decision "
              "mail due at the same time), digest (one mail a day with the messages since the last), none.")


def TalkChoices(**kwargs) -> fields.Dict:
    return fields.Dict(keys=fields.String(validate=validate.Length(min=1, max=40)),
                       values=fields.String(validate=validate.OneOf(TALK_CHOICES)), **kwargs)


RHYTHM_WORDS = ("each: every decision mailed at once; digest: no decision mail at once, but one mail a day at "
                "digest_hour (his time zone) with every game waiting on him, new messages of games whose talk he "
                "takes as a digest, and the round results since the last one.")
REMINDER_WORDS = (f"Reminders before each deadline, at most {MOST_REMINDERS} steps, each mailed once while the "
                  f"decision is still his; an empty list for none. Refused with 422 bad_reminders: {STEP_RULE}.")
STEP_PATTERN = r"^([1-9][0-9]?%|[1-9][0-9]{0,3}[mhd])$"


def Reminders(**kwargs) -> fields.List:
    return fields.List(fields.String(validate=validate.Length(min=1, max=8), metadata={"pattern": STEP_PATTERN,
                                                                                       "example": "50%"}),
                       metadata={"description": REMINDER_WORDS, "example": ["50%", "80%", "1h"]}, **kwargs)


class QuietHours(Schema):
    """From when to when (his wall time, in his time zone) no deadline of his falls: one inside moves to `to`."""

    start = fields.String(required=True, data_key="from", attribute="from", validate=validate.Length(min=1, max=5),
                          metadata={"pattern": r"^([01][0-9]|2[0-3]):[0-5][0-9]$", "example": "23:00"})
    end = fields.String(required=True, data_key="to", attribute="to", validate=validate.Length(min=1, max=5),
                        metadata={"pattern": r"^([01][0-9]|2[0-3]):[0-5][0-9]$", "example": "07:00"})


def Quiet(**kwargs) -> fields.Nested:
    return fields.Nested(QuietHours, allow_none=True, metadata={
        "description": f"His quiet hours, or null for none. Refused with 422 bad_quiet_hours: {QUIET_RULE}."}, **kwargs)


class GameSettings(Schema):
    """A game's own mail settings, over his general ones; left out: his general one holds."""

    rhythm = fields.String(validate=validate.OneOf(RHYTHM_CHOICES), metadata={"description": RHYTHM_WORDS})
    reminders = Reminders()
    mail = fields.String(validate=validate.OneOf(MAIL_CHOICES), metadata={
        "description": "This game's mail: all, decisions, or none (unsubscribed from this game)."})


def GameOverrides(description: str) -> fields.Dict:
    return fields.Dict(keys=fields.String(validate=validate.Length(min=1, max=40)),
                       values=fields.Nested(GameSettings), metadata={"description": description})


def DigestHour(**kwargs) -> fields.Integer:
    return Int(validate=validate.Range(min=0, max=23), metadata={
        "description": "The hour (0-23, his time zone) his daily digest leaves.", "example": 18}, **kwargs)


class SettingsIn(Schema):
    time_zone = TimeZone(validate=validate.Length(min=1, max=64), metadata={"example": "Europe/Rome"})
    mail = fields.String(validate=validate.OneOf(MAIL_CHOICES), metadata={"description": MAIL_WORDS})
    rhythm = fields.String(validate=validate.OneOf(RHYTHM_CHOICES), metadata={"description": RHYTHM_WORDS})
    digest_hour = DigestHour()
    reminders = Reminders()
    quiet = Quiet()
    games = GameOverrides("Per game (by id), its own rhythm, reminders or mail. Only games where the caller holds a "
                          "seat (else 403 not_a_seat); each game given replaces that game's own settings ({} drops "
                          "them), games left out keep theirs.")
    talk = TalkChoices(metadata={"description": TALK_WORDS + " Only games where the caller holds a seat; "
                                                             "games left out keep their choice."})


@always_present()
class SettingsOut(Schema):
    time_zone = fields.String()
    mail = fields.String(validate=validate.OneOf(MAIL_CHOICES), metadata={"description": MAIL_WORDS})
    rhythm = fields.String(validate=validate.OneOf(RHYTHM_CHOICES), metadata={"description": RHYTHM_WORDS})
    digest_hour = DigestHour()
    reminders = Reminders()
    quiet = Quiet()
    games = GameOverrides("Per game (by id), the settings of its own the caller gave it; a game's mail none means "
                          "he unsubscribed from that game.")
    talk = TalkChoices(metadata={"description": TALK_WORDS + " Every game where the caller holds a seat."})


class PauseIn(Schema):
    hours = Int(required=True, validate=validate.Range(min=1, max=168))


@always_present()
class SeatReplacedOut(Schema):
    seat = Int(metadata={"description": SEAT_NUMBER})
    token = fields.String(allow_none=True, metadata={"description": "The new seat's token when it has no address."})
    game = fields.Nested(GameOut)


class VacationIn(Schema):
    hours = Int(metadata={"description": "Time off in whole hours (at least 1); or give `days`.", "minimum": 1})
    days = Int(metadata={"description": "Time off in whole days of 24 hours (at least 1); or give `hours`.",
                         "minimum": 1})


@always_present()
class VacationOut(Schema):
    seat = Int(metadata={"description": SEAT_NUMBER})
    away = fields.Nested(AwayOut, allow_none=True, metadata={"description": "Since and until when he is away; "
                                                                            "null once he is back."})
    hours_left = Int(metadata={"description": "Hours left in his vacation bank at this game."})
    hours = Int(allow_none=True, metadata={"description": "Ending a vacation: the hours it took, rounded up (the "
                                                          "rest went back to the bank). Null when starting one."})
    game = fields.Nested(GameOut, metadata={"description": "The game as the caller sees it now."})


class LeaveIn(Schema):
    confirm = StrictBoolean(load_default=False, metadata={
        "description": "Must be true (else 422 confirm_required, and nothing changes): leaving cannot be undone; "
                       "only the host can give the seat back."})


class ForgetIn(Schema):
    confirm = StrictBoolean(load_default=False, metadata={
        "description": "Must be true (else 422 confirm_required, and nothing changes): the deletion cannot be "
                       "undone."})
    email = Address(load_default=None, allow_none=True, validate=validate.Length(max=254), metadata={
        "format": "email", "description": "The address whose data goes, if the caller names it: it must be his "
                                          "own (else 403 forbidden, and nothing changes)."})


@always_present()
class ForgottenOut(Schema):
    left = Int(metadata={"description": "Seats of games not over that he left by it (each open, its stand-in "
                                        "playing it, for a substitute to take)."})
    games = Int(metadata={"description": "Games his address was taken from (their seats keep his name)."})
    sign_ins = Int(metadata={"description": "Player tokens and browser sessions ended."})
    webhooks = Int(metadata={"description": "Webhooks removed."})
    mail = Int(metadata={"description": "Mails and sign-in links to him that had not left yet, dropped."})


class RemoveIn(Schema):
    reason = fields.String(load_default=None, allow_none=True, validate=[validate.Length(max=500), PRINTABLE],
                           metadata={"description": "Why the player is removed; required, and the table reads it."})


@always_present()
class SeatLeftAnswerOut(Schema):
    seat = Int()
    game = fields.Nested(GameOut, metadata={"description": "The game as the caller sees it now."})


class HostLinkIn(Schema):
    email = Address(required=True, validate=validate.Length(max=254),
                    metadata={"format": "email", "description": "Where to mail the host link. " + ADDRESS_RULE})


class SignInIn(Schema):
    email = Address(required=True, validate=validate.Length(max=254),
                    metadata={"format": "email", "description": ADDRESS_RULE})
    join = fields.String(validate=validate.Length(min=1, max=500), metadata={"description": (
        "A join link's signed value: the link is mailed even to an address that plays nowhere yet (it "
        "counts as an invitation from the caller), and opened in a browser it leads back to the join page.")})


class RedeemIn(Schema):
    link = fields.String(required=True, validate=validate.Length(min=1, max=500))


@always_present()
class PlayerOut(Schema):
    token = fields.String()


@always_present()
class AcceptedOut(Schema):
    status = fields.String()


@always_present()
class SignedInOut(Schema):
    id = fields.String(metadata={"description": "What `DELETE /me/tokens/{token_id}` takes; never the token itself."})
    kind = fields.String(metadata={"enum": ["api", "browser"], "description": "A player token, or a browser session."})
    created = fields.String(allow_none=True, metadata={"format": "date-time", "description": "Unknown (null) for a "
                            "token made before this was kept."})
    last_used = fields.String(allow_none=True, metadata={"format": "date-time", "description": (
        "To the day (or half the idle time): a use rewrites it at most that often. It ends the idle time after.")})
    from_ = fields.String(data_key="from", attribute="from", allow_none=True,
                          metadata={"description": "The client address and program it was asked from."})


@always_present()
class SignedInListOut(Schema):
    tokens = fields.List(fields.Nested(SignedInOut))


class AddressIn(Schema):
    email = Address(required=True, validate=validate.Length(max=254),
                    metadata={"format": "email", "description": ADDRESS_RULE})


@always_present()
class AddressChangeOut(Schema):
    status = fields.String(metadata={"enum": ["accepted", "waiting", "changed"], "description": (
        "accepted: both links are mailed; waiting: this end is proved, the other link is still to be "
        "opened; changed: both are, and everything of the old address is the new one's.")})


@always_present()
class HealthOut(Schema):
    status = fields.String()
    redis = fields.String()


WEBHOOK_KINDS = ("your_turn", "your_bid", "message", "round_result", "game_over")


class WebhookIn(Schema):
    url = fields.String(required=True, validate=validate.Length(max=2000),
                        metadata={"description": "An https URL; loopback, private and link-local targets are refused."})
    game = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=64),
                         metadata={"description": "One game (a seat's player or its host), or null for all his games."})
    events = fields.List(fields.String(validate=validate.OneOf(WEBHOOK_KINDS)), load_default=list(WEBHOOK_KINDS),
                         validate=validate.Length(min=1, max=len(WEBHOOK_KINDS)))
    format = fields.String(load_default="json", validate=validate.OneOf(("json", "discord", "slack")),
                           metadata={"description": "json (signed notice), discord (`content`) or slack (`text`)."})


@always_present("secret")
class WebhookOut(Schema):
    id = fields.String()
    url = fields.String()
    game = fields.String(allow_none=True)
    events = fields.List(fields.String())
    format = fields.String()
    enabled = fields.Boolean()
    failures = fields.Integer()
    created = fields.String()
    secret = fields.String(allow_none=True, metadata={"description": "The signing secret: only in the answer that creates it, else null."})


class WebhooksOut(Schema):
    webhooks = fields.List(fields.Nested(WebhookOut))

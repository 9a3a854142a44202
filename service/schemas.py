"""Request and response schemas: strict on the way in (unknown fields and floats are refused)."""
from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.vocabulary import MoveField, StrictBoolean

BOTS = ["random", "greedy"]


def Int(**kwargs) -> fields.Integer:
    return fields.Integer(strict=True, **kwargs)


class ProblemSchema(Schema):
    """RFC 9457 problem details, with a stable machine `code`."""

    type = fields.String()
    title = fields.String()
    status = Int()
    code = fields.String(required=True)
    detail = fields.String()
    current_version = Int()
    retry_after = Int()
    errors = fields.Dict()


class SeatIn(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=60))
    email = fields.Email(load_default=None, allow_none=True)
    bot = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(BOTS))


class OptionsIn(Schema):
    bidding = fields.String(validate=validate.OneOf(["step", "open"]))
    auction_pass = StrictBoolean()


class GameIn(Schema):
    game = fields.String(load_default="princes-of-florence")
    seats = fields.List(fields.Nested(SeatIn), required=True, validate=validate.Length(min=3, max=5))
    options = fields.Nested(OptionsIn, load_default=dict)
    deadlines = fields.Dict(
        keys=fields.String(validate=validate.Length(min=1, max=40)),
        values=Int(validate=validate.Range(min=60, max=30 * 24 * 3600)),
        load_default=dict,
        metadata={"description": "Seconds allowed per decision kind (or deadline class): default 24 h, bids 12 h."},
    )
    seed = Int(load_default=None, allow_none=True, validate=validate.Range(min=0, max=2**53))
    setup = fields.Dict(load_default=None, allow_none=True,
                        metadata={"description": "An explicit setup instead of one drawn from the seed."})


class SeatOut(Schema):
    seat = Int()
    name = fields.String()
    bot = fields.String(allow_none=True)
    email = fields.String(allow_none=True, metadata={"description": "Shown to the host only."})


class PendingOut(Schema):
    seat = Int()
    kind = fields.String()
    deadline = fields.String(allow_none=True)
    deadline_at = fields.String(allow_none=True, metadata={"description": "UTC ISO time; null until started."})


class YouOut(Schema):
    role = fields.String(validate=validate.OneOf(["seat", "host", "spectator"]))
    seat = Int(allow_none=True)


class GameOut(Schema):
    id = fields.String()
    game = fields.String()
    status = fields.String(validate=validate.OneOf(["open", "running", "paused", "finished", "cancelled"]))
    version = Int()
    created_at = fields.String()
    options = fields.Dict()
    deadlines = fields.Dict()
    seats = fields.List(fields.Nested(SeatOut))
    pending = fields.List(fields.Nested(PendingOut))
    view = fields.Dict(metadata={"description": "The engine's view for the caller, already redacted."})
    result = fields.Dict(allow_none=True)
    you = fields.Nested(YouOut)
    paused_until = fields.String(allow_none=True)
    pauses_left = Int()


class SeatTokenOut(Schema):
    seat = Int()
    token = fields.String()


class PlayerTokenOut(Schema):
    email = fields.String()
    token = fields.String()


class TokensOut(Schema):
    host = fields.String()
    seats = fields.List(fields.Nested(SeatTokenOut))
    players = fields.List(fields.Nested(PlayerTokenOut))


class CreatedOut(Schema):
    game = fields.Nested(GameOut)
    tokens = fields.Nested(TokensOut, metadata={"description": "Shown once; only hashes are kept."})


class LabelledMove(Schema):
    move = fields.Dict()
    label = fields.String()


class FreeMove(Schema):
    type = fields.String()
    doc = fields.String()


class LegalMovesOut(Schema):
    version = Int()
    seat = Int()
    pending = fields.List(fields.Nested(PendingOut))
    moves = fields.List(fields.Nested(LabelledMove))
    free = fields.List(fields.Nested(FreeMove))


class MoveIn(Schema):
    move = MoveField(required=True)
    version = Int(metadata={"description": "The version the move was made against (or send If-Match)."})


class EventOut(Schema):
    seq = Int()
    version = Int()
    at = fields.String()
    by = Int(allow_none=True)
    timeout = fields.Boolean()
    event = fields.Dict()


class MoveOut(Schema):
    """Kept small so that submitting is cheap: GET the game (ETag = version) for the full view."""

    version = Int(metadata={"description": "The version this move created."})
    label = fields.String()
    events = fields.List(fields.Dict(), metadata={"description": "What the move did, redacted for you."})
    game_version = Int(metadata={"description": "The version after any bot moves that followed."})
    status = fields.String()
    pending = fields.List(fields.Nested(PendingOut))


class EventsQuery(Schema):
    """Query strings are text, so these integers are parsed (a float like 2.5 is still refused)."""

    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**53))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=500))


class EventPageOut(Schema):
    events = fields.List(fields.Nested(EventOut))
    next_after = Int(metadata={"description": "Pass as ?after= to resume."})
    more = fields.Boolean()


class TurnOut(Schema):
    game_id = fields.String()
    game = fields.String()
    seat = Int()
    kind = fields.String()
    deadline_at = fields.String(allow_none=True)
    version = Int()


class TurnsOut(Schema):
    turns = fields.List(fields.Nested(TurnOut))


class OrdersIn(Schema):
    limits = fields.Dict(keys=fields.String(), values=Int(), required=True)
    step_out_otherwise = StrictBoolean(required=True)


class OrdersOut(Schema):
    version = Int()
    orders = fields.Dict(allow_none=True)


class PauseIn(Schema):
    hours = Int(required=True, validate=validate.Range(min=1, max=168))


class SeatReplacedOut(Schema):
    seat = Int()
    token = fields.String(allow_none=True)
    players = fields.List(fields.Nested(PlayerTokenOut))
    game = fields.Nested(GameOut)


class SignInIn(Schema):
    email = fields.Email(required=True)


class RedeemIn(Schema):
    link = fields.String(required=True, validate=validate.Length(min=1, max=500))


class PlayerOut(Schema):
    token = fields.String()


class AcceptedOut(Schema):
    status = fields.String()


class HealthOut(Schema):
    status = fields.String()

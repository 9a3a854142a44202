"""Which seat of a game, and whether its host, the visitor of a page is: from his session's grants only."""
from __future__ import annotations


from service.mailed_links import seat_key
from service.games import Seated, Table, host_address_of
from service.problems import Problem
from service.web.session import Visitor


def seat_of(visitor: Visitor, game: Seated) -> int | None:
    """The seat the game gives this visitor now: by his address, else by a seat grant whose key the
    seat still carries. A whole game or a listed one (a Head), so every page asks the same."""
    if visitor.email:
        seat = game.seat_of_email(visitor.email)
        if seat is not None:
            return seat
    seats = game.meta["seats"]
    for game_id, seat, key in visitor.seats:
        if game_id == game.id and 0 <= seat < len(seats) and key and seat_key(seats[seat]) == key:
            return seat
    return None


def is_host(visitor: Visitor, game: Seated) -> bool:
    """The browser that created the game, or one signed in with the address its host proved."""
    return [game.id, game.meta["host"]] in visitor.hosts or bool(
        visitor.email and host_address_of(game) == visitor.email)


def host_only(visitor: Visitor, table: Table) -> None:
    if not is_host(visitor, table):
        raise Problem("host_only", "only this game's host may see this page: sign in with the address you host "
                                   "it from, or open it in the browser that created the game")


def seat_only(visitor: Visitor, table: Table) -> int:
    seat = seat_of(visitor, table)
    if seat is None:
        raise Problem("not_a_seat", "you hold no seat at this game in this browser; sign in with the "
                                    "link mailed to you")
    return seat

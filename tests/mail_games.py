"""Real Princes of Florence games for the mail tests: created and started over the API, answered by
their players over the API, and decision mails made for their seats the way `workers.notify` makes them."""
from __future__ import annotations

from urllib.parse import unquote

from service import deadlines, games, mailbox
from service.config import Config
from service.mail import recap, render, seats
from service.mail.message import Mail
from tests.conftest import bearer, mailed_link, wait_for


def start(client, seats_: list[dict], **extra) -> dict:
    """A started game with these seats; returns the creation body (with the host token)."""
    response = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 4, "seats": seats_, **extra})
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    assert client.post(f"/api/v1/games/{created['game']['id']}/start",
                       headers=bearer(created["tokens"]["host"])).status_code == 200
    return created


def player(app, client, email: str) -> dict[str, str]:
    """A player's bearer header, from the sign-in link mailed to him (by a worker, if there is one)."""
    store = app.extensions["palazzo.store"]
    before = len([m for m in mailbox.outbox(store) if m["to"] == email and m["kind"] == "sign_in"])
    assert client.post("/api/v1/sign-in", json={"email": email}).status_code == 202
    wait_for(lambda: len([m for m in mailbox.outbox(store) if m["to"] == email and m["kind"] == "sign_in"]) > before)
    redeemed = client.post("/api/v1/sign-in/redeem", json={"link": unquote(mailed_link(app, email))})
    assert redeemed.status_code == 201, redeemed.get_json()
    return bearer(redeemed.get_json()["token"])


def answer(client, headers: dict[str, str], game_id: str) -> dict:
    """Play the player's first listed move in the game; returns the pending decision it answered."""
    listed = client.get(f"/api/v1/games/{game_id}/moves", headers=headers).get_json()
    [mine] = [d for d in listed["pending"] if d["seat"] == listed["seat"]]
    played = client.post(f"/api/v1/games/{game_id}/moves", headers=headers,
                         json={"move": listed["moves"][0]["move"], "version": listed["version"]})
    assert played.status_code == 200, played.get_json()
    return mine


def decision_part(app, game_id: str, seat: int, reminder: bool = False) -> tuple[str, render.Part]:
    """(address, part) of the seat's pending decision, as the notify job renders it."""
    store, links = app.extensions["palazzo.store"], app.extensions["palazzo.links"]
    table = games.load(store, game_id)
    to = seats.recipient(store, table, seat)
    assert to is not None
    part = render.decision_part(table.game.view(table.state, seat), table.decision_of(seat),
                                seats.frame(table, Config.from_env().mail.domain), to,
                                seats.links_of(links, table, seat), deadlines.now(),
                                table.game.default_move(table.state, seat), reminder=reminder,
                                recap=recap.of(store, table, seat, recap.REMINDER_LINES if reminder else recap.RECAP_LINES))
    return to.email, part


def decision_mail(app, game_id: str, seat: int, reminder: bool = False) -> Mail:
    to, part = decision_part(app, game_id, seat, reminder)
    return render.part_mail(part, to, Config.from_env().mail.domain)


def mails(app, to: str | None = None, kinds: tuple[str, ...] | None = None) -> list[dict]:
    return [m for m in mailbox.outbox(app.extensions["palazzo.store"])
            if (to is None or m["to"] == to) and (kinds is None or m["kind"] in kinds)]

"""Deleting a player's data (DELETE /me, and the settings page's button after its confirmation page),
end to end on a real redis-server: afterwards his old token and his browser are refused, his address is
in no key or value of Redis (every key scanned, every value read whole) and its hash only in request-rate
windows that end by themselves, the games
go on for the others with his seats under his name, and a bad request (no token, another's token kind,
someone else's address, no confirmation, a link to the page) changes nothing."""
from __future__ import annotations

import zlib
from urllib.parse import unquote

import redis as redis_py

from service import counters, followups, forgetting, games, playing, tokens
from service.channels import webhooks
from service.mail.message import Mail
from service.store import Store
from tests.conftest import bearer, mailed_link, sign_in
from tests.web_client import csrf

ANN, BEA = "ann@example.org", "bea@example.org"


def everything(redis) -> dict[str, bytes]:
    """Every key with its whole value (DUMP: any type), but the counts a refusal adds to (the request rate, metrics)."""
    return {key: redis.dump(key) for key in sorted(redis.scan_iter(count=1000)) if not key.startswith("pz:rate:") and not counters.is_counter(key)}


def mentions(redis, *needles: str) -> list[str]:
    """The keys whose name or value holds any of `needles`, every type read whole (an RQ job's data unzipped)."""
    raw = redis_py.Redis(connection_pool=redis_py.ConnectionPool(**{
        **redis.connection_pool.connection_kwargs, "decode_responses": False}))
    found = []
    for key in raw.scan_iter(count=1000):
        kind = raw.type(key).decode()
        value = {"string": lambda: [raw.get(key)], "list": lambda: raw.lrange(key, 0, -1),
                 "set": lambda: list(raw.smembers(key)), "hash": lambda: [b for pair in raw.hgetall(key).items()
                                                                         for b in pair],
                 "zset": lambda: [m for m, _ in raw.zrange(key, 0, -1, withscores=True)],
                 "stream": lambda: [repr(raw.xrange(key)).encode()]}[kind]()
        if kind == "hash" and key.startswith(b"rq:job:") and raw.hget(key, "data"):  # RQ keeps its args zipped
            value.append(zlib.decompress(raw.hget(key, "data")))
        text = key + b"".join(part or b"" for part in value) + (raw.dump(key) or b"")
        if any(needle.encode() in text for needle in needles):
            found.append(key.decode())
    return found


def created(client, token: str | None, seats: list[dict], game: str = "toy-count", start: bool = True) -> dict:
    answer = client.post("/api/v1/games", headers=bearer(token) if token else {},
                         json={"game": game, "seed": 3, "seats": seats})
    assert answer.status_code == 201, answer.get_json()
    body = answer.get_json()
    if start:
        assert client.post(f"/api/v1/games/{body['game']['id']}/start",
                           headers=bearer(body["tokens"]["host"])).status_code == 200
    return body


def finished_game(store: Store, game_id: str, seat: int) -> None:
    table = games.load(store, game_id)
    while table.status == games.RUNNING:
        mover = next(d["seat"] for d in table.pending)
        assert mover == seat
        playing.play(store, table, seat, playing.bot_move(table, seat, "random"))
        table = games.load(store, game_id)
    assert table.status == games.FINISHED


def browser_of(app, to: str):
    browser = app.test_client()
    assert browser.post("/api/v1/sign-in", json={"email": to}).status_code == 202
    link = unquote(mailed_link(app, to))
    assert browser.post("/sign-in", data={"link": link, "csrf": csrf(browser, f"/sign-in?link={link}")}).status_code == 303
    return browser


def test_deleting_my_data_leaves_no_trace_of_my_address_and_the_games_go_on(app, client):
    store = app.extensions["palazzo.store"]
    owner = tokens.email_hash(ANN)
    running = created(client, None, [{"name": "Ann", "email": ANN}, {"name": "Bea", "email": BEA},
                                     {"name": "Cy", "bot": "random"}])
    over = created(client, None, [{"name": "Ann", "email": ANN}, {"name": "Bo", "bot": "random"},
                                  {"name": "Cy", "bot": "random"}])
    for to in (ANN, BEA):
        assert client.post("/api/v1/sign-in", json={"email": to}).status_code == 202
    ann, bea = sign_in(app, client, ANN), sign_in(app, client, BEA)
    hosted = created(client, ann, [{"name": "Ann", "email": ANN}, {"name": "Dee", "email": "dee@example.org"},
                                   {"name": "Cy", "bot": "random"}], start=False)
    finished_game(store, over["game"]["id"], 0)
    result = client.get(f"/api/v1/games/{over['game']['id']}").get_json()["result"]
    assert client.put("/api/v1/me/settings", headers=bearer(ann), json={"time_zone": "Europe/Rome"}).status_code == 200
    webhooks.register(store, owner, "https://hooks.example.org/ann", None, ["your_turn"], "json", "2026-01-01T00:00:00Z")
    browser = browser_of(app, ANN)
    assert browser.get("/settings").status_code == 200
    assert client.post("/api/v1/me/address", headers=bearer(ann), json={"email": "ann.new@example.org"}).status_code == 202
    running_id = running["game"]["id"]
    assert mentions(store.redis, ANN, owner), "the address is kept before"
    before = everything(store.redis)

    refused = [
        client.delete("/api/v1/me", json={"confirm": True}),  # no proof
        client.delete("/api/v1/me", headers=bearer(running["tokens"]["host"]), json={"confirm": True}),
        client.delete("/api/v1/me", headers=bearer(ann), json={"confirm": True, "email": BEA}),  # someone else
        client.delete("/api/v1/me", headers=bearer(ann), json={}),  # not confirmed
        client.delete("/api/v1/me", headers=bearer(ann), json={"confirm": True, "extra": 1}),
    ]
    assert [(r.status_code, r.get_json()["code"]) for r in refused] == [
        (401, "token_required"), (401, "token_required"), (403, "forbidden"), (422, "confirm_required"),
        (422, "invalid_request")]
    assert browser.get("/settings/delete").status_code == 200  # the page asks, a link deletes nothing
    assert browser.post("/settings/delete", data={"confirm": "yes"}).status_code in (400, 403)  # no CSRF token
    assert everything(store.redis) == before, "a refusal changes nothing"

    done = client.delete("/api/v1/me", headers=bearer(ann), json={"confirm": True, "email": ANN})
    assert done.status_code == 200, done.get_json()
    assert done.get_json() == {"left": 2, "games": 3, "sign_ins": 2, "webhooks": 1, "mail": done.get_json()["mail"]}
    assert done.get_json()["mail"] >= 4  # the sign-in links and the address change's mails in the local outbox
    assert mentions(store.redis, ANN) == []
    rates = mentions(store.redis, owner)  # the request-rate windows, which end by themselves
    assert all(key.startswith("pz:rate:") and 0 < store.redis.ttl(key) <= 24 * 3600 for key in rates), rates

    assert client.get("/api/v1/me/games", headers=bearer(ann)).get_json()["code"] == "bad_token"
    assert "Sign in" in browser.get("/settings").get_data(as_text=True)
    game = client.get(f"/api/v1/games/{running_id}", headers=bearer(bea)).get_json()
    assert game["status"] == "running" and game["seats"][0]["open"] and game["seats"][0]["left"]["name"] == "Ann"
    assert game["seats"][0]["left"]["why"] == "left" and game["seats"][1]["name"] == "Bea"
    finished = client.get(f"/api/v1/games/{over['game']['id']}").get_json()
    assert finished["seats"][0]["name"] == "Ann" and finished["result"] == result
    picked = [d for d in game["pending"] if d["seat"] == 1]
    if picked:
        move = client.post(f"/api/v1/games/{running_id}/moves", headers=bearer(bea),
                           json={"move": {"type": "pick", "value": 2}, "version": game["version"]})
        assert move.status_code == 200, move.get_json()
    assert client.get("/api/v1/me/games", headers=bearer(bea)).get_json()["total"] == 1
    opened = client.get(f"/api/v1/games/{hosted['game']['id']}", headers=bearer(hosted["tokens"]["host"])).get_json()
    assert opened["status"] == "open" and opened["seats"][0]["open"] and opened["you"]["role"] == "host"


def test_the_settings_page_deletes_after_asking(app, client):
    store = app.extensions["palazzo.store"]
    created(client, None, [{"name": "Ann", "email": ANN}, {"name": "Bo", "bot": "random"},
                           {"name": "Cy", "bot": "random"}])
    assert client.post("/api/v1/sign-in", json={"email": ANN}).status_code == 202
    browser = browser_of(app, ANN)
    asked = browser.get("/settings/delete").get_data(as_text=True)
    assert "you leave 1 game not over" in asked
    token = csrf(browser, "/settings/delete")
    before = everything(store.redis)
    kept = browser.post("/settings/delete", data={"csrf": token})
    assert kept.status_code == 422 and everything(store.redis) == before
    gone = browser.post("/settings/delete", data={"csrf": token, "confirm": "yes"})
    assert gone.status_code == 200 and "Your data is deleted" in gone.get_data(as_text=True)
    assert mentions(store.redis, ANN) == []
    assert all(key.startswith("pz:rate:") for key in mentions(store.redis, tokens.email_hash(ANN)))
    assert "Sign in" in browser.get("/settings").get_data(as_text=True), "this browser is signed out"


def test_mail_queued_to_him_goes_and_mail_to_others_stays(app, redis_url):
    store = app.extensions["palazzo.store"]
    connection = redis_py.Redis.from_url(redis_url)
    queued = Store(store.redis, followups.Queued(connection))
    for to in (ANN, BEA):
        queued.followups.send_mail(queued, Mail(to=to, subject="Your turn", text="…", kind="your_turn"))
        queued.followups.sign_in(queued, None, to)
    assert mentions(store.redis, ANN) and mentions(store.redis, BEA)
    store.redis.set(f"pz:email:{tokens.email_hash(ANN)}:address", ANN)
    forgotten = forgetting.forget(queued, app.extensions["palazzo.links"], tokens.email_hash(ANN))
    assert forgotten.mail == 2
    assert mentions(store.redis, ANN) == [] and mentions(store.redis, BEA)

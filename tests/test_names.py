"""Games are named, and a player sees his games: the title (its default, a custom one, a bad one, a new
one), how mails, pages and /me/turns name a game by it, seats numbered from 1 for people, and
GET /me/games and the home page with whose turn it is and his result."""
from __future__ import annotations

from urllib.parse import unquote

from markupsafe import escape

from engine.pof import GAME
from service import deadlines, games, mailbox, playing
from service.mail import render
from service.store import game_key
from tests.conftest import bearer, mailed_link, new_game, seat_tokens, sign_in
from tests.mail_games import decision_mail
from tests.web_client import csrf, enter_seat

POF = "princes-of-florence"
ANN = {"name": "Ann", "email": "ann@example.org"}


def _create(client, seats: list[dict], token: str | None = None, **extra):
    return client.post("/api/v1/games", json={"game": "toy-count", "seed": 1, "seats": seats, **extra},
                       headers=bearer(token) if token else {})


def _made(client, seats: list[dict], token: str | None = None, **extra) -> dict:
    created = _create(client, seats, token, **extra)
    assert created.status_code == 201, created.get_json()
    return created.get_json()


def _started(client, seats: list[dict], **extra) -> dict:
    created = _made(client, seats, game=POF, **extra)
    assert client.post(f"/api/v1/games/{created['game']['id']}/start",
                       headers=bearer(created["tokens"]["host"])).status_code == 200
    return created


def _outbox(app, to: str, kind: str) -> list[dict]:
    return [m for m in mailbox.outbox(app.extensions["palazzo.store"]) if m["to"] == to and m["kind"] == kind]


def test_a_title_defaults_to_the_hosts_name_and_may_be_given(app, client):
    listed_first = _made(client, [{"name": "Robo", "bot": "random"}, {"name": "Bea"}, ANN])
    assert listed_first["game"]["title"] == "Bea's game", "a creator without an address: the first person listed"
    ann = sign_in(app, client, "ann@example.org")  # her address is known now: she signs in, and hosts
    seated = _made(client, [{"name": "Cid"}, {"name": "Ann", "email": "ann@example.org"}, {"name": "Dee"}], ann)
    assert seated["game"]["title"] == "Ann's game", "a signed-in creator who sits at the table: his seat's name"
    apart = _made(client, [{"name": "Cid"}, {"name": "Dee"}, {"name": "Eve"}], ann)
    assert apart["game"]["title"] == "A game of toy-count", "a host who plays no seat"
    custom = _made(client, [{"name": "Cid"}, {"name": "Dee"}, {"name": "Eve"}], title="  Friday night ")
    assert custom["game"]["title"] == "Friday night"
    store = app.extensions["palazzo.store"]
    assert games.load(store, custom["game"]["id"]).meta["title"] == "Friday night"


def test_a_game_from_before_titles_gets_its_default_on_read(app, client):
    created = _made(client, [{"name": "Cid"}, {"name": "Dee"}, {"name": "Eve"}], title="Old")
    game_id = created["game"]["id"]
    store = app.extensions["palazzo.store"]
    meta = games.load(store, game_id).meta
    del meta["title"]
    store.redis.hset(game_key(game_id, "game"), "meta", games.dumps(meta))
    assert client.get(f"/api/v1/games/{game_id}").get_json()["title"] == "Cid's game"


BAD_TITLES = ["x" * 81, "", "   ", "Ann\nBcc: all@example.org", "Ann\r\nSubject: free", "bell\x07", "tab\there",
              "\u202eemag s'nnA", "line\u2028break", "see http://spam.example", "www.spam", "spam.example",
              "me@example.org"]


def test_a_bad_title_is_a_clear_problem_and_changes_nothing(app, client):
    store = app.extensions["palazzo.store"]
    created = new_game(client, start=False)
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    for title in BAD_TITLES:
        refused = _create(client, [{"name": "Cid"}, {"name": "Dee"}, {"name": "Eve"}], title=title)
        assert refused.status_code == 422 and refused.headers["Content-Type"] == "application/problem+json", title
        assert refused.get_json()["code"] == "invalid_request" and "title" in refused.get_json()["errors"]["json"]
        renamed = client.put(f"/api/v1/games/{game_id}/title", headers=host, json={"title": title})
        assert renamed.status_code == 422 and "title" in renamed.get_json()["errors"]["json"], title
    assert len(list(store.redis.scan_iter(match="pz:{*}:*:game"))) == 1, "nothing created"
    assert client.get(f"/api/v1/games/{game_id}").get_json()["version"] == created["game"]["version"]


def test_a_title_is_one_line_of_words_of_any_script():
    from service import titles
    assert titles.fault("Die Fürsten von Florenz – 2. Runde") is None
    assert titles.fault("Флоренция, вечер 👨‍👩‍👧") is None, "emoji joined by zero-width joiners are words"
    assert titles.fault("Dr. Ann's game") is None, "a dot before a space is no domain"
    assert titles.fault("a.b") and titles.fault("x\u200by"), "a domain, and an invisible space"


def test_the_host_renames_the_game_and_the_table_reads_it(app, client):
    created = new_game(client)
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    assert client.put(f"/api/v1/games/{game_id}/title", json={"title": "New"}).status_code == 401
    seat = bearer(seat_tokens(created)[0])
    assert client.put(f"/api/v1/games/{game_id}/title", headers=seat, json={"title": "New"}).status_code == 403
    renamed = client.put(f"/api/v1/games/{game_id}/title", headers=host, json={"title": "Ann & Bea <3"})
    assert renamed.status_code == 200 and renamed.get_json()["title"] == "Ann & Bea <3"
    assert renamed.get_json()["version"] == created["game"]["version"] + 2  # the start, then the rename
    events = client.get(f"/api/v1/games/{game_id}/events").get_json()["events"]
    assert events[-1]["event"] == {"type": "game_renamed", "title": "Ann & Bea <3"}
    log = client.get(f"/games/{game_id}/log").get_data(as_text=True)
    assert "What happened in Ann &amp; Bea &lt;3" in log and "The host named the game “Ann &amp; Bea &lt;3”." in log
    turns = client.get("/api/v1/me/turns", headers=seat).get_json()["turns"]
    assert turns[0]["title"] == "Ann & Bea <3"


def test_the_invitation_names_the_game_and_the_seat_from_one(app, client):
    created = _made(client, [{"name": "Cid"}, {"name": "Bea", "email": "bea@example.org"}, {"name": "Dee"}],
                    title="Friday night")
    [invitation] = _outbox(app, "bea@example.org", "invitation")
    assert invitation["subject"] == "You have a seat in “Friday night” · Palazzo"
    assert invitation["text"].startswith("You have been given seat 2 in “Friday night”")
    assert "seat 2 in “Friday night”" in invitation["html"] and created["game"]["id"] in invitation["text"]
    host = bearer(created["tokens"]["host"])
    handed = client.put(f"/api/v1/games/{created['game']['id']}/seats/2", headers=host,
                        json={"name": "Eve", "email": "eve@example.org"})
    assert handed.status_code == 200
    [handover] = _outbox(app, "eve@example.org", "invitation")
    assert handover["subject"] == "You have a seat in “Friday night” · Palazzo" and "seat 3 in" in handover["text"]
    from service import signin  # an invitation made elsewhere, without the title: read from the game
    signin.invite(app.extensions["palazzo.store"], app.extensions["palazzo.links"],
                  {"email": "eve@example.org", "name": "Eve", "game": created["game"]["id"], "seat": 2})
    assert _outbox(app, "eve@example.org", "invitation")[-1]["subject"] == handover["subject"]


def test_a_decision_mail_and_the_seat_page_name_the_game(app, client):
    created = _started(client, [ANN, {"name": "Bea"}, {"name": "Robo", "bot": "greedy"}], title="Ann <b>& co</b>")
    game_id = created["game"]["id"]
    mail = decision_mail(app, game_id, 0)
    assert mail.subject.endswith(" · Ann <b>& co</b>") and "\n" not in mail.subject
    assert "“Ann <b>& co</b>”" in mail.text and "“Ann &lt;b&gt;&amp; co&lt;/b&gt;”" in mail.html
    assert mail.headers["References"] == f"<game-{game_id}@127.0.0.1>", "the thread is the game's, as before"
    enter_seat(app, client, game_id, 1)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "<h1 id=\"top\">Ann &lt;b&gt;&amp; co&lt;/b&gt; <small>Bea's seat, seat 2</small></h1>" in page
    assert "<title>Your move · Bea · Ann &lt;b&gt;&amp; co&lt;/b&gt; · Palazzo</title>" in page
    watch = client.get(f"/games/{game_id}/watch").get_data(as_text=True)
    assert "<h1>Ann &lt;b&gt;&amp; co&lt;/b&gt; <small>" in watch


def test_an_answer_mail_names_the_game_by_its_title():
    state = GAME.new_state(GAME.normalize_options({"seats": 3}), GAME.make_setup(GAME.normalize_options({"seats": 3}), 1))
    pending = {**GAME.pending(state)[0], "deadline_at": deadlines.stamp(deadlines.now()), "since": 1}
    table = render.Table("g1", ["Ann", "Bea", "Cid"], "p.example", "Friday night")
    to = render.Recipient("ann@example.org", "Ann", 0)
    for kind in ("help", "stale", "not_yours"):
        mail = render.answer(GAME.view(state, 0), pending, table, to, {}, deadlines.now(),
                             {"kind": kind, "reason": "it came from another address"})
        assert mail.subject.endswith(" · Friday night") and "in “Friday night”" in mail.text
        assert "game g1" not in mail.text and "Game id: g1" in mail.text


def _finish(app, client) -> str:
    """A Princes of Florence game of Ann's (her seat played by the greedy bot's choices) played to its end."""
    created = _started(client, [ANN, {"name": "B", "bot": "random"}, {"name": "C", "bot": "greedy"}],
                       title="Done and dusted")
    store = app.extensions["palazzo.store"]
    table = games.load(store, created["game"]["id"])
    while table.status == games.RUNNING:
        playing.play(store, table, 0, playing.bot_move(table, 0, "greedy"))
        table = games.load(store, table.id)
    return table.id


def test_my_games_lists_running_and_finished_games_with_whose_turn_and_my_result(app, client):
    finished = _finish(app, client)
    running = _started(client, [{"name": "Bea", "bot": "random"}, ANN, {"name": "Cid"}])["game"]["id"]
    opened = _made(client, [ANN, {"name": "Dee"}, {"name": "Eve"}], title="Not yet")["game"]["id"]
    token = sign_in(app, client, "ann@example.org")
    ann = bearer(token)
    listed = client.get("/api/v1/me/games", headers=ann).get_json()
    assert [g["game_id"] for g in listed["games"]] == [running, opened, finished] and listed["total"] == 3
    now, later, over = listed["games"]
    assert now["title"] == "Ann's game" and now["status"] == "running" and now["seat"] == 1 and now["your_turn"]
    assert {(w["name"], w["yours"]) for w in now["waiting"]} == {("Ann", True), ("Cid", False)}
    assert later["title"] == "Not yet" and later["waiting"] == [] and later["result"] is None
    store = app.extensions["palazzo.store"]
    result = GAME.result(games.load(store, finished).state)
    mine = next(s for s in result["scores"] if s["seat"] == 0)
    names = ["Ann", "B", "C"]
    assert over["status"] == "finished" and over["result"] == {
        "rank": mine["rank"], "score": mine["prestige"], "winners": [names[s] for s in result["winners"]]}
    assert over["archive"] == f"/games/{finished}/archive" and now["archive"] is None and later["archive"] is None
    assert client.get(over["archive"]).status_code == 200
    page = client.get("/api/v1/me/games?limit=2", headers=ann).get_json()
    assert [g["game_id"] for g in page["games"]] == [running, opened] and page["next_offset"] == 2
    rest = client.get("/api/v1/me/games?limit=2&offset=2", headers=ann).get_json()
    assert [g["game_id"] for g in rest["games"]] == [finished] and rest["next_offset"] is None
    assert client.get("/api/v1/me/games?limit=0", headers=ann).status_code == 422
    assert client.get("/api/v1/me/games").status_code == 401
    turns = client.get("/api/v1/me/turns", headers=ann).get_json()["turns"]
    assert [(t["game_id"], t["title"], t["seat"]) for t in turns] == [(running, "Ann's game", 1)]
    store.compact(finished)
    store.redis.hdel(game_key(finished, "game"), "result")  # a game finished before results were kept beside it
    again = client.get("/api/v1/me/games?offset=2", headers=ann).get_json()["games"]
    assert again[0]["result"] == over["result"], "read from the compacted game's state"


def test_the_home_page_lists_my_games_with_titles_turns_and_results(app, client):
    finished = _finish(app, client)
    running = _started(client, [{"name": "Bea", "bot": "random"}, ANN, {"name": "Cid"}],
                       title="Bea <i>vs</i> Ann")["game"]["id"]
    link = unquote(mailed_link(app, "ann@example.org"))
    client.post("/sign-in", data={"link": link, "csrf": csrf(client, f"/sign-in?link={link}")})
    home = client.get("/").get_data(as_text=True)
    assert home.index(f'data-game="{running}"') < home.index(f'data-game="{finished}"'), "what waits for her first"
    assert f'<a href="/games/{running}">Bea &lt;i&gt;vs&lt;/i&gt; Ann</a>, as Ann' in home
    assert f'<a href="/games/{finished}">Done and dusted</a>' in home
    assert "It waits for you" in home and "Also waiting for Cid" in home
    result = GAME.result(games.load(app.extensions["palazzo.store"], finished).state)
    rank = next(s["rank"] for s in result["scores"] if s["seat"] == 0)
    outcome = "You won" if rank == 1 else f"You came {rank}"
    assert outcome in home and str(escape(games.title_of(games.load(app.extensions["palazzo.store"], running)))) in home
    over = home[home.index("data-finished"):]
    assert f'data-game="{running}"' not in over, "only finished games in the list of finished ones"
    row = over[over.index(f'data-game="{finished}"'):over.index("</tr>", over.index(f'data-game="{finished}"'))]
    score = next(s["prestige"] for s in result["scores"] if s["seat"] == 0)
    assert f"<td data-label=\"Your place\" data-place>{rank} of 3</td>" in row
    assert f"<td data-label=\"Your score\" data-score>{score}</td>" in row
    assert f'<a href="/games/{finished}/archive" data-archive>' in row
    for page in (f"/games/{finished}", f"/games/{finished}/watch"):  # her seat page, and as anyone watches it
        assert f'<p data-archive><a href="/games/{finished}/archive">' in client.get(page).get_data(as_text=True)
    assert "/archive" not in client.get(f"/games/{running}").get_data(as_text=True)


def test_the_pages_take_a_title_and_refuse_a_bad_one(app, client):
    from tests.test_web_host import _create as create_from_page, _game_id
    refused = create_from_page(client, title="Ann\nBcc: all@example.org")
    assert refused.status_code == 422 and "title: A title may not hold control characters" in refused.get_data(as_text=True)
    answer = create_from_page(client, title="Friday night")
    game_id = _game_id(answer)
    host = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "Hosting Friday night" in host and "“Friday night” is created and started." in host
    form = {"csrf": csrf(client, f"/games/{game_id}/host")}
    bad = client.post(f"/games/{game_id}/host/title", data={**form, "title": "spam.example"})
    assert bad.status_code == 422 and "was not renamed" in bad.get_data(as_text=True)
    renamed = client.post(f"/games/{game_id}/host/title", data={**form, "title": "Saturday night"})
    assert renamed.status_code == 303
    assert "Hosting Saturday night" in client.get(f"/games/{game_id}/host").get_data(as_text=True)

"""The recap and the principality of a decision mail: what happened since the seat's last decision,
in the web story's sentences from the seat's redacted feed, and the seat's yard as an HTML table.

A known sequence gives known sentences; real workers put them in the mail they send; the HTML
part's table holds the text grid's marks in the pages' colours; Chromium shows it (screenshot in
build/artefacts/mail/); and over many random states of whole games no recap, nor the mail around
it, shows another seat's private part (tests/web_leaks.py), while the same sentences made from the
unredacted feed are caught, so that the check can fail."""
from __future__ import annotations

import random
import re
from html.parser import HTMLParser

from rq import Queue

from engine.bots import choose_move
from engine.core import redact
from engine.pof import GAME
from engine.pof.writing import marks
from service import games, playing
from service.config import Config
from service.followups import QUEUE
from service.mail import recap, render, seats
from engine.pof.presentation import yard_svg
from service.problems import Problem
from service import story
from engine.pof.presentation.yard_svg import EMPTY, colours
from tests.browser import MAIL_ARTEFACTS, screenshot
from tests.conftest import bearer, make_app, new_game, seat_tokens, wait_for
from tests.mail_games import mails, player, start
from tests.test_mail_html import TEMPLATE_TEXT, Shape
from tests.test_mail_render import DEADLINE, NAMES, NOW, TABLE, links
from tests.web_leaks import POF, exposed, full_view, told_sums

ANN = "ann@example.org"


def _play_defaults(store, game_id: str, moves: int) -> None:
    """Each pending decision answered with its default move, `moves` times, through the one commit path."""
    for _ in range(moves):
        table = games.load(store, game_id)
        seat = table.pending[0]["seat"]
        played = playing.play(store, table, seat, table.game.default_move(table.state, seat))
        assert played.outcome.outcome == "ok"


def test_the_recap_tells_the_others_moves_since_the_seats_last_decision(app, client):
    store = app.extensions["palazzo.store"]
    game_id = new_game(client, game="princes-of-florence", seats=3)["game"]["id"]
    first = recap.of(store, games.load(store, game_id), 0)
    assert first == {"lines": ["The game was created for 3 seats.", "The host started the game."], "more": 0,
                     "since_decision": False}
    _play_defaults(store, game_id, 1)
    assert recap.of(store, games.load(store, game_id), 0) is None, "nothing since his own move"
    # P1 and P2 keep; P0 opens the woods, both step out, P0 places them; P1 opens the lake, P2 steps out,
    # P1 places it; P2 opens the park and, the others having bought this round, buys it and places it.
    _play_defaults(store, game_id, 11)
    table = games.load(store, game_id)
    assert recap.of(store, table, 0) == {"lines": [
        "P1 put the lake up for auction at 200.", "P2 stepped out of the lake auction.", "P1 bought the lake for 200.",
        "P1 placed a lake on A1, B1, A2, B2.", "P2 put the park up for auction at 200.", "P2 bought the park for 200.",
        "P2 placed a park on A1, A2, B2."], "more": 0, "since_decision": True}
    assert recap.of(store, table, 1) == {"lines": [
        "P2 put the park up for auction at 200.", "P2 bought the park for 200.", "P2 placed a park on A1, A2, B2."],
        "more": 0, "since_decision": True}
    assert recap.of(store, table, 2) is None
    short = recap.of(store, table, 0, limit=2)
    assert short == {"lines": ["P2 bought the park for 200.", "P2 placed a park on A1, A2, B2."], "more": 5,
                     "since_decision": True}
    to = render.Recipient("p0@example.org", "P0", 0, "Europe/Rome", 0)
    frame = seats.frame(table, "palazzo.example")
    part = render.decision_part(GAME.view(table.state, 0), {**table.decision_of(0), "deadline_at": DEADLINE}, frame,
                                to, links(0), NOW, recap=short)
    mail = render.part_mail(part, to.email, "palazzo.example")
    assert ("Since your last decision:\n(5 earlier events left out; your seat page has the whole log)\n"
            "- P2 bought the park for 200.\n- P2 placed a park on A1, A2, B2.\n") in mail.text
    assert "5 earlier events are left out" in mail.html
    assert f'href="{links(0)["seat"]}" style="color:#7a2e1d">your seat page</a>' in mail.html.replace("&amp;", "&")
    merged = render.merged([part, {**part, "game": "0a0b0c0d0e0f0a0b"}], to.email, "palazzo.example")
    assert merged.text.count("- P2 placed a park on A1, A2, B2.") == 2, "each part of a merged mail has its recap"


def test_a_move_the_deadline_made_is_told_and_the_seats_own_moves_are_not():
    entries = [{"version": 4, "by": 1, "event": {"type": "turn_ended", "seat": 1}},
               {"version": 5, "by": 0, "event": {"type": "bid", "seat": 0, "item": "lake", "amount": 300}},
               {"version": 5, "by": 0, "event": {"type": "auction_won", "seat": 2, "item": "lake", "price": 300}},
               {"version": 6, "by": 1, "event": {"type": "stepped_out", "seat": 1, "item": "woods"}},
               {"version": 7, "by": 0, "timeout": True, "event": {"type": "timeout", "seat": 0, "kind": "bid"}},
               {"version": 7, "by": 0, "timeout": True, "event": {"type": "stepped_out", "seat": 0, "item": "woods"}},
               {"version": 7, "by": 0, "event": {"type": "auction_won", "seat": 1, "item": "woods", "price": 200}}]
    told = recap.told(GAME, recap.since_last_decision(entries[:4], 0)[0], ["Ann", "Bea", "Cy"], 0, 30)
    assert told["lines"] == ["Cy bought the lake for 300.", "Bea stepped out of the woods auction."]
    after_timeout = recap.told(GAME, recap.since_last_decision(entries, 0)[0], ["Ann", "Bea", "Cy"], 0, 30)
    assert after_timeout["lines"] == ["Time ran out for Ann (you) (to bid or step out); the default was played.",
                                      "Ann (you) stepped out of the woods auction.", "Bea bought the woods for 200."]
    assert recap.since_last_decision(entries, 2) == (entries, False)


def test_workers_mail_the_recap_and_the_seat_link_of_a_rounds_result(redis_url, workers):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    client = app.test_client()
    created = start(client, [{"name": "Ann", "email": ANN}, {"name": "Bea"}, {"name": "Cy"}])
    game_id = created["game"]["id"]
    workers(1)
    headers = {0: player(app, client, ANN), **{seat: bearer(token) for seat, token in seat_tokens(created).items()}}
    wait_for(lambda: mails(app, ANN, ("choose",)))
    assert "So far in this game:\n- The game was created for 3 seats.\n- The host started the game.\n" in \
        mails(app, ANN, ("choose",))[0]["text"]
    for seat in (0, 1, 2):
        _answer(client, headers[seat], game_id)
    wait_for(lambda: mails(app, ANN, ("your_turn",)))
    [turn] = mails(app, ANN, ("your_turn",))
    assert ("Since your last decision:\n- Bea kept three professions.\n- Cy kept three professions.\n"
            "- Round 1 begins; Ann (you) chooses first.\n") in turn["text"]
    assert '<table class="principality"' in turn["html"] and "Round 1 begins; Ann (you) chooses first." in turn["html"]
    store = app.extensions["palazzo.store"]
    since = games.load(store, game_id).decision_of(0)["since"]
    Queue(QUEUE, connection=store.redis).enqueue("workers.notify.reminder", game_id, 0, since, 0)
    wait_for(lambda: mails(app, ANN, ("reminder",)))
    assert "Since your last decision:\n- Bea kept three professions.\n" in mails(app, ANN, ("reminder",))[0]["text"]
    while (table := games.load(store, game_id)).state["round"] == 1:
        _answer(client, headers[table.pending[0]["seat"]], game_id)
    wait_for(lambda: mails(app, ANN, ("round_result",)))
    [result] = mails(app, ANN, ("round_result",))
    assert re.search(r"Your seat: http://\S+/seat\?t=\S+", result["text"]) and "Open your seat" in result["html"]


def _answer(client, headers: dict[str, str], game_id: str) -> None:
    listed = client.get(f"/api/v1/games/{game_id}/moves", headers=headers).get_json()
    move = next(m["move"] for m in listed["moves"] if m["move"]["type"] != "set_orders")
    played = client.post(f"/api/v1/games/{game_id}/moves", headers=headers,
                         json={"move": move, "version": listed["version"]})
    assert played.status_code == 200, played.get_json()


class Tables(HTMLParser):
    """Every table of a document: its class, and per row its cells as [tag, attributes, text]."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self.open: list[dict] = []
        self.cell: list | None = None

    def handle_starttag(self, tag: str, attrs) -> None:
        attributes = dict(attrs)
        if tag == "table":
            self.open.append({"class": attributes.get("class"), "rows": []})
        elif tag == "tr" and self.open:
            self.open[-1]["rows"].append([])
        elif tag in ("td", "th") and self.open:
            self.cell = [tag, attributes, ""]
            self.open[-1]["rows"][-1].append(self.cell)

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell[2] += data

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self.cell = None
        elif tag == "table":
            self.tables.append(self.open.pop())


def _built_yard(state) -> bool:
    """The start of the turn of a seat that has built and placed a landscape: a yard with every kind
    of mark, and the others' moves since its last turn to tell."""
    pending = state["pending"]
    if not pending or pending[0]["kind"] != "action" or state["turn"]["actions"]:
        return False
    me = state["players"][pending[0]["seat"]]
    return bool(me["buildings"]) and bool(me["landscapes"])


def _feed_of(stop) -> tuple[dict, list[dict]]:
    """A greedy game played until `stop(state)`, and its feed as the service stores it (public events,
    each with its version and mover)."""
    seed = 7
    options = GAME.normalize_options({"seats": 3})
    state = GAME.new_state(options, GAME.make_setup(options, seed))
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(3)]
    feed: list[dict] = []
    version = 2
    while not stop(state):
        seat = GAME.pending(state)[0]["seat"]
        state, events = GAME.apply(state, seat, choose_move("greedy", GAME, state, seat, rngs[seat]))
        version += 1
        feed += [{"version": version, "by": seat, "event": e} for e in events if "private_to" not in e]
    return state, feed


def built_mail() -> tuple[dict, int, render.Part]:
    """The decision mail of a seat with buildings and a landscape, with its recap (more than fit)."""
    state, feed = _feed_of(_built_yard)
    pending = {**GAME.pending(state)[0], "deadline_at": DEADLINE, "since": 3}
    seat = pending["seat"]
    entries, found = recap.since_last_decision(redact(feed, seat), seat)
    told = recap.told(GAME, entries, NAMES, seat, 3, since_decision=found)
    to = render.Recipient(f"p{seat}@example.org", NAMES[seat], seat, "Europe/Rome", 0)
    part = render.decision_part(GAME.view(state, seat), pending, TABLE, to, links(seat), NOW,
                                GAME.default_move(state, seat), recap=told)
    return state, seat, part


def test_the_html_part_holds_the_principality_as_a_table_with_its_legend():
    state, seat, part = built_mail()
    mail = render.part_mail(part, "p@example.org", TABLE.domain)
    shape = Shape()
    shape.feed(mail.html)
    assert shape.faults == [] and shape.stack == [] and not TEMPLATE_TEXT.search(mail.html)
    assert "<svg" not in mail.html and "<img" not in mail.html
    parsed = Tables()
    parsed.feed(mail.html)
    [yard] = [t for t in parsed.tables if t["class"] == "principality"]
    [legend] = [t for t in parsed.tables if t["class"] == "legend"]
    me = GAME.view(state, seat)["players"][seat]
    grid, buildings = marks(me)
    assert [cell[2] for cell in yard["rows"][0][1:]] == list("ABCDEFG")
    assert [row[0][2] for row in yard["rows"][1:]] == [str(n) for n in range(1, 8)]
    cells = [row[1:] for row in yard["rows"][1:]]
    assert [[cell[2].replace("\xa0", ".") for cell in row] for row in cells] == grid, "the text grid's marks"
    for (row, col), kind in [((5, 0), "Palazzo"), *[(tuple(p["squares"][0]), p["kind"]) for p in me["buildings"]],
                             *[(tuple(p["squares"][0]), p["kind"]) for p in me["landscapes"]]]:
        assert cells[row][col][1]["bgcolor"] == colours(kind)[0]
    empty = [cell for row in cells for cell in row if cell[2] == "\xa0"]
    assert empty and all(cell[1]["bgcolor"] == EMPTY for cell in empty)
    keys = {swatch[2].replace("\xa0", ""): words[2] for swatch, words in legend["rows"]}
    assert keys["#"] == "Palazzo" and keys[""] == "empty square"
    for number, piece in enumerate(me["buildings"], start=1):
        assert keys[str(number % 10)].startswith(piece["kind"]), buildings
    assert "Since your last decision" in mail.html and mail.html.count("<li>") >= 3
    assert len(mail.html.encode()) < 20_000, "a decision mail stays small"


def test_the_welcome_mail_shows_the_principality_too():
    state, seat, _ = built_mail()
    to = render.Recipient(f"p{seat}@example.org", NAMES[seat], seat, "Europe/Rome", 2)
    pending = [{**d, "deadline_at": DEADLINE, "since": 3} for d in GAME.pending(state)]
    mail = render.welcome(GAME.view(state, seat), pending, TABLE, to, links(seat), NOW, NAMES[1])
    parsed = Tables()
    parsed.feed(mail.html)
    assert [len(row) for row in next(t for t in parsed.tables if t["class"] == "principality")["rows"]] == [8] * 8


def test_chromium_shows_the_principality_of_a_decision_mail(chromium):
    state, seat, part = built_mail()
    mail = render.part_mail(part, "p@example.org", TABLE.domain)
    page = chromium.new_page(viewport={"width": 600, "height": 900})
    page.set_content(mail.html)
    table = page.locator("table.principality")
    assert table.is_visible()
    box = table.bounding_box()
    assert box and box["width"] >= 7 * yard_svg.CELL and box["x"] + box["width"] <= 600
    cells = table.locator("td")
    assert cells.count() == 49
    me = GAME.view(state, seat)["players"][seat]
    grid, _ = marks(me)
    for index in range(49):
        cell = cells.nth(index)
        cell_box = cell.bounding_box()
        assert cell_box and cell_box["width"] >= 30 and cell_box["height"] >= 30, "a square one can see"
        mark = grid[index // 7][index % 7]
        assert cell.inner_text().strip() == ("" if mark == "." else mark)
    palazzo = cells.nth(5 * 7)  # A6
    assert palazzo.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(75, 63, 114)"  # #4b3f72
    assert page.locator("table.legend").is_visible() and page.locator("table.legend td").count() >= 6
    assert page.locator(".recap li").count() == 3 and page.locator(".recap li").first.is_visible()
    screenshot(page, "decision-principality", folder=MAIL_ARTEFACTS)
    page.close()


def test_no_recap_shows_another_seats_private_part_in_random_games(app, client):
    """Random legal moves (standing orders now and then) in whole games; at every other state each
    seat's recap, and its decision mail, is scanned for the other seats' secrets."""
    store = app.extensions["palazzo.store"]
    caught = checked = 0
    for seed in (1, 2, 3):
        created = new_game(client, game="princes-of-florence", seats=3, seed=seed)
        game_id, rng = created["game"]["id"], random.Random(seed)
        for step in range(2000):
            table = games.load(store, game_id)
            if table.status != games.RUNNING:
                break
            seat = table.pending[0]["seat"]
            legal = table.game.legal_moves(table.state, seat)
            moves = [m for m in legal if m["type"] != "set_orders"] or legal
            if rng.random() < 0.05:
                moves = [{"type": "set_orders", "limits": {rng.choice(["woods", "lake", "park"]): 1730},
                          "step_out_otherwise": False}]
            try:
                playing.play(store, table, seat, rng.choice(moves))
            except Problem:  # orders the rules refuse (no auction left to act on): a move instead
                playing.play(store, table, seat, rng.choice([m for m in legal if m["type"] != "set_orders"]))
            if step % 2:
                continue
            table = games.load(store, game_id)
            view = full_view(POF, table.state)
            frame = seats.frame(table, "palazzo.example")
            raw, _ = store.events(game_id, 0, 10_000)
            for reader in range(3):
                told = recap.of(store, table, reader)
                text = "\n".join(told["lines"]) if told else ""
                decision = table.decision_of(reader)
                if decision is not None and table.status == games.RUNNING:
                    to = render.Recipient("p@example.org", f"P{reader}", reader, "UTC", 0)
                    part = render.decision_part(GAME.view(table.state, reader), {**decision, "deadline_at": DEADLINE},
                                                frame, to, {}, NOW, recap=told)
                    made = render.part_mail(part, to.email, Config.from_env().mail.domain)
                    text += "\n" + made.text + "\n" + made.html
                assert not _shown(text, view, reader, raw), (reader, _shown(text, view, reader, raw))
                checked += 1
                unredacted = [line["text"] for line in story.lines(GAME, raw[-recap.RECAP_LINES:], frame.names, reader)]
                caught += bool(_shown("\n".join(unredacted), view, reader, raw))
    assert checked > 300 and caught, "the unredacted feed's sentences were caught: the check can fail"


def _shown(text: str, view: dict, reader: int, feed: list[dict]) -> list:
    """The other seats' secrets the text shows, but for the sums the public feed told everyone."""
    return exposed(text, view, reader, told_sums(feed))

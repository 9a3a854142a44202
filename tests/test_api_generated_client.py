"""A third-party client generated from the committed spec plays a whole game, typed end to end.

openapi-python-client turns openapi/openapi.json into a package (once per session, in a temporary
folder); the test then drives the app in-process through that package alone (httpx's WSGI transport,
no network): every request is a generated operation, every body a generated model, every move one
the server listed and the client parsed into a move class. Nothing here writes a move as a dict.
One seat is open: a newcomer finds the game in the lobby, signs in by the mail its join link sends
and takes the seat, all through generated operations.
"""
from __future__ import annotations

import importlib
import json
import random
import re
import shutil
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote

import httpx
import pytest

from tests.conftest import mailed_link

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi" / "openapi.json"
PACKAGE = "palazzo_generated_client"
CONFIG = ("post_hooks: []\n"
          "project_name_override: palazzo-generated-client\n"
          f"package_name_override: {PACKAGE}\n")
BASE_URL = "http://testserver"
SEED = 11
MAX_MOVES = 2000


def _generator_command() -> list[str]:
    """`python -m openapi_python_client`, or the console script installed next to this Python."""
    probe = subprocess.run([sys.executable, "-m", "openapi_python_client", "--version"],
                           capture_output=True, text=True, timeout=60)
    if probe.returncode == 0:
        return [sys.executable, "-m", "openapi_python_client"]
    script = Path(sys.executable).with_name("openapi-python-client")
    found = str(script) if script.exists() else shutil.which("openapi-python-client")
    assert found, f"openapi-python-client is a test dependency (pip install -e '.[test]'): {probe.stderr}"
    return [found]


def _move_class_names(spec: dict) -> list[str]:
    """The generated class of every move type MoveIn accepts: the component's title (the game's prefix and
    the move type in PascalCase, so two games' "bid" are two classes)."""
    schemas = spec["components"]["schemas"]
    refs = [option["$ref"].rsplit("/", 1)[1] for option in schemas["MoveIn"]["properties"]["move"]["oneOf"]]
    return [schemas[ref]["title"] for ref in refs]


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """The generated package, imported from a temporary folder; sys.path and sys.modules restored after."""
    folder = tmp_path_factory.mktemp("generated-client")
    config = folder / "config.yaml"
    config.write_text(CONFIG)
    output = folder / "client"
    run = subprocess.run([*_generator_command(), "generate", "--path", str(SPEC), "--output-path", str(output),
                          "--config", str(config)], capture_output=True, text=True, timeout=180, cwd=ROOT)
    said = (run.stdout + run.stderr).strip()
    assert run.returncode == 0, said
    # The spec must generate cleanly: the generator reports every schema it could not parse.
    complaints = [line for line in said.splitlines() if re.search(r"warning|unable|error|skipp", line, re.I)]
    assert complaints == [], said
    assert (output / PACKAGE / "models" / "__init__.py").exists(), said

    sys.path.insert(0, str(output))
    importlib.invalidate_caches()
    try:
        spec = json.loads(SPEC.read_text())
        package = importlib.import_module(PACKAGE)
        models = importlib.import_module(f"{PACKAGE}.models")
        names = _move_class_names(spec)
        missing = [name for name in names if not hasattr(models, name)]
        assert missing == [], f"move types without a generated class: {missing}"
        yield SimpleNamespace(
            Client=package.Client, AuthenticatedClient=package.AuthenticatedClient, m=models,
            Unset=importlib.import_module(f"{PACKAGE}.types").Unset,
            move_classes=tuple(getattr(models, name) for name in names),
            create_game=importlib.import_module(f"{PACKAGE}.api.games.create_game"),
            get_game=importlib.import_module(f"{PACKAGE}.api.games.get_game"),
            start_game=importlib.import_module(f"{PACKAGE}.api.host.start_game"),
            list_legal_moves=importlib.import_module(f"{PACKAGE}.api.moves.list_legal_moves"),
            submit_move=importlib.import_module(f"{PACKAGE}.api.moves.submit_move"),
            request_sign_in=importlib.import_module(f"{PACKAGE}.api.players.request_sign_in"),
            redeem_sign_in=importlib.import_module(f"{PACKAGE}.api.players.redeem_sign_in"),
            join_game=importlib.import_module(f"{PACKAGE}.api.seats.join_game"),
            list_lobby=importlib.import_module(f"{PACKAGE}.api.seats.list_lobby"),
            list_my_games=importlib.import_module(f"{PACKAGE}.api.players.list_my_games"),
            post_message=importlib.import_module(f"{PACKAGE}.api.messages.post_message"),
            list_messages=importlib.import_module(f"{PACKAGE}.api.messages.list_messages"),
        )
    finally:
        sys.path.remove(str(output))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(PACKAGE + ".")]:
            del sys.modules[name]
        importlib.invalidate_caches()


class Api:
    """Generated clients bound to the app in-process: anonymous, or carrying a token."""

    def __init__(self, gen, app, stack: ExitStack):
        self.gen, self.app, self.stack = gen, app, stack

    def anonymous(self):
        # set_httpx_client: the caller's own httpx.Client, here one that talks WSGI to the app.
        transport = httpx.WSGITransport(app=self.app)
        http = self.stack.enter_context(httpx.Client(transport=transport, base_url=BASE_URL))
        return self.gen.Client(base_url=BASE_URL, raise_on_unexpected_status=True).set_httpx_client(http)

    def bearer(self, token: str):
        # httpx_args: the generated client builds the httpx.Client itself, so it adds "Bearer <token>"
        # (set_httpx_client would replace the client and with it the Authorization header).
        client = self.gen.AuthenticatedClient(base_url=BASE_URL, token=token, raise_on_unexpected_status=True,
                                              httpx_args={"transport": httpx.WSGITransport(app=self.app)})
        return self.stack.enter_context(client)


@pytest.fixture
def api(generated, app):
    with ExitStack() as stack:
        yield Api(generated, app, stack)


def _ok(response, status: int, model):
    """The response had `status` and its body parsed into the generated `model`."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert isinstance(response.parsed, model), type(response.parsed)
    return response.parsed


def _problem(gen, response, status: int, code: str):
    """The response is a problem document, parsed into the generated Problem with that code."""
    problem = _ok(response, status, gen.m.Problem)
    assert isinstance(problem.code, gen.m.ProblemCode) and problem.code == code, problem
    assert problem.status == status
    return problem


def _joins(gen, api, link: str, game_id: str):
    """Cid, new here, joins the open seat by the join link: a sign-in link mailed for it, redeemed for
    a player token, and the join; his client."""
    m = gen.m
    spectator = api.anonymous()
    _problem(gen, gen.join_game.sync_detailed(game_id, client=spectator, body=m.JoinIn(link=link, name="Cid")),
             401, "token_required")
    asked = gen.request_sign_in.sync_detailed(client=spectator, body=m.SignInIn(email="cid@example.org", join=link))
    _ok(asked, 202, m.AcceptedOut)
    redeemed = gen.redeem_sign_in.sync_detailed(client=spectator, body=m.RedeemIn(
        link=unquote(mailed_link(api.app, "cid@example.org"))))
    cid = api.bearer(_ok(redeemed, 201, m.PlayerOut).token)
    _problem(gen, gen.join_game.sync_detailed(game_id, client=cid, body=m.JoinIn(link=link[:-2] + "zz", name="Cid")),
             403, "bad_join_link")
    joined = _ok(gen.join_game.sync_detailed(game_id, client=cid, body=m.JoinIn(link=link, name="Cid", seat=2)),
                 200, m.GameOut)
    assert joined.you.role == m.YouOutRole.SEAT and joined.you.seat == 2 and joined.seats[2].name == "Cid"
    return cid


def test_the_generated_client_plays_a_whole_three_seat_game(generated, api):
    gen, m = generated, generated.m
    spectator = api.anonymous()

    body = m.GameIn(game=m.GameInGame.PRINCES_OF_FLORENCE, seed=SEED, public=True,
                    options=m.PrincesOfFlorenceOptions(bidding=m.PrincesOfFlorenceOptionsBidding.STEP),
                    seats=[m.SeatIn(name="Ann"), m.SeatIn(name="Bea"), m.SeatIn(open_=True)], title="Ann's table")
    created = _ok(gen.create_game.sync_detailed(client=spectator, body=body), 201, m.CreatedOut)
    assert isinstance(created.game, m.GameOut) and created.game.status == m.GameOutStatus.OPEN
    assert created.game.title == "Ann's table"
    assert created.game.options.to_dict()["seats"] == 3, "the seats listed decide, not the options' default"
    assert created.game.seats[2].open_ and created.game.seats[2].name is None
    game_id = created.game.id
    seat_tokens = {entry.seat: entry.token for entry in created.tokens.seats}
    assert sorted(seat_tokens) == [0, 1], "seats without an address: the creator gets every token"
    seats = {seat: api.bearer(token) for seat, token in seat_tokens.items()}
    lobby = _ok(gen.list_lobby.sync_detailed(client=spectator, limit=5), 200, m.LobbyOut)
    [listed] = lobby.games
    assert listed.id == game_id and listed.open_seats == 1 and isinstance(listed.join, m.JoinLinkOut)
    _problem(gen, gen.start_game.sync_detailed(game_id, client=api.bearer(created.tokens.host)), 409, "seats_open")
    seats[2] = _joins(gen, api, listed.join.link, game_id)

    started = _ok(gen.start_game.sync_detailed(game_id, client=api.bearer(created.tokens.host)), 200, m.GameOut)
    assert started.status == m.GameOutStatus.RUNNING

    _problem(gen, gen.get_game.sync_detailed("no-such-game", client=spectator), 404, "game_not_found")
    _talk(gen, game_id, spectator, seats)
    for seat, client in seats.items():
        own = _ok(gen.get_game.sync_detailed(game_id, client=client), 200, m.GameOut)
        assert own.you.role == m.YouOutRole.SEAT and own.you.seat == seat
        assert [isinstance(p.private, m.PrincesOfFlorenceViewPlayersItemPrivate) for p in own.view.players] == \
            [p.seat == seat for p in own.view.players], "a seat sees its own private part and no other"

    rng = random.Random(SEED)
    moves = 0
    stale_checked = illegal_checked = False
    kinds, move_types = set(), set()
    while True:
        game = _ok(gen.get_game.sync_detailed(game_id, client=spectator), 200, m.GameOut)
        view = game.view
        assert isinstance(view, m.PrincesOfFlorenceView)
        assert len(view.players) == 3
        assert all(isinstance(p, m.PrincesOfFlorenceViewPlayersItem) and isinstance(p.prestige, int)
                   and isinstance(p.private, gen.Unset) for p in view.players), "a spectator sees nothing private"
        assert [p.seat for p in view.players] == [0, 1, 2]
        assert game.you.role == m.YouOutRole.SPECTATOR
        if game.status == m.GameOutStatus.FINISHED:
            break
        assert game.status == m.GameOutStatus.RUNNING and game.result is None
        assert game.pending and all(isinstance(p, m.PendingOut) for p in game.pending)
        assert moves < MAX_MOVES, "the game did not end"

        seat = game.pending[0].seat
        kinds.add(game.pending[0].kind)
        mine = seats[seat]
        answer = gen.list_legal_moves.sync_detailed(game_id, client=mine)
        legal = _ok(answer, 200, m.LegalMovesOut)
        assert legal.seat == seat and legal.moves, legal
        sent = json.loads(answer.content)["moves"]
        for listed, raw in zip(legal.moves, sent, strict=True):
            assert isinstance(listed, m.LabelledMove) and isinstance(listed.label, str) and listed.label
            assert isinstance(listed.move, gen.move_classes), f"not a typed move: {listed.move!r}"
            assert listed.move.to_dict() == raw["move"], f"the typed move lost or changed a field: {raw!r}"
            assert all(isinstance(fill, m.FillOut) and all(isinstance(c, m.FillChoice) for c in fill.choices)
                       for fill in listed.fill)
            assert [fill.to_dict() for fill in listed.fill] == raw["fill"]

        if not illegal_checked:
            # A rule broken: a typed move the seat may not make now, refused with the rules' code.
            wrong = m.PrincesOfFlorenceEndTurn(type_=m.PrincesOfFlorenceEndTurnType.END_TURN)
            assert not any(isinstance(listed.move, m.PrincesOfFlorenceEndTurn) for listed in legal.moves)
            refused = gen.submit_move.sync_detailed(game_id, client=mine,
                                                    body=m.MoveIn(move=wrong, version=legal.version))
            _problem(gen, refused, 422, "not_your_decision")
            illegal_checked = True

        choice = rng.choice(legal.moves)
        submitted = m.MoveIn(move=choice.move, version=legal.version)
        answer = _ok(gen.submit_move.sync_detailed(game_id, client=mine, body=submitted), 200, m.MoveOut)
        assert answer.label == choice.label
        assert isinstance(answer.version, int) and answer.version > legal.version
        assert all(isinstance(p, m.PendingOut) for p in answer.pending)
        move_types.add(type(choice.move).__name__)
        moves += 1

        if not stale_checked:
            # The opening choice is answered: the same move at the same version is now stale.
            again = gen.submit_move.sync_detailed(game_id, client=mine, body=submitted)
            problem = _problem(gen, again, 409, "stale_version")
            assert isinstance(problem.current_version, int) and problem.current_version >= answer.version
            stale_checked = True

    assert moves > 50
    assert {"keep_professions", "bid", "action"} <= kinds, kinds
    assert {"PrincesOfFlorenceKeepProfessions", "PrincesOfFlorenceBid", "PrincesOfFlorenceStepOut", "PrincesOfFlorenceEndTurn"} <= move_types, move_types
    assert isinstance(game.result, m.PrincesOfFlorenceResult)
    scores = game.result.scores
    assert [s.seat for s in scores] == [0, 1, 2]
    assert all(isinstance(s, m.PrincesOfFlorenceResultScoresItem) and isinstance(s.prestige, int)
               and isinstance(s.cash, int) and s.rank >= 1 for s in scores)
    best = min(s.rank for s in scores)
    assert best == 1 and sorted(game.result.winners) == [s.seat for s in scores if s.rank == 1]
    assert view.phase == m.PrincesOfFlorenceViewPhase.OVER
    assert [p.prestige for p in view.players] == [s.prestige for s in scores]
    mine = _ok(gen.list_my_games.sync_detailed(client=seats[1]), 200, m.MyGamesOut)
    [listed] = mine.games
    assert isinstance(listed, m.MyGameOut) and listed.title == "Ann's table" and listed.seat == 1
    assert isinstance(listed.result, m.MyResultOut) and listed.result.rank == scores[1].rank


def _talk(gen, game_id: str, spectator, seats: dict) -> None:
    """The table talks through the generated client: a message to the table and a private one, each
    reader getting his typed share; a bad one is a typed problem."""
    m = gen.m
    posted = _ok(gen.post_message.sync_detailed(game_id, client=seats[0], body=m.MessageIn(text="Good luck!")),
                 201, m.MessageOut)
    assert (posted.seq, posted.by, posted.to, posted.text, posted.hidden) == (1, 0, None, "Good luck!", False)
    private = _ok(gen.post_message.sync_detailed(game_id, client=seats[1], body=m.MessageIn(text="Psst", to=2)),
                  201, m.MessageOut)
    assert private.to == 2
    _problem(gen, gen.post_message.sync_detailed(game_id, client=seats[1], body=m.MessageIn(text="x" * 2001)),
             422, "message_too_long")
    for client, texts in ((spectator, ["Good luck!"]), (seats[0], ["Good luck!"]), (seats[2], ["Good luck!", "Psst"])):
        page = _ok(gen.list_messages.sync_detailed(game_id, client=client), 200, m.MessagePageOut)
        assert [message.text for message in page.messages] == texts and page.next_after == 2 and not page.more
        assert all(isinstance(message, m.MessageOut) for message in page.messages)
    resumed = _ok(gen.list_messages.sync_detailed(game_id, client=spectator, after=1), 200, m.MessagePageOut)
    assert resumed.messages == [] and resumed.next_after == 2


@pytest.fixture
def goofspiel_api(generated, redis_url):
    from tests.conftest import make_app
    with ExitStack() as stack:
        yield Api(generated, make_app(redis_url, GAMES=["princes-of-florence", "goofspiel"]), stack)


def test_the_generated_client_plays_a_whole_goofspiel_game_with_typed_bids(generated, goofspiel_api):
    """Goofspiel through the same generated package: its options, its view, its bid (GoofspielBid, a class
    of its own beside Florence's bid) and its result are typed; a seat sees its own bid alone."""
    gen, m, api = generated, generated.m, goofspiel_api
    spectator = api.anonymous()
    body = m.GameIn(game=m.GameInGame.GOOFSPIEL, seed=SEED, seats=[m.SeatIn(name=name) for name in ("Ann", "Bea", "Cy")],
                    options=m.GoofspielOptions(cards=5, ties=m.GoofspielOptionsTies.CARRY))
    created = _ok(gen.create_game.sync_detailed(client=spectator, body=body), 201, m.CreatedOut)
    game_id = created.game.id
    seats = {entry.seat: api.bearer(entry.token) for entry in created.tokens.seats}
    _ok(gen.start_game.sync_detailed(game_id, client=api.bearer(created.tokens.host)), 200, m.GameOut)
    rng = random.Random(SEED)
    bids = 0
    while True:
        game = _ok(gen.get_game.sync_detailed(game_id, client=spectator), 200, m.GameOut)
        view = game.view
        assert isinstance(view, m.GoofspielView), type(view)
        assert all(isinstance(p.private, gen.Unset) for p in view.players), "a spectator sees no bid"
        if game.status == m.GameOutStatus.FINISHED:
            break
        assert bids < 100, "the game did not end"
        for decision in game.pending:
            mine = seats[decision.seat]
            legal = _ok(gen.list_legal_moves.sync_detailed(game_id, client=mine), 200, m.LegalMovesOut)
            assert legal.moves and all(isinstance(listed.move, m.GoofspielBid) for listed in legal.moves)
            hand = _ok(gen.get_game.sync_detailed(game_id, client=mine), 200, m.GameOut).view.players[decision.seat].hand
            assert sorted(listed.move.card for listed in legal.moves) == sorted(hand)
            if bids == 0:  # a card not in the hand: refused with the rules' code, typed
                played = max(set(range(1, 6)) - set(hand), default=None)
                wrong = m.GoofspielBid(type_=m.GoofspielBidType.BID, card=played or 13)
                _problem(gen, gen.submit_move.sync_detailed(game_id, client=mine,
                                                            body=m.MoveIn(move=wrong, version=legal.version)),
                         422, "not_in_hand")
            choice = rng.choice(legal.moves)
            answer = _ok(gen.submit_move.sync_detailed(game_id, client=mine,
                                                       body=m.MoveIn(move=choice.move, version=legal.version)),
                         200, m.MoveOut)
            assert answer.label == f"Bid {choice.move.card}"
            bids += 1
            own = _ok(gen.get_game.sync_detailed(game_id, client=mine), 200, m.GameOut).view
            others = [p for p in own.players if p.seat != decision.seat]
            assert all(isinstance(p.private, gen.Unset) for p in others), "nobody else's bid"
            if own.phase == m.GoofspielViewPhase.BIDDING and own.round_ == view.round_:
                assert own.players[decision.seat].private.bid == choice.move.card, "its own bid, until the reveal"
                again = gen.submit_move.sync_detailed(game_id, client=mine,
                                                      body=m.MoveIn(move=choice.move, version=answer.version))
                _problem(gen, again, 422, "already_bid")
    assert bids == 4 * 3, "the last round plays itself"
    assert isinstance(game.result, m.GoofspielResult) and len(view.history) == 5
    assert all(len(entry.bids) == 3 for entry in view.history)
    ranks = {score.seat: score.rank for score in game.result.scores}
    assert sorted(game.result.winners) == [seat for seat, rank in ranks.items() if rank == 1]

"""No mail leaves for a decision that is no longer the player's when it would leave: not one held for
the merge window, not one waiting on a retry's backoff after the provider failed it. Real workers, the
SendGrid library against a stub provider that fails the first try."""
from __future__ import annotations

from service import tokens
from service.mail import sending
from service.store import email_key
from tests.conftest import jobs_idle, make_app, wait_for
from tests.mail_games import answer, player
from tests.provider_stub import Provider

ANN, BEA = "ann@example.org", "bea@example.org"


def test_answers_inside_the_merge_window_and_within_a_retrys_backoff_stop_their_mails(redis_url, workers,
                                                                                        monkeypatch):
    failing = {BEA}  # the provider fails Bea's first mail (503), then takes what comes

    def answer_of(payload: dict) -> int:
        to = payload["personalizations"][0]["to"][0]["email"]
        if to in failing:
            failing.discard(to)
            return 503
        return 202

    inline = make_app(redis_url)  # creates the game and signs the players in, its mail kept in the outbox
    queued = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0)
    made = inline.test_client().post("/api/v1/games", json={
        "game": "princes-of-florence", "seed": 4, "deadlines": {"setup": 3600},
        "seats": [{"name": "Ann", "email": ANN}, {"name": "Bea", "email": BEA}, {"name": "Cy"}]}).get_json()
    game_id = made["game"]["id"]
    ann, bea = (player(inline, inline.test_client(), to) for to in (ANN, BEA))
    store = queued.extensions["palazzo.store"]
    with Provider(answer_of) as provider:
        workers(1, PALAZZO_MAIL_MERGE_SECONDS="3", PALAZZO_MAIL_RETRY_SECONDS="2,2", **provider.env())
        client = queued.test_client()
        assert client.post(f"/api/v1/games/{game_id}/start",
                           headers={"Authorization": f"Bearer {made['tokens']['host']}"}).status_code == 200
        wait_for(lambda: store.redis.llen(email_key(tokens.email_hash(ANN), "held")) == 1)
        answer(client, ann, game_id)  # inside the merge window: her mail is still held
        wait_for(lambda: any(m["personalizations"][0]["to"][0]["email"] == BEA for m in provider.mails))
        answer(client, bea, game_id)  # her mail failed once and waits for its retry
        wait_for(lambda: int(store.redis.hget(sending.DROPPED, "choose") or 0) == 2)
        wait_for(lambda: jobs_idle(store.followups.connection))
        sent_to = [m["personalizations"][0]["to"][0]["email"] for m in provider.mails]
    assert sent_to == [BEA], "only Bea's first try reached the provider, and it failed; nothing left afterwards"

"""`/settings`: a signed-in player's mail settings in a form that works without JavaScript: his time
zone (from the list of IANA names; the optional script preselects the browser's own while the stored
one is still the default), which mail he takes and at what rhythm, his digest hour, reminder steps
and quiet hours, each game's own settings and talk, and the games he unsubscribed from, each with a
button to subscribe again; his tokens and browser sessions, each with a button that ends it, a "sign out
everywhere" button, a form to change his address (`service.addresses`), and a button that deletes his
data (`service.forgetting`) after a page that asks first. The form is checked whole by `service.settings.change`, the API's own
path: a refusal is shown on the page and nothing is changed.
"""
from __future__ import annotations

from typing import Any

from flask import Response, redirect, request, url_for
from marshmallow import ValidationError

from service import addresses, forgetting, games, preferences, settings, sign_ins, zones
from service.channels import KINDS, targets, webhooks
from service.problems import Problem
from service.schemas import AddressIn
from service.web import config as web_config
from service.web import links as web_links
from service.web import session
from service.web import store as web_store
from service.web.pages import blueprint, render

bp = blueprint("settings_page", __name__)
MAIL_WORDS = {"all": "All of it: my decisions and reminders, round results and final scores",
              "decisions": "Only my decisions and reminders", "none": "None at all (table talk included)"}
RHYTHM_WORDS = {"each": "Each decision at once, in its own mail",
                "digest": "One mail a day at my digest hour, with every game waiting for me"}
TALK_WORDS = {"each": "each message", "digest": "in the daily digest", "none": "no mail"}
GENERAL = ""  # a game's field left to his general setting


def _steps(text: str) -> list[str]:
    return [step.strip() for step in text.replace(";", ",").split(",") if step.strip()]


def _games(email_hash: str) -> list[dict[str, Any]]:
    """The games he holds a seat at, with their titles, oldest id first."""
    held = games.seats_held(web_store(), email_hash)
    return [{"id": game_id, "title": games.title_of(head), "seat": seat}
            for game_id, (seat, head) in sorted(held.items())]


def _page(email_hash: str, status: int = 200, error: str | None = None, field: str | None = None,
          secret: str | None = None) -> Response:
    shown = settings.shown(web_store(), email_hash)
    held = _games(email_hash)
    titles = {game["id"]: game["title"] for game in held}
    return render("settings.html", status, shown=shown, held=held, error=error, field=field,
                  flash=session.take_flash(), zones=sorted(zones.names()), mail_words=MAIL_WORDS,
                  rhythm_words=RHYTHM_WORDS, talk_words=TALK_WORDS,
                  unsubscribed=[{"id": game_id, "title": titles.get(game_id, game_id)}
                                for game_id in preferences.unsubscribed(shown)],
                  browser_zone=shown["time_zone"] == preferences.DEFAULTS["time_zone"],
                  webhooks=webhooks.of_owner(web_store(), email_hash), webhook_kinds=KINDS, new_secret=secret,
                  ways_in=sign_ins.listed(web_store(), email_hash, web_config().token_idle, web_config().session_idle))


def _signed_in() -> str | None:
    return session.current().email


@bp.route("/settings", methods=["GET"])
def show() -> Response:
    email_hash = _signed_in()
    if email_hash is None:
        return render("settings.html", 200, shown=None, held=[], error=None, field=None, flash=[], zones=[],
                      unsubscribed=[], browser_zone=False)
    return _page(email_hash)


def _changes(form: Any, held: list[dict[str, Any]]) -> dict[str, Any]:
    """What the form asks for, as the API would take it (checked by `settings.change`)."""
    changes: dict[str, Any] = {key: form.get(key, "") for key in ("time_zone", "mail", "rhythm")}
    hour = form.get("digest_hour", "")
    changes["digest_hour"] = int(hour) if hour.isdigit() else hour
    changes["reminders"] = _steps(form.get("reminders", ""))
    start, end = form.get("quiet_from", "").strip(), form.get("quiet_to", "").strip()
    changes["quiet"] = None if not start and not end else {"from": start, "to": end}
    changes["games"], changes["talk"] = {}, {}
    for game in held:
        own: dict[str, Any] = {}
        for key in ("rhythm", "mail"):
            value = form.get(f"{key}-{game['id']}", GENERAL)
            if value != GENERAL:
                own[key] = value
        steps = form.get(f"reminders-{game['id']}", "").strip()
        if steps:
            own["reminders"] = [] if steps.lower() == "none" else _steps(steps)
        changes["games"][game["id"]] = own
        talk = form.get(f"talk-{game['id']}")
        if talk is not None:
            changes["talk"][game["id"]] = talk
    if not changes["talk"]:
        changes.pop("talk")
    return changes


@bp.route("/settings", methods=["POST"])
def save() -> Response:
    email_hash = _signed_in()
    if email_hash is None:
        return redirect(url_for("settings_page.show"), 303)
    changes = _changes(request.form, _games(email_hash))
    talk = changes.get("talk", {})
    if any(choice not in preferences.TALK_CHOICES for choice in talk.values()):
        return _page(email_hash, 422, "a game's table talk comes as each message, in the digest, or not at all",
                     "talk")
    try:
        settings.change(web_store(), email_hash, changes)
    except preferences.Refused as refused:
        return _page(email_hash, 422, refused.detail, refused.field)
    session.flash("Your settings are saved.")
    return redirect(url_for("settings_page.show"), 303)


@bp.route("/settings/subscribe", methods=["POST"])
def subscribe() -> Response:
    """Take a game's mail again (`game`), or all mail again (no game)."""
    email_hash = _signed_in()
    if email_hash is None:
        return redirect(url_for("settings_page.show"), 303)
    game_id = request.form.get("game", "")
    if game_id:
        if game_id in preferences.read(web_store(), email_hash)["games"]:
            preferences.set_game(web_store(), email_hash, game_id, mail=None)
            session.flash("You take this game's mail again.")
    else:
        preferences.write(web_store(), email_hash, {"mail": "all"})
        session.flash("Palazzo mails you again.")
    return redirect(url_for("settings_page.show"), 303)


@bp.route("/settings/webhooks", methods=["POST"])
def add_webhook() -> Response:
    """Register a webhook (`url`, `game` or all games, `format`, the `events` ticked) by the API's own
    checks; the page shows its signing secret once."""
    email_hash = _signed_in()
    if email_hash is None:
        return redirect(url_for("settings_page.show"), 303)
    events = [kind for kind in request.form.getlist("events") if kind in KINDS] or list(KINDS)
    format_ = request.form.get("format", "json")
    if format_ not in webhooks.FORMATS:
        return _page(email_hash, 422, "a webhook's body is json, discord or slack", "webhook")
    try:
        hook = webhooks.add(web_store(), email_hash, request.form.get("url", "").strip(), request.form.get("game") or None,
                            events, format_, web_config().webhook_allow_private)
    except (targets.Refused, Problem) as refused:
        return _page(email_hash, 422, refused.detail, "webhook")
    return _page(email_hash, 201, secret=hook.secret)


@bp.route("/settings/webhooks/remove", methods=["POST"])
def remove_webhook() -> Response:
    email_hash = _signed_in()
    if email_hash is None:
        return redirect(url_for("settings_page.show"), 303)
    hook = webhooks.get(web_store(), request.form.get("id", ""))
    if hook is not None and hook.owner == email_hash:
        webhooks.remove(web_store(), hook)
        session.flash("The webhook is removed.")
    return redirect(url_for("settings_page.show"), 303)


@bp.route("/settings/tokens/revoke", methods=["POST"])
def revoke_token() -> Response:
    """End one of his tokens or sessions (`id`); an id not his changes nothing."""
    email_hash = _signed_in()
    if email_hash is None:
        return redirect(url_for("settings_page.show"), 303)
    if sign_ins.revoke(web_store(), email_hash, request.form.get("id", "")[:40]):
        session.flash("That token or browser is signed out.")
    return redirect(url_for("settings_page.show"), 303)


@bp.route("/settings/sign-out-everywhere", methods=["POST"])
def sign_out_everywhere() -> Response:
    """End every token and session of his address, this browser's too."""
    email_hash = _signed_in()
    if email_hash is not None:
        sign_ins.revoke_all(web_store(), email_hash)
        session.sign_out()
    return redirect(url_for("home_page.home"), 303)


@bp.route("/settings/address", methods=["POST"])
def change_address() -> Response:
    """Ask to play from another address, as POST /api/v1/me/address does: both ends are mailed a link."""
    email_hash = _signed_in()
    if email_hash is None:
        return redirect(url_for("settings_page.show"), 303)
    try:
        new = AddressIn().load({"email": request.form.get("email", "")[:300]})["email"]
        addresses.ask(web_store(), web_links(), email_hash, new)
    except ValidationError:
        return _page(email_hash, 422, "that is not an address we can mail; nothing was changed", "address")
    except Problem as problem:
        return _page(email_hash, problem.status, problem.detail, "address")
    session.flash(f"A link is on its way to {new}, and another to your address now: open both, within a day.")
    return redirect(url_for("settings_page.show"), 303)


@bp.route("/settings/delete", methods=["GET"])
def delete_confirm() -> Response:
    """What deleting his data means, and the one button that does it: a link to this page deletes nothing."""
    email_hash = _signed_in()
    if email_hash is None:
        return redirect(url_for("settings_page.show"), 303)
    return _delete_page(email_hash)


def _delete_page(email_hash: str, status: int = 200, problem: str | None = None) -> Response:
    playing = [{"id": game_id, "title": games.title_of(head)}
               for game_id, (_, head) in sorted(games.seats_held(web_store(), email_hash).items())
               if head.status in forgetting.STILL_PLAYED]
    return render("delete.html", status, playing=playing, problem=problem)


@bp.route("/settings/delete", methods=["POST"])
def delete() -> Response:
    """Delete his data, from the confirmation page's button (CSRF checked by the blueprint); without its
    `confirm` the page is shown again and nothing changes."""
    email_hash = _signed_in()
    if email_hash is None:
        return redirect(url_for("settings_page.show"), 303)
    if request.form.get("confirm") != "yes":
        return _delete_page(email_hash, 422, "Press the button below to delete your data; nothing was changed.")
    forgetting.forget(web_store(), web_links(), email_hash)
    session.sign_out()
    return render("delete.html", 200, done=True, playing=[], problem=None)

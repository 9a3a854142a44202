"""What every page of the site shares: its blueprint's headers, guards and session cookie, error pages.

Every page is drawn for one visitor, so every answer of a page blueprint, refusals and errors
included, goes out with the same headers: no cache keeps it, no Referer carries its URL on (a link's
token may be in it), no other site may frame it, and no script or style runs but our own files.
A blueprint of the site (`session=True`) also keeps the browser's session: it checks the CSRF token
of every POST before the view runs and renders any refusal (`Problem`) as a page that changes
nothing. Pages reached from a mail program (`session=False`: one-click answers, unsubscribing,
which mail providers post to without a cookie) set no cookie and check no CSRF token: their signed
link is their proof.
"""
from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, Response, current_app, render_template, request

from service.problems import Problem
from service.web import forms
from service.web import session as visits

POLICY = {
    "default-src": "'self'", "img-src": "'self' data:", "style-src": "'self'", "script-src": "'self'",
    "connect-src": "'self'", "form-action": "'self'", "frame-ancestors": "'none'", "base-uri": "'none'",
}
INLINE_STYLES = "'self' 'unsafe-inline'"  # for HTML mail shown as a mail program shows it: its styles are inline
HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "X-Robots-Tag": "noindex",
}
STATIC_PATH = "/assets"
POLL_SECONDS = 15  # how often an open page asks the event feed whether the game moved on


def policy(inline_styles: bool = False) -> str:
    """The Content-Security-Policy of a page."""
    directives = {**POLICY, **({"style-src": INLINE_STYLES} if inline_styles else {})}
    return "; ".join(f"{name} {sources}" for name, sources in directives.items())


def blueprint(name: str, import_name: str, *, session: bool = True, inline_styles: bool = False) -> Blueprint:
    """A blueprint for pages: the pages' headers on every answer; with `session`, the session cookie,
    CSRF on POST and refusals as pages. `inline_styles` is for the local mailbox alone, which shows
    HTML mail in a frame that inherits the page's policy."""
    bp = Blueprint(name, import_name, template_folder="templates")
    headers = {**HEADERS, "Content-Security-Policy": policy(inline_styles)}

    def finish(response: Response) -> Response:
        response.headers.update(headers)
        return visits.set_cookie(response) if session else response

    bp.after_request(finish)
    bp.context_processor(_layout)
    if session:
        bp.before_request(_guard)
        bp.register_error_handler(Problem, refused)
        bp.context_processor(_shared)
    return bp


def assets() -> Blueprint:
    """The stylesheet and the optional script, served from service/web/static."""
    return Blueprint("web_assets", __name__, static_folder="static", static_url_path=STATIC_PATH)


SIGN_IN_PAGES = "sign_in_page."  # reached with an ended session too: it is the way back in


def _guard() -> Response | None:
    """Refuse a POST without the session's CSRF token; an ended session gets the sign-in page."""
    if visits.current().expired and not (request.endpoint or "").startswith(SIGN_IN_PAGES):
        return render("sign_in.html", 401, link="", error=None, mailed=False, expired=True)
    if request.method == "POST":
        visits.check_csrf()
    return None


def refused(problem: Problem) -> Response:
    """A refusal as a page: what went wrong, in words, and that nothing changed."""
    return render("error.html", problem.status, heading=_headings.get(problem.code, "That did not work"),
                  message=problem.detail, code=problem.code)


_headings = {
    "bad_link": "This link does not work", "link_expired": "This link has expired",
    "link_used": "This link was used already", "forbidden": "This form has expired",
    "game_not_found": "No such game", "not_a_seat": "Not your seat", "host_only": "For the host only",
    "bad_join_link": "This join link does not work", "join_link_expired": "This join link has expired",
    "join_link_revoked": "This join link was turned off", "game_over": "This game is over",
    "game_full": "This game is full", "game_not_over": "This game has no archive yet",
}


def _layout() -> dict[str, Any]:
    return {"static_path": STATIC_PATH}


def _shared() -> dict[str, Any]:
    return {"csrf": visits.csrf_token(), "visitor": visits.current(), "form_key": lambda: secrets.token_urlsafe(12),
            "move_fields": forms.fields_of, "poll_seconds": current_app.config.get("WEB_POLL_SECONDS", POLL_SECONDS)}


def render(template: str, status: int = 200, **context: Any) -> Response:
    return current_app.make_response((render_template(template, **context), status))

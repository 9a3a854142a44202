"""What every page of the site shares: its blueprint's guards, the session cookie, headers, error pages.

A page blueprint checks the CSRF token of every POST before the view runs, renders any refusal
(`Problem`) as a page with the right status that changes nothing, and marks every answer private:
pages are drawn for one visitor, so no cache may keep them and no Referer carries their URL on.
"""
from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, Response, current_app, render_template, request

from service.problems import Problem
from service.web import forms, session

SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                                "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
}
STATIC_PATH = "/assets"
POLL_SECONDS = 15  # how often an open page asks the event feed whether the game moved on


def blueprint(name: str, import_name: str) -> Blueprint:
    """A blueprint for pages: CSRF on POST, refusals as pages, the session cookie and private headers."""
    bp = Blueprint(name, import_name, template_folder="templates")
    bp.before_request(_guard)
    bp.after_request(finish)
    bp.register_error_handler(Problem, refused)
    bp.context_processor(_shared)
    return bp


def assets() -> Blueprint:
    """The stylesheet and the optional script, served from service/web/static."""
    return Blueprint("web_assets", __name__, static_folder="static", static_url_path=STATIC_PATH)


def _guard() -> None:
    if request.method == "POST":
        session.check_csrf()


def finish(response: Response) -> Response:
    for header, value in SECURITY_HEADERS.items():
        response.headers.setdefault(header, value)
    response.headers["X-Robots-Tag"] = "noindex"
    return session.set_cookie(response)


def refused(problem: Problem) -> Response:
    """A refusal as a page: what went wrong, in words, and that nothing changed."""
    return render("error.html", problem.status, heading=_headings.get(problem.code, "That did not work"),
                  message=problem.detail, code=problem.code)


_headings = {
    "bad_link": "This link does not work", "link_expired": "This link has expired",
    "link_used": "This link was used already", "forbidden": "This form has expired",
    "game_not_found": "No such game", "not_a_seat": "Not your seat", "host_only": "For the host only",
}


def _shared() -> dict[str, Any]:
    return {"csrf": session.csrf_token(), "visitor": session.current(), "form_key": lambda: secrets.token_urlsafe(12),
            "move_fields": forms.fields_of, "static_path": STATIC_PATH,
            "poll_seconds": current_app.config.get("WEB_POLL_SECONDS", POLL_SECONDS)}


def render(template: str, status: int = 200, **context: Any) -> Response:
    return current_app.make_response((render_template(template, **context), status))

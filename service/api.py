"""flask-smorest's Api, made to answer every error as application/problem+json with a stable code."""
from __future__ import annotations

import http
import logging

from flask_smorest import Api
from flask_smorest.utils import prepare_response
from werkzeug.exceptions import HTTPException

from engine.core import IllegalMove
from service.problems import CODES, PROBLEM_TYPE, Problem, problem_response, render
from service.schemas import ProblemSchema

log = logging.getLogger(__name__)

GENERIC = {status: code for code, (status, _) in reversed(CODES.items())}  # each status's first code


class ProblemApi(Api):
    """Errors documented and rendered as RFC 9457 problems (the 405 keeps its Allow header)."""

    ERROR_SCHEMA = ProblemSchema

    def _register_error_handlers(self):
        super()._register_error_handlers()
        self._app.register_error_handler(Problem, render)
        self._app.register_error_handler(IllegalMove, lambda e: render(Problem.of_rules(e)))

    def handle_http_exception(self, error: HTTPException):
        status = error.code or 500
        if status >= 500:
            log.error("internal error", exc_info=getattr(error, "original_exception", None))
        headers = {k: v for k, v in error.get_headers() if k.lower() != "content-type"}
        data = getattr(error, "data", None) or {}
        headers.update(data.get("headers") or {})
        extra = {}
        if "messages" in data or "errors" in data:
            extra["errors"] = data.get("errors") or data["messages"]
        detail = data.get("message") or error.description or http.HTTPStatus(status).phrase
        return problem_response(status, GENERIC.get(status, http.HTTPStatus(status).name.lower()), detail,
                                headers, **extra)

    def _register_pagination_header(self):
        """Nothing: the API pages by `after`, not by page numbers, so flask-smorest's pagination header and
        its PaginationMetadata schema would only sit unused in the document."""

    def _register_responses(self):
        """Only the default error, as a problem document: `documented` writes each status out in full."""
        response = {"description": "Any error, as a problem document", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_TYPE)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)

"""Errors as RFC 9457 problem documents, so every client parses one shape with a stable `code`."""
from __future__ import annotations

from http import HTTPStatus
from typing import Any

from flask import Response, json

PROBLEM_TYPE = "application/problem+json"


class Problem(Exception):
    """Raise anywhere in a request to answer with a problem document."""

    def __init__(self, status: int, code: str, detail: str, *, headers: dict[str, str] | None = None,
                 **extra: Any):
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra


def problem_response(status: int, code: str, detail: str, headers: dict[str, str] | None = None,
                     **extra: Any) -> Response:
    """The one place a problem document is rendered."""
    body = {
        "type": f"https://palazzo.invalid/problems/{code}",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "code": code,
        "detail": detail,
        **extra,
    }
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM_TYPE)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def render(problem: Problem) -> Response:
    return problem_response(problem.status, problem.code, problem.detail, problem.headers, **problem.extra)

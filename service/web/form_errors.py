"""What a schema refused in a form, in words: the create, host and seat pages check their forms with
the API's marshmallow schemas, and all say the refusal the same way."""
from __future__ import annotations

from typing import Any

from marshmallow import ValidationError


def lines(error: ValidationError) -> list[str]:
    """One line per refused field, named by its path: "seats 2 email: Not a valid email address."."""
    return _lines(error.messages, "")


def _lines(messages: Any, path: str) -> list[str]:
    if isinstance(messages, dict):
        return [line for key, value in messages.items()
                for line in _lines(value, f"{path} {int(key) + 1 if isinstance(key, int) else key}".strip())]
    text = " ".join(messages) if isinstance(messages, list) and all(isinstance(m, str) for m in messages) \
        else str(messages)
    return [f"{path.replace('_', ' ')}: {text}" if path else text]

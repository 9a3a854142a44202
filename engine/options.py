"""A game's options as a creator sends them, read one way for every game's `normalize_options`:
defaults filled in, unknown keys refused, whole numbers within their bounds."""
from __future__ import annotations

from typing import Any

from engine.core import IllegalMove


def with_defaults(options: dict[str, Any] | None, defaults: dict[str, Any]) -> dict[str, Any]:
    """`options` over `defaults`; raises IllegalMove("bad_options") for a key the game does not know."""
    options = dict(options or {})
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        raise IllegalMove("bad_options", f"unknown options {unknown}; known: {sorted(defaults)}")
    return {**defaults, **options}


def whole(value: Any) -> bool:
    """An int that is not a bool (JSON's true is no count)."""
    return isinstance(value, int) and not isinstance(value, bool)


def within(options: dict[str, Any], name: str, low: int, high: int) -> None:
    """Refuse `options[name]` unless it is a whole number from `low` to `high`."""
    if not whole(options[name]) or not low <= options[name] <= high:
        raise IllegalMove("bad_options", f"{name} must be an integer from {low} to {high}")

"""The rules engine: pure functions over plain data. `get_game(name)` is the one way in."""
from engine.core import IllegalMove, copy_state, game_names, get_game, redact, register
from engine import goofspiel, pof  # noqa: F401  (registers Goofspiel and Princes of Florence)

__all__ = ["IllegalMove", "copy_state", "game_names", "get_game", "redact", "register"]

"""Goofspiel, registered with the engine's core under the name "goofspiel"."""
from engine.core import register
from engine.goofspiel.rules import Goofspiel

GAME = register(Goofspiel())

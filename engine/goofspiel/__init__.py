"""Goofspiel, registered with the engine's core under the name "goofspiel", with how it is shown."""
from engine.core import register
from engine.goofspiel.presentation import PRESENTATION
from engine.goofspiel.rules import Goofspiel

GAME = register(Goofspiel())
GAME.presentation = PRESENTATION  # how the service shows it: engine.presentation

"""Princes of Florence, registered with the engine's core under the name "princes-of-florence"."""
from engine.core import register
from engine.pof.presentation import PRESENTATION
from engine.pof.rules import PrincesOfFlorence

GAME = register(PrincesOfFlorence())
GAME.presentation = PRESENTATION  # how the service shows it: engine.presentation

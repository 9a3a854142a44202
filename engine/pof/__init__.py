"""Princes of Florence, registered with the engine's core under the name "princes-of-florence"."""
from engine.core import register
from engine.pof.rules import PrincesOfFlorence

GAME = register(PrincesOfFlorence())

"""The one registry of game packages this service can host: a game's name -> the module that registers it.

This is the only module of service/ and workers/ that names a game package (tests/test_no_game_imports.py
holds that). Everything else asks the engine for a game by name (`engine.core.get_game`) and asks the game
for its presentation (`engine.presentation`). Adding a game to Palazzo is one line here plus its name in
PALAZZO_GAMES. A game registered by other means (a test's toy game) is served by name too.
"""
from __future__ import annotations

import importlib

from jinja2 import BaseLoader, Environment, PackageLoader, TemplateNotFound

from engine.core import Game, game_names, get_game
from engine.presentation import presentation_of

PACKAGES = {"princes-of-florence": "engine.pof", "goofspiel": "engine.goofspiel"}


def load(name: str) -> None:
    """Import the package that registers `name`, if this registry knows it and it is installed."""
    if name in PACKAGES:
        try:
            importlib.import_module(PACKAGES[name])
        except ImportError:
            pass


def load_all() -> None:
    """Register every known game: a worker plays whatever game a stored table holds."""
    for name in PACKAGES:
        load(name)


def template_folders(served: list[Game]) -> dict[str, tuple[str, str]]:
    """Where each served game's Jinja partials are (found as ``games/<name>/<file>``): its name -> (its
    package, the folder in it)."""
    found = {}
    for game in served:
        folder = presentation_of(game).templates
        if folder:
            module = type(game).__module__
            found[game.name] = (module.rpartition(".")[0] or module, folder)
    return found


class GamesLoader(BaseLoader):
    """Finds ``games/<name>/<file>`` in the `templates` folder of the registered game `name`, for the
    pages' and the mails' Jinja environments alike; a game registered after the environment was made
    is found too."""

    def __init__(self) -> None:
        self._loaders: dict[str, PackageLoader] = {}

    def get_source(self, environment: Environment, template: str):
        top, name, rest = (template.split("/", 2) + ["", ""])[:3]
        if top != "games" or not rest or name not in game_names():
            raise TemplateNotFound(template)
        if name not in self._loaders:
            where = template_folders([get_game(name)]).get(name)
            if where is None:
                raise TemplateNotFound(template)
            self._loaders[name] = PackageLoader(*where)
        return self._loaders[name].get_source(environment, rest)


def games_loader() -> GamesLoader:
    """The loader of every game's templates, as ``games/<name>/<file>``."""
    return GamesLoader()


def served_games(names: list[str]) -> list[Game]:
    """The engine objects to serve, in the order asked; a game whose package is missing is skipped."""
    found = []
    for name in names:
        load(name)
        if name in game_names():
            found.append(get_game(name))
    return found

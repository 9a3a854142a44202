"""The service core names no game, and mail and web do not import each other (read from the source's AST).

Only `service/served.py`, the registry, may name a game package. `engine.core`, `engine.presentation`,
`engine.bots`, `engine.typed`, `engine.quoting` and `engine` itself are the game-agnostic engine; any other
package under engine/ is a game's.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AGNOSTIC = {"engine", "engine.core", "engine.presentation", "engine.bots", "engine.typed", "engine.quoting"}
REGISTRY = "service/served.py"
GAME_PACKAGES = {path.parent.name for path in (ROOT / "engine").glob("*/__init__.py")} - {"bots"}


def _imported(source: str) -> set[str]:
    """Every module the source imports, `from engine import pof` counted as engine.pof."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def game_imports(source: str) -> set[str]:
    """The game packages a module's source imports."""
    found = set()
    for name in _imported(source):
        parts = name.split(".")
        if parts[0] == "engine" and len(parts) > 1 and parts[1] in GAME_PACKAGES | {"pof"}:
            found.add(".".join(parts[:2]))
    return found


def _modules(*folders: str):
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path.read_text()


def test_no_service_or_worker_module_imports_a_game_package_but_the_registry():
    naming = {path for path, source in _modules("service", "workers") if game_imports(source)} - {REGISTRY}
    assert not naming, f"these name a game package, ask engine.presentation: {naming}"


def _game_names() -> set[str]:
    """Every served game's registered name and title, as a page or mail would say it."""
    from engine.presentation import title_of
    from service.served import PACKAGES, served_games
    return {name.lower() for name in PACKAGES} | {title_of(game).lower() for game in served_games(list(PACKAGES))}


def test_no_service_or_worker_file_names_a_game_but_the_registry():
    """Nor its code, its docstrings or its templates: what a page or mail says of a game comes from it."""
    files = [path for folder in ("service", "workers") for path in sorted((ROOT / folder).rglob("*"))
             if path.suffix in (".py", ".html", ".txt", ".js") and path.relative_to(ROOT).as_posix() != REGISTRY]
    naming = {path.relative_to(ROOT).as_posix(): found for path in files
              if (found := {name for name in _game_names() if name in path.read_text().lower()})}
    assert not naming, f"these name a game, ask engine.presentation: {naming}"


def test_the_check_catches_every_way_of_importing_a_game():
    for source in ("import engine.pof", "from engine.pof.data import ECONOMY", "from engine import pof",
                   "import engine.pof.words as w", "def f():\n    from engine.pof import scoring\n"):
        assert game_imports(source) == {"engine.pof"}, source
    for source in ("from engine.core import word", "import engine", "from engine.bots import BOTS",
                   "from engine import get_game", "from engine.presentation import presentation_of"):
        assert game_imports(source) == set(), source


def _imports_package(source: str, package: str) -> set[str]:
    return {name for name in _imported(source) if name == package or name.startswith(package + ".")}


def test_mail_does_not_import_web_and_web_reads_only_mails_it_could_not_deliver():
    """The shared pieces (signed links, phrases, story, pictures) sit beside both, Flask-free; the pages
    about mail (the host's list of undelivered mail, the provider's events) read service.mail.undelivered."""
    crossing = {path: _imports_package(source, "service.web") for path, source in _modules("service/mail")
                if _imports_package(source, "service.web")}
    assert not crossing, f"service/mail imports service.web: {crossing}"
    back = {name for _, source in _modules("service/web") for name in _imports_package(source, "service.mail")}
    assert back <= {"service.mail", "service.mail.undelivered"}, back


def test_the_cycle_check_sees_an_import_of_the_other_side():
    assert _imports_package("from service.web.oneclick import answer_links", "service.web")
    assert _imports_package("from service.web import unsubscribe", "service.web")
    assert not _imports_package("from service.webhooks import post", "service.web")

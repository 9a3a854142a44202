"""A game's statuses are one enum (`service.status.Status`): read back from Redis as its members,
served as the same strings as ever, and never written as bare strings in the service's code."""
from __future__ import annotations

import ast
from pathlib import Path

from service import games
from service.status import Status
from tests.conftest import new_game

REPO = Path(__file__).resolve().parents[1]
WORDS = {status.value for status in Status}


def bare_statuses(source: str) -> list[int]:
    """Lines comparing a `status` (attribute, name or key) with a string literal that is a status."""
    def is_status(node: ast.AST) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "status") or (
            isinstance(node, ast.Name) and node.id == "status") or (
            isinstance(node, ast.Call) and any(isinstance(a, ast.Constant) and a.value == "status" for a in node.args))

    def literals(node: ast.AST) -> list[str]:
        items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
        return [item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)]

    return [node.lineno for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Compare)
            and any(is_status(side) for side in (node.left, *node.comparators))
            and any(WORDS & set(literals(side)) for side in (node.left, *node.comparators))]


def test_the_check_finds_a_bare_status():
    assert bare_statuses("if table.status == 'running': pass\nok = status in ('open', 'paused')\n") == [1, 2]
    assert bare_statuses("if pipe.hget(key, 'status') != 'finished': pass\n") == [1]
    assert bare_statuses("if table.status == Status.RUNNING: pass\nif seat['kind'] == 'open': pass\n") == []


def test_the_service_names_statuses_by_the_enum():
    files = [path for folder in ("service", "workers") for path in (REPO / folder).rglob("*.py")]
    found = {str(path.relative_to(REPO)): lines for path in files if (lines := bare_statuses(path.read_text()))}
    assert found == {}, "compare with service.status.Status, not a string"


def test_a_stored_status_reads_back_as_its_member_and_is_served_as_its_string(app, client):
    created = new_game(client)
    table = games.load(app.extensions["palazzo.store"], created["game"]["id"])
    assert table.status is Status.RUNNING and games.RUNNING is Status.RUNNING
    assert client.get(f"/api/v1/games/{table.id}").get_json()["status"] == "running"
    assert f"game_{Status.PAUSED}" == "game_paused", "formats as its string: problem codes are built from it"

"""One configuration, read once: `service.config.Config` is the only reader of the environment in the
service, the workers and the engine (gunicorn's own file, and `palazzo serve` and `palazzo worker`'s
children, which set variables for the processes they start, are the documented exceptions), and what
it reads is checked there."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from service.config import Config, ConfigError

REPO = Path(__file__).resolve().parents[1]
READERS = {"service/config.py", "service/gunicorn_conf.py", "service/commands/serve.py", "workers/queue_process.py"}


def environment_reads(source: str) -> list[int]:
    """Lines of `source` that touch the environment: os.environ, os.getenv, os.putenv, os.unsetenv,
    or those names imported from os."""
    tree = ast.parse(source)
    names = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}
    lines = [node.lineno for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and node.attr in names
             and isinstance(node.value, ast.Name) and node.value.id == "os"]
    lines += [node.lineno for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == "os"
              and any(alias.name in names for alias in node.names)]
    return sorted(lines)


def test_the_check_finds_each_way_of_reading_the_environment():
    assert environment_reads("import os\nx = os.environ.get('A')\ny = os.getenv('B')\n") == [2, 3]
    assert environment_reads("from os import environ\n") == [1]
    assert environment_reads("import os\nos.path.join('a')\nenv = {}.get('environ')\n") == []


def test_no_module_but_the_configuration_reads_the_environment():
    files = [path for folder in ("service", "workers", "engine") for path in (REPO / folder).rglob("*.py")]
    assert len(files) > 50, "the check looks at the code"
    readers = {str(path.relative_to(REPO)): lines for path in files
               if (lines := environment_reads(path.read_text())) and str(path.relative_to(REPO)) not in READERS}
    assert readers == {}, "take the setting from the Config handed down (app.extensions['palazzo.config'], " \
                          "workers.context.config()), not from the environment"


def test_the_configuration_reads_each_variable_and_names_a_bad_one():
    config = Config.from_env({"REDIS_URL": "redis://h:1/0", "PALAZZO_MAIL_RETRY_SECONDS": "0,2",
                              "PALAZZO_MAIL_MERGE_SECONDS": "0", "PALAZZO_POLL_SECONDS": "0.5",
                              "PALAZZO_GAMES": "toy-count,princes-of-florence", "PALAZZO_CORS_ORIGINS": " a , b,",
                              "PALAZZO_INBOUND_SECRET": "s", "PALAZZO_BASE_URL": "https://play.example"})
    assert (config.redis_url, config.mail_retry_seconds, config.mail_merge_seconds, config.poll_seconds) == \
        ("redis://h:1/0", (0, 2), 0.0, 0.5)
    assert config.games == ("toy-count", "princes-of-florence") and config.cors_origins == ("a", "b")
    assert config.mail.replies and config.mail.domain == "play.example", "the mail's settings are a part of it"
    assert Config.from_env({}) == Config(), "the defaults are the dataclass's"
    idle = Config.from_env({"PALAZZO_TOKEN_IDLE_DAYS": "7", "PALAZZO_SESSION_IDLE_DAYS": "0.5"})
    assert (idle.token_idle.seconds, idle.session_idle.seconds) == (7 * 86400, 43200)
    assert (Config().token_idle_days, Config().session_idle_days) == (90, 30)
    for name, value in (("PALAZZO_MAIL_RETRY_SECONDS", "10,soon"), ("PALAZZO_BOT_DELAY", "x"),
                        ("PALAZZO_MAIL_MERGE_SECONDS", ""), ("PALAZZO_MAIL_BACKEND", "pigeon"),
                        ("PALAZZO_TOKEN_IDLE_DAYS", "0"), ("PALAZZO_SESSION_IDLE_DAYS", "-1")):
        with pytest.raises(ConfigError, match=name):
            Config.from_env({name: value})

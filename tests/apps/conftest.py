"""The app tests run the real spindle binary through the same harness as tests/integration
(fixtures `spindle`, `spindle_run`, the tear-down checks), plus `app_server`: a module-scoped
`spindle run` for an app whose set-up (a database, an installed wiki) is worth doing once per
test module."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))

from spindle_harness import *  # noqa: E402,F401,F403
from spindle_harness import check_servers, start_config_server  # noqa: E402


@pytest.fixture(scope="session")
def php_cli(spindle_binary):
    """The command that runs an app's own command-line scripts (installers, consoles):
    `spindle php-cli`, the very PHP that serves the app, so what an installer writes (a SQLite
    database, LocalSettings.php) is read back by the build that wrote it."""
    return [spindle_binary, "php-cli"]


@pytest.fixture(scope="module")
def app_server(request, spindle_binary):
    """Factory: app_server(caddyfile_text, directory, env=None, warmup="/") writes the
    Caddyfile into `directory` and starts `spindle run` there, once for the module. The server
    is checked (alive, no descriptor growth, no unexpected error in its log) and stopped after
    the module's last test."""
    servers = []

    def start(text, directory, env=None, warmup="/"):
        return start_config_server(spindle_binary, servers, Path(directory) / "Caddyfile", text,
                                   directory, env=env, warmup=warmup)

    yield start
    check_servers(request, servers)

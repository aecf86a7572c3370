"""The app tests run the real spindle binary through the same harness as tests/integration
(fixtures `spindle`, `spindle_run`, the tear-down checks), plus `app_server`: a module-scoped
`spindle run` for an app whose set-up (a database, an installed wiki) is worth doing once per
test module."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))

import spindle_harness  # noqa: E402
from spindle_harness import *  # noqa: E402,F401,F403
from spindle_harness import check_servers, start_config_server  # noqa: E402


def pytest_addoption(parser):
    spindle_harness.pytest_addoption(parser)
    parser.addoption(
        "--php-config",
        action="store",
        default=os.environ.get("SPINDLE_PHP_CONFIG"),
        help="php-config of the PHP build spindle embeds (its CLI runs app installers); "
        "default: PHP_CONFIG from the CMakeCache.txt beside the spindle binary",
    )


@pytest.fixture(scope="session")
def php_cli(request, spindle_binary):
    """The PHP command-line binary of the same build as spindle's libphp, for an app's own
    install scripts (Debian's php8.2-cli lacks extensions these apps need, e.g. pdo_sqlite)."""
    php_config = request.config.getoption("--php-config")
    if not php_config:
        cache = Path(spindle_binary).resolve().parent / "CMakeCache.txt"
        if cache.is_file():
            found = re.search(r"^PHP_CONFIG:\w+=(.+)$", cache.read_text(), re.MULTILINE)
            php_config = found.group(1) if found else None
    if not php_config:
        pytest.fail("no php-config found: give --php-config=PATH (or SPINDLE_PHP_CONFIG)")
    binary = subprocess.run([php_config, "--php-binary"], check=True, capture_output=True,
                            text=True).stdout.strip()
    if not Path(binary).is_file():
        pytest.fail(f"{php_config} names a PHP CLI that is not there: {binary}")
    return binary


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

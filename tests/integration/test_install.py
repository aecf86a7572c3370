"""The installed tree (cmake --install, scripts/install.sh): PREFIX/bin/spindle and its `php`
link, libphp and the extensions under PREFIX/lib/spindle, php.ini and conf.d under
PREFIX/etc/spindle. The tree is installed, then moved, and must still find everything beside
the binary rather than in the PHP build cache."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from spindle_harness import FIXTURES, SpindleServer, check_servers
from spindle_http import Conn

SANITIZER_VARIABLES = ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "USE_ZEND_ALLOC")


@pytest.fixture(scope="module")
def installed(spindle_binary, tmp_path_factory):
    """A tree installed from the build folder of the binary under test, then moved elsewhere."""
    build_dir = Path(spindle_binary).resolve().parent
    staging = tmp_path_factory.mktemp("install") / "first-prefix"
    subprocess.run(["cmake", "--install", str(build_dir), "--prefix", str(staging)], check=True,
                   stdout=subprocess.DEVNULL)
    prefix = staging.parent / "moved-prefix"
    staging.rename(prefix)
    (prefix / "etc/spindle/php.ini").write_text("date.timezone = Europe/Vienna\n")
    (prefix / "etc/spindle/conf.d/50-charset.ini").write_text("default_charset = ISO-8859-1\n")
    return prefix


def test_layout_and_relative_run_path(installed):
    for path in ("bin/spindle", "lib/spindle/libphp.so", "lib/spindle/extensions/opcache.so"):
        assert (installed / path).is_file(), path
    assert (installed / "bin/php").is_symlink()
    assert (installed / "bin/php").readlink() == Path("spindle")
    dynamic = subprocess.run(["readelf", "-d", str(installed / "bin/spindle")], check=True,
                             capture_output=True, text=True).stdout
    assert "[$ORIGIN/../lib/spindle]" in dynamic
    ldd = subprocess.run(["ldd", str(installed / "bin/spindle")], check=True,
                         capture_output=True, text=True).stdout
    libphp = next(line for line in ldd.splitlines() if "libphp.so" in line)
    resolved = Path(libphp.split("=>")[1].split("(")[0].strip()).resolve()
    assert resolved == (installed / "lib/spindle/libphp.so").resolve()


def test_php_cli_reads_the_trees_ini_and_extensions(installed):
    script = ("echo ini_get('extension_dir'), '|', php_ini_loaded_file(), '|', "
              "ini_get('date.timezone'), '|', ini_get('default_charset'), '|', "
              "var_export(getenv('PHP_INI_SCAN_DIR'), true), '|', "
              "var_export(extension_loaded('Zend OPcache'), true);")
    # A bare environment, but for what a sanitizer run needs (scripts/sanitize.sh: the dlopen
    # shim that drops RTLD_DEEPBIND, and the sanitizers' options).
    env = {"PATH": f"{installed / 'bin'}:/usr/bin:/bin",
           **{name: os.environ[name] for name in SANITIZER_VARIABLES if name in os.environ}}
    result = subprocess.run(["php", "-r", script], env=env, check=True, capture_output=True,
                            text=True, timeout=30)
    assert result.stdout.split("|") == [
        str(installed / "lib/spindle/extensions"),
        str(installed / "etc/spindle/php.ini"),
        "Europe/Vienna",
        "ISO-8859-1",
        "false",
        "true",
    ]


def test_server_serves_from_the_moved_tree(request, installed, mode):
    server = SpindleServer(str(installed / "bin/spindle"), FIXTURES / "install", [], None, mode)
    try:
        server.wait_ready()
        with Conn(server.port) as conn:
            response = conn.request("GET", "/")
        assert response.status == 200
        seen = json.loads(response.body)
        assert seen["extension_dir"] == str(installed / "lib/spindle/extensions")
        assert seen["ini_file"] == str(installed / "etc/spindle/php.ini")
        assert seen["scanned"].strip().rstrip(",") == str(
            installed / "etc/spindle/conf.d/50-charset.ini")
        assert seen["marker"] == "Europe/Vienna"
        assert seen["from_conf_d"] == "ISO-8859-1"
        assert seen["opcache"] is True
        # The scan folder reached PHP's start-up only: scripts do not see the variable.
        assert seen["scan_dir_env"] is False
    finally:
        check_servers(request, [server])

"""FrankenPHP's stock Caddyfile (caddy/frankenphp/Caddyfile, the one in its Docker image) starts
unchanged: the file is copied byte for byte from tests/fixtures/config and configured only
through the environment variables FrankenPHP's image documents. Multi-word values
(CADDY_SERVER_EXTRA_DIRECTIVES="bind 127.0.0.1"), the glob import of Caddyfile.d and the
accepted-but-ignored skip_install_trust are exercised; each warning names its file:line."""

import json
import os
import shutil
import subprocess

from spindle_harness import FIXTURES, SpindleServer, check_servers

STOCK = FIXTURES / "config/frankenphp-stock.Caddyfile"

WORKER = """<?php
while (frankenphp_handle_request(function () { echo 'stock worker'; })) {
}
"""

# What FrankenPHP's image would be given to serve on 127.0.0.1 without its admin endpoint.
ENV = {
    "SERVER_NAME": "http://:0",
    "CADDY_GLOBAL_OPTIONS": "admin off",
    "CADDY_SERVER_EXTRA_DIRECTIVES": "bind 127.0.0.1",
}


def stock_app(tmp_path):
    app = tmp_path / "app"
    (app / "public").mkdir(parents=True)
    (app / "Caddyfile.d").mkdir()
    shutil.copyfile(STOCK, app / "Caddyfile")
    (app / "public/index.php").write_text("<?php echo 'stock classic';")
    (app / "public/worker.php").write_text(WORKER)
    return app


def test_stock_caddyfile_starts_unchanged(request, spindle_binary, tmp_path, mode):
    app = stock_app(tmp_path)
    env = dict(ENV)
    if mode == "worker":
        # A multi-line value, as the image's docs pass FRANKENPHP_CONFIG.
        env["FRANKENPHP_CONFIG"] = f"worker {app}/public/worker.php 1\nnum_threads 3"
    server = SpindleServer(spindle_binary, app, [], env, None,
                           command=["run", "--config", "Caddyfile"])
    try:
        server.wait_ready()
        assert server.get("/").body == b"stock classic"
        if mode == "worker":
            assert server.get("/worker.php").body == b"stock worker"
        log = server.log()
        assert "Caddyfile:7: skip_install_trust has no effect" in log
        # A value holding a newline moves the lines after it down, as in Caddy (which replaces
        # {$VAR} in the text before reading it).
        import_line = 58 if mode == "worker" else 57
        assert f"Caddyfile:{import_line}: import 'Caddyfile.d/*.caddyfile': no file matches" in log
    finally:
        check_servers(request, [server])


def test_caddyfile_d_files_are_imported_in_name_order(spindle_binary, tmp_path):
    app = stock_app(tmp_path)
    (app / "extra").mkdir()
    (app / "Caddyfile.d/20-b.caddyfile").write_text("http://b.test:8082 {\n\troot * extra\n}\n")
    (app / "Caddyfile.d/10-a.caddyfile").write_text(
        "http://a.test:8081 {\n\troot * extra\n\tphp_server\n}\n")
    (app / "Caddyfile.d/.10-a.caddyfile.swp").write_text("not a Caddyfile {")
    (app / "Caddyfile.d/notes.txt").write_text("not a Caddyfile {")
    result = subprocess.run([spindle_binary, "adapt", "--config", "Caddyfile"], cwd=app,
                            env={**os.environ, **ENV}, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr
    sites = json.loads(result.stdout)["sites"]
    assert [s.get("hosts") for s in sites] == [None, ["a.test"], ["b.test"]]
    assert "no file matches" not in result.stderr

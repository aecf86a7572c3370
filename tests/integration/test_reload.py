"""Reloading the configuration in place (SIGHUP, `spindle reload`, the admin API's POST /load
and GET /config), worker generations (a changed worker boots beside the old one, traffic moves
when it is ready, a failed boot keeps the old one), and symlinked releases (Deployer and
Capistrano's `current -> releases/N`), each in classic and worker mode.

Every server here runs from a Caddyfile in a temporary directory laid out as a deploy tool
would: releases/A and releases/B, and `current` pointing at one of them.
"""

import json
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from spindle_harness import free_port

# What every release serves: its name (the directory), and the boot of the PHP thread state
# that answered, so a test can tell two worker generations apart. ?sleep=MS holds the request.
INDEX_PHP = """<?php
if (isset($_GET['sleep'])) {
    usleep((int) $_GET['sleep'] * 1000);
}
echo 'release ', basename(__DIR__);
"""

WORKER_PHP = """<?php
$release = basename(__DIR__);
$boot = bin2hex(random_bytes(6));
$handler = static function () use ($release, $boot): void {
    if (isset($_GET['sleep'])) {
        usleep((int) $_GET['sleep'] * 1000);
    }
    header('X-Boot: ' . $boot);
    echo 'release ', $release;
};
while (frankenphp_handle_request($handler)) {
}
"""

# A worker script that dies before it reaches frankenphp_handle_request().
BROKEN_WORKER_PHP = """<?php
throw new RuntimeException('this release cannot boot');
"""


def make_release(base, name, worker_source=WORKER_PHP):
    release = base / "releases" / name
    release.mkdir(parents=True)
    (release / "index.php").write_text(INDEX_PHP)
    (release / "worker.php").write_text(worker_source)
    return release


def point_current(base, name):
    """Switches `current` atomically, as Deployer and Capistrano do (a new link renamed over
    the old one)."""
    link = base / "current.new"
    if link.is_symlink():
        link.unlink()
    os.symlink(base / "releases" / name, link)
    os.replace(link, base / "current")


def caddyfile(base, mode, extra_sites="", header="X-Config one", threads=1):
    worker = (
        f"""
        worker {{
            file current/worker.php
            num {threads}
            match *
        }}"""
        if mode == "worker"
        else ""
    )
    return f"""{{
    admin 127.0.0.1:0
    frankenphp {{
        num_threads 4
        max_wait_time 20s
    }}
}}
http://127.0.0.1:0 {{
    bind 127.0.0.1
    root * {base}/current
    header {header}
    php_server {{{worker}
    }}
}}
{extra_sites}"""


@pytest.fixture
def deploy(tmp_path, spindle_run):
    """Factory: deploy(mode, **caddyfile options) lays out releases A and B with current -> A,
    starts `spindle run` on the Caddyfile and returns (server, base, config path)."""

    def start(mode, **options):
        base = tmp_path / "app"
        make_release(base, "A")
        make_release(base, "B")
        point_current(base, "A")
        server = spindle_run(caddyfile(base, mode, **options), cwd=base)
        return server, base, tmp_path / "Caddyfile"

    return start


def wait_applied(server, count, timeout=30.0):
    """Waits for the count-th 'configuration applied' line; returns the log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.log().count("configuration applied") >= count:
            return server.log()
        time.sleep(0.02)
    raise AssertionError(f"no reload number {count} was applied\n{server.log_tail()}")


def rewrite(path, text):
    """Replaces the configuration file as an editor would. Port 0 stays port 0: the same
    address, so the server keeps the socket it bound."""
    path.write_text(text)


def spindle_reload(binary, config, admin_port):
    return subprocess.run(
        [binary, "reload", "--config", str(config), "--address", f"127.0.0.1:{admin_port}"],
        capture_output=True, text=True, timeout=120,
    )


def test_sighup_follows_the_current_symlink_to_the_new_release(deploy, mode):
    server, base, _ = deploy(mode)
    assert server.get("/").text == "release A"
    point_current(base, "B")
    os.kill(server.pid, signal.SIGHUP)
    wait_applied(server, 1)
    for _ in range(5):
        assert server.get("/").text == "release B"
    # Nothing holds the old release any more: deleting it breaks nothing.
    shutil.rmtree(base / "releases" / "A")
    for _ in range(5):
        r = server.get("/")
        assert (r.status, r.text) == (200, "release B")


def test_reload_command_applies_header_rules_and_keeps_the_port(deploy, mode, spindle_binary):
    server, base, config = deploy(mode)
    conn = server.connect()
    assert conn.request("GET", "/").header("X-Config") == "one"
    rewrite(config, caddyfile(base, mode, header="X-Config two"))
    done = spindle_reload(spindle_binary, config, server.admin_port)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["applied"] is True and answer["listeners_added"] == []
    # The open keep-alive connection goes on, on the same socket, with the new rules.
    assert conn.request("GET", "/").header("X-Config") == "two"
    assert server.get("/").header("X-Config") == "two"


def test_invalid_configuration_changes_nothing(deploy, mode, spindle_binary):
    server, base, config = deploy(mode)
    good = config.read_text()
    rewrite(config, good.replace("php_server {", "php_server {\n        no_such_option 1", 1))
    done = spindle_reload(spindle_binary, config, server.admin_port)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert f"{config}:" in done.stderr and "no_such_option" in done.stderr
    # The API answers 400 with the line, and the server keeps serving the old configuration.
    r = server.admin("POST", "/load", headers={"Content-Type": "text/caddyfile"},
                     body=config.read_bytes())
    assert r.status == 400, r
    assert "POST /load:" in r.json()["error"]
    # A root that does not exist fails the checks that need the machine: 400 too.
    r = server.admin("POST", "/load", headers={"Content-Type": "text/caddyfile"},
                     body=good.replace(f"{base}/current", f"{base}/missing").encode())
    assert r.status == 400, r
    assert "missing" in r.json()["error"]
    server.expect_errors(r"POST /load: not applied")
    assert server.get("/").text == "release A"
    assert server.get("/").header("X-Config") == "one"
    ready = server.admin("GET", "/readyz")
    assert ready.status == 200 and "last reload failed" in ready.text


def test_admin_load_and_config(deploy, mode):
    server, base, _ = deploy(mode)
    document = server.admin("GET", "/config").json()
    assert '"one"' in json.dumps(document)
    # Change one header rule in the JSON document and post it back, as Caddy's API takes it.
    text = json.dumps(document).replace('"one"', '"three"')
    assert text != json.dumps(document)
    r = server.admin("POST", "/load", headers={"Content-Type": "application/json"},
                     body=text.encode())
    assert r.status == 200, r
    assert r.json()["applied"] is True
    assert server.get("/").header("X-Config") == "three"
    assert server.admin("GET", "/config").json() == json.loads(text)


def test_listeners_are_added_and_removed(deploy, mode):
    server, base, config = deploy(mode)
    port = free_port()
    extra = f"""http://127.0.0.1:{port} {{
    bind 127.0.0.1
    root * {base}/releases/B
    php_server
}}
"""
    r = server.admin("POST", "/load", headers={"Content-Type": "text/caddyfile"},
                     body=caddyfile(base, mode, extra_sites=extra).encode())
    assert r.status == 200, r
    assert r.json()["listeners_added"] == [f"127.0.0.1:{port}"]
    from spindle_http import Conn
    with Conn(port) as conn:
        assert conn.request("GET", "/").text == "release B"
    r = server.admin("POST", "/load", headers={"Content-Type": "text/caddyfile"},
                     body=caddyfile(base, mode).encode())
    assert r.status == 200, r
    assert r.json()["listeners_removed"] == [f"127.0.0.1:{port}"]
    deadline = time.monotonic() + 5
    while True:
        try:
            with Conn(port, timeout=1) as conn:
                conn.request("GET", "/")
        except OSError:
            break
        assert time.monotonic() < deadline, "the removed address still accepts connections"
        time.sleep(0.05)
    assert server.get("/").text == "release A"


@pytest.mark.classic_only
def test_worker_generation_that_cannot_boot_keeps_the_old_one(deploy):
    # Worker mode only: this server brings its own worker (classic_only runs it once).
    server, base, config = deploy("worker")
    make_release(base, "C", worker_source=BROKEN_WORKER_PHP)
    before = server.get("/").header("X-Boot")
    point_current(base, "C")
    r = server.admin("POST", "/load", headers={"Content-Type": "text/caddyfile"},
                     body=config.read_bytes(), timeout=60)
    assert r.status == 500, r
    assert "could not boot" in r.json()["error"]
    server.expect_errors(r"could not boot", r"this release cannot boot")
    point_current(base, "A")
    after = server.get("/")
    assert (after.text, after.header("X-Boot")) == ("release A", before)
    assert "last reload failed" in server.admin("GET", "/readyz").text


@pytest.mark.classic_only
def test_queued_requests_of_a_replaced_worker_go_to_the_new_generation(deploy):
    # Worker mode only: this server brings its own worker (classic_only runs it once).
    server, base, _ = deploy("worker")
    old_boot = server.get("/").header("X-Boot")
    results = {}

    def hold():
        results["slow"] = server.get("/?sleep=1500", timeout=30)

    def queued():
        results["queued"] = server.get("/", timeout=30)

    slow = threading.Thread(target=hold)
    slow.start()
    time.sleep(0.3)  # the only worker thread now runs the slow request
    waiting = threading.Thread(target=queued)
    waiting.start()
    time.sleep(0.2)  # the second request waits in the queue of the old generation
    started = time.monotonic()
    r = server.admin("POST", "/workers/restart", body=b"")
    assert r.status == 202
    slow.join(30)
    waiting.join(30)
    assert results["slow"].header("X-Boot") == old_boot
    # Answered by the new generation as soon as it was ready, not after max_wait_time (20 s).
    assert results["queued"].status == 200
    assert results["queued"].header("X-Boot") != old_boot
    assert time.monotonic() - started < 10
    wait_applied(server, 1)


def test_release_switch_under_load_loses_nothing(deploy, mode, spindle_binary):
    server, base, config = deploy(mode)
    stop = threading.Event()
    failures = []
    after_reload = []
    reloaded_at = [None]

    def client():
        from spindle_http import Conn
        conn = Conn(server.port, timeout=30)
        try:
            while not stop.is_set():
                sent = time.monotonic()
                r = conn.request("GET", "/")
                if r.status != 200:
                    failures.append(r.status)
                elif reloaded_at[0] is not None and sent > reloaded_at[0]:
                    after_reload.append(r.text)
        finally:
            conn.close()

    clients = [threading.Thread(target=client) for _ in range(4)]
    for c in clients:
        c.start()
    time.sleep(0.3)
    for release in ("B", "A", "B"):
        point_current(base, release)
        done = spindle_reload(spindle_binary, config, server.admin_port)
        assert done.returncode == 0, done.stderr
        reloaded_at[0] = time.monotonic()
        after_reload.clear()
        time.sleep(0.3)
        assert after_reload and set(after_reload) == {f"release {release}"}, set(after_reload)
    stop.set()
    for c in clients:
        c.join(30)
    assert failures == []
    shutil.rmtree(base / "releases" / "A")
    assert server.get("/").text == "release B"

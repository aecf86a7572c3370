"""Reliability under load and faults: a graceful stop loses no accepted request, overload is
answered quickly with 200 or 503 and bounded memory, and a worker that never boots stays cheap
for as long as it fails."""

import json
import os
import signal
import socket
import threading
import time

import pytest

from conftest import FIXTURES
from spindle_http import Conn, build_request
from test_worker import cpu_seconds, rss_kb

HTTP = FIXTURES / "http"
RUNTIME = FIXTURES / "runtime"
WORKER = FIXTURES / "worker"


def worker(script, threads=1):
    return ["--worker", f"{WORKER / script},{threads}"]


@pytest.mark.classic_only
@pytest.mark.parametrize("flags", [[], worker("sleep.php", 4)], ids=["classic", "worker"])
def test_sigterm_under_load_answers_every_accepted_request(spindle, flags):
    app = WORKER if flags else HTTP
    threads = ["--threads", "5"] if flags else ["--threads", "4"]
    srv = spindle(app, *flags, *threads, warmup=None)
    count = 40
    conns = [Conn(srv.port, timeout=15) for _ in range(count)]
    try:
        # Every request is on the wire (accepted, read, queued or running) before the signal.
        for conn in conns:
            conn.send(build_request("GET", "/sleep.php?ms=300"))
        time.sleep(0.3)
        srv.proc.send_signal(signal.SIGTERM)
        srv.terminated = True
        for conn in conns:
            response = conn.read_response()
            assert response.status == 200, response
            assert response.body == b"slept 300 ms\n"
    finally:
        for conn in conns:
            conn.close()
    srv.exit_code = srv.proc.wait(timeout=20)
    assert srv.exit_code == 0
    # Nothing is accepted once the drain has started.
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", srv.port), timeout=2).close()


@pytest.mark.classic_only
def test_overload_gets_200_or_503_quickly_and_memory_stays_bounded(spindle):
    srv = spindle(WORKER, *worker("sleep.php", 2), "--threads", "3", "--max-wait-time", "500ms",
                  warmup="/sleep.php?ms=1")
    rss_start = rss_kb(srv.pid)
    deadline = time.monotonic() + 8
    statuses = {}
    problems = []
    lock = threading.Lock()

    def client():
        conn = None
        while time.monotonic() < deadline:
            try:
                if conn is None:
                    conn = Conn(srv.port, timeout=5)
                start = time.monotonic()
                response = conn.request("GET", "/sleep.php?ms=50")
                elapsed = time.monotonic() - start
                with lock:
                    statuses[response.status] = statuses.get(response.status, 0) + 1
                    if response.status == 503 and response.header("Retry-After") is None:
                        problems.append("503 without Retry-After")
                    if response.status not in (200, 503):
                        problems.append(f"status {response.status}")
                    if elapsed > 3:
                        problems.append(f"a request took {elapsed:.1f}s")
                if response.header("Connection") == "close":
                    conn.close()
                    conn = None
            except Exception as e:  # a timeout or reset is what this test exists to catch
                with lock:
                    problems.append(repr(e))
                if conn is not None:
                    conn.close()
                conn = None
        if conn is not None:
            conn.close()

    clients = [threading.Thread(target=client) for _ in range(256)]
    for t in clients:
        t.start()
    for t in clients:
        t.join(timeout=30)
    assert not problems, problems[:5]
    assert statuses.get(200, 0) > 100, statuses
    assert statuses.get(503, 0) > 100, statuses
    # 256 connections of buffers and queue entries, then all gone: bounded, not growing.
    assert rss_kb(srv.pid) - rss_start < 64 * 1024, (rss_start, rss_kb(srv.pid))
    # Right after, it answers normally.
    response = srv.get("/sleep.php?ms=1")
    assert (response.status, response.body) == (200, b"slept 1 ms\n")


@pytest.mark.zend_allocator
def test_never_booting_worker_stays_cheap(spindle_run, tmp_path):
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "index.php").write_text("<?php echo 'classic';")
    (tmp_path / "www" / "broken.php").write_text("<?php throw new Exception('never_boots');")
    srv = spindle_run(f"""
{{
    frankenphp {{
        num_threads 3
        max_wait_time 300ms
        worker {{
            file {tmp_path}/www/broken.php
            num 2
            max_consecutive_failures -1
        }}
    }}
}}
:0 {{
    bind 127.0.0.1
    root * {tmp_path}/www
    php_server
}}
""", warmup=None)
    srv.expect_errors(r"never_boots")
    srv.wait_for_log(r"failed to start \(4 in a row\)", timeout=10)
    cpu_before, rss_before = cpu_seconds(srv.pid), rss_kb(srv.pid)
    time.sleep(20)
    cpu_used = cpu_seconds(srv.pid) - cpu_before
    rss_growth = rss_kb(srv.pid) - rss_before
    assert cpu_used < 2.0, f"{cpu_used:.2f}s of CPU in 20 s of failing boots (limit: 10% of a core)"
    assert rss_growth < 2048, f"RSS grew {rss_growth} KB in 20 s of failing boots"
    # The rest of the site still works, and the worker's requests get a quick 503.
    assert srv.get("/").body == b"classic"
    assert srv.get("/broken.php", timeout=5).status == 503


def test_connection_limit_keeps_extra_clients_waiting(spindle_run, tmp_path):
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "index.php").write_text("<?php echo 'ok';")
    srv = spindle_run(json.dumps({
        "http": {"max_connections": 4},
        "sites": [{"listen": ["127.0.0.1:0"], "root": str(tmp_path / "www")}],
    }), name="spindle.json", warmup=None)
    held = [Conn(srv.port, timeout=5) for _ in range(4)]
    try:
        for conn in held:
            assert conn.request("GET", "/").body == b"ok"
        # The fifth connects (the kernel's backlog holds it) but is not served yet.
        extra = Conn(srv.port, timeout=0.5)
        extra.send(build_request("GET", "/"))
        with pytest.raises(OSError):
            extra.read_response()
        held.pop().close()
        extra.settimeout(5)
        assert extra.read_response().body == b"ok"
        extra.close()
    finally:
        for conn in held:
            conn.close()


def test_upload_that_cannot_be_stored_gets_500(spindle_run, tmp_path):
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "index.php").write_text(
        "<?php echo strlen(file_get_contents('php://input'));")
    # A file size limit makes writing the spilled body fail as a full disk would.
    srv = spindle_run(json.dumps({
        "http": {"body_memory_size": "16KiB"},
        "sites": [{"listen": ["127.0.0.1:0"], "root": str(tmp_path / "www")}],
    }), name="spindle.json", wrapper=["prlimit", "--fsize=65536", "--"], warmup=None)
    srv.expect_errors(r"cannot store request body")
    small = srv.post("/", b"x" * 32768, content_type="application/octet-stream")
    assert (small.status, small.body) == (200, b"32768")
    big = srv.post("/", b"x" * (1 << 20), content_type="application/octet-stream")
    assert big.status == 500
    assert b"cannot store the request body" in big.body
    after = srv.post("/", b"y" * 1000, content_type="application/octet-stream")
    assert (after.status, after.body) == (200, b"1000")


def short_grace_caddyfile(root, worker_file=None):
    workers = f"worker {worker_file} 1" if worker_file else ""
    return f"""{{
    grace_period 1s
    frankenphp {{
        num_threads 3
    }}
}}
:0 {{
    bind 127.0.0.1
    root * {root}
    php_server {{
        {workers}
    }}
}}
"""


@pytest.mark.parametrize("case", ["classic", "worker"])
def test_stop_interrupts_requests_past_the_grace_period(spindle_run, case):
    # A request stuck in a shutdown function (classic) or in usleep() (worker) is interrupted
    # when the grace period ends, and the process exits 0 soon after.
    if case == "classic":
        srv = spindle_run(short_grace_caddyfile(RUNTIME), warmup=None)
        target = "/stuck_in_shutdown.php"
    else:
        srv = spindle_run(short_grace_caddyfile(WORKER, WORKER / "sleep.php"), warmup=None)
        target = "/sleep.php?ms=10000"
    srv.expect_errors(r"Spindle ended this request")
    with Conn(srv.port, timeout=20) as conn:
        conn.send(build_request("GET", target))
        time.sleep(0.5)
        start = time.monotonic()
        assert srv.terminate(timeout=15) == 0
        elapsed = time.monotonic() - start
    assert 0.8 <= elapsed < 6, f"stopped after {elapsed:.2f}s, grace period 1s"
    srv.wait_for_log(r"slot \d+: still running a request after the grace period; interrupting")
    srv.wait_for_log(r"^stopped$")


def test_stop_leaves_behind_a_thread_no_interrupt_reaches(spindle_run, tmp_path):
    # proc_close() waits for its child whatever signal comes: the process does not wait for
    # that thread past the grace period and a few seconds, and says so.
    pidfile = tmp_path / "child.pid"
    srv = spindle_run(short_grace_caddyfile(RUNTIME), warmup=None)
    srv.expect_errors(r"PHP thread still running", r"stopped with a PHP thread still running")
    srv.expected_exit_code = 1
    try:
        with Conn(srv.port, timeout=30) as conn:
            conn.send(build_request("GET", f"/wait_for_child.php?seconds=30&pidfile={pidfile}"))
            deadline = time.monotonic() + 10
            while not pidfile.exists() or not pidfile.read_text():
                assert time.monotonic() < deadline, "the script did not start its child"
                time.sleep(0.05)
            start = time.monotonic()
            assert srv.terminate(timeout=20) == 1
            elapsed = time.monotonic() - start
        assert 5 <= elapsed < 12, f"exited after {elapsed:.2f}s: grace 1s + 5s for the threads"
        srv.wait_for_log(r"slot \d+: PHP thread still running 5000 ms after it was interrupted")
        srv.wait_for_log(r"stopped with a PHP thread still running; exiting without it")
    finally:
        if pidfile.exists() and pidfile.read_text():
            try:
                os.kill(int(pidfile.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass

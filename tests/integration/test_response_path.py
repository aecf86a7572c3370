"""The response path under unlucky timing (issue 35): a stale queue ticket or queue deadline
never touches another request, a client leaving a queued request does not withdraw it (it runs
aborted, as under php-fpm and FrankenPHP), a stop strands no PHP thread and starts no queued
request (nor one whose client left), waits for a body still arriving, and the disconnect watch
outlives pipelined bytes."""

import signal
import time
import urllib.parse

import pytest

from conftest import FIXTURES
from spindle_http import Conn, build_request

RESPONSE = FIXTURES / "response"


def quoted(path):
    return urllib.parse.quote(str(path))


def wait_for_file(path, timeout, what):
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text()):
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} within {timeout}s")
        time.sleep(0.05)
    return path.read_text()


def one_classic_one_worker(spindle, *flags):
    """One classic PHP thread and one thread running sleep.php as a worker."""
    return spindle(RESPONSE, "--threads", "2", "--worker", f"{RESPONSE / 'sleep.php'},1",
                   *flags, warmup="/small.php")


@pytest.mark.classic_only
def test_client_leaving_does_not_withdraw_another_connections_queued_request(spindle):
    # The issue's reproduction: C1's last request was queued in the classic group, its next one
    # went to the worker at once, C2's worker request queued behind it. C1 leaving must not
    # take C2's queue entry with it.
    srv = one_classic_one_worker(spindle)
    with Conn(srv.port, timeout=20) as c0, Conn(srv.port, timeout=20) as c1, \
            Conn(srv.port, timeout=20) as c2:
        c0.send_request("GET", "/pause.php?ms=1000")
        time.sleep(0.2)
        r = c1.request("GET", "/small.php?id=c1")  # queued behind C0, then answered
        assert r.status == 200 and r.body == b"c1\n", r
        c1.send_request("GET", "/sleep.php?ms=3000")  # the worker takes it at once
        time.sleep(0.2)
        c2.send_request("GET", "/sleep.php?ms=10")  # queued behind C1's
        time.sleep(0.2)
        c1.close()
        start = time.monotonic()
        r = c2.read_response()
        assert r.status == 200 and r.body == b"slept 10 ms\n", r
        assert time.monotonic() - start < 8
        assert c0.read_response().status == 200


@pytest.mark.classic_only
def test_queue_deadline_of_an_earlier_request_does_not_fire_on_the_next(spindle):
    # C1's first request waited in the queue and was answered before its deadline (written by
    # the PHP thread itself); the deadline, still pending, must not withdraw another request
    # or answer C1's next one with a second response.
    # t=0.2 C1 queued (deadline t=3.2); t=2 answered, its next request runs until t=4.2;
    # t=2.2 C2 queued behind it (deadline t=5.2): the first deadline passes while both wait.
    srv = one_classic_one_worker(spindle, "--max-wait-time", "3s")
    with Conn(srv.port, timeout=20) as c0, Conn(srv.port, timeout=20) as c1, \
            Conn(srv.port, timeout=20) as c2:
        c0.send_request("GET", "/pause.php?ms=2000")
        time.sleep(0.2)
        r = c1.request("GET", "/small.php?id=c1")
        assert r.status == 200 and r.body == b"c1\n", r
        c1.send_request("GET", "/sleep.php?ms=2200")
        time.sleep(0.2)
        c2.send_request("GET", "/sleep.php?ms=10")
        r1 = c1.read_response()
        r2 = c2.read_response()
        assert r1.status == 200 and r1.body == b"slept 2200 ms\n", r1
        assert r2.status == 200 and r2.body == b"slept 10 ms\n", r2
        # Nothing else arrives on C1: one response per request.
        assert c1.request("GET", "/small.php?id=again").body == b"again\n"
        assert c0.read_response().status == 200


def test_client_leaving_a_queued_request_runs_it_aborted(spindle, mode, tmp_path):
    # FrankenPHP's and php-fpm's behaviour: the request is not withdrawn; it runs with
    # connection_status() 1 from its start, so a webhook (ignore_user_abort) completes, and a
    # classic script that does not ignore aborts ends at its first output.
    threads = ["--threads", "1"] if mode == "classic" else []
    srv = spindle(RESPONSE, *threads, warmup="/status_at_start.php")
    busy = tmp_path / "busy.txt"
    webhook = tmp_path / "webhook.txt"
    plain = tmp_path / "plain.txt"
    with Conn(srv.port, timeout=20) as c0:
        # Occupies the thread status_at_start.php runs on.
        c0.send_request("GET", f"/status_at_start.php?sleep_ms=1500&marker={quoted(busy)}")
        wait_for_file(busy, 10, "the first request did not start")
        for marker, extra in ((webhook, "&ignore=1"), (plain, "")):
            with Conn(srv.port, timeout=5) as leaving:
                leaving.send_request("GET", f"/status_at_start.php?marker={quoted(marker)}{extra}")
                time.sleep(0.2)
        assert c0.read_response().status == 200
    # A later request on the same thread answers once both have run.
    r = srv.get("/status_at_start.php", timeout=20)
    assert r.status == 200 and r.body == b"output\n", r
    assert webhook.read_text() == "start status=1\nafter output status=1\n"
    if mode == "classic":
        assert plain.read_text() == "start status=1\n"
    else:
        # A worker's handler runs with ignore_user_abort on: it completes too.
        assert plain.read_text() == "start status=1\nafter output status=1\n"


def short_grace_caddyfile(threads):
    return f"""{{
    grace_period 1s
    frankenphp {{
        num_threads {threads}
    }}
}}
:0 {{
    bind 127.0.0.1
    root * {RESPONSE}
    php_server
}}
"""


def test_stop_leaves_no_php_thread_waiting_for_a_client(spindle_run):
    # An unbuffered response (X-Accel-Buffering: no) makes its script wait for a client that
    # does not read. When the grace period ends the response is abandoned: the thread is not
    # left waiting for an I/O thread that no longer runs, and the process exits 0 at once
    # instead of leaving the thread behind (exit 1 after 5 s).
    srv = spindle_run(short_grace_caddyfile(1), warmup="/small.php")
    with Conn(srv.port, timeout=20, narrow=True) as stalled:
        stalled.send(build_request("GET", "/large.php?unbuffered=1&lines=1048576"))
        assert stalled.sock.recv(4096).startswith(b"HTTP/1.1 200")
        start = time.monotonic()
        assert srv.terminate(timeout=15) == 0
        elapsed = time.monotonic() - start
    assert elapsed < 4, f"stopped after {elapsed:.2f}s, grace period 1s"
    srv.wait_for_log(r"^stopped$")


def test_stop_starts_no_queued_request(spindle_run, tmp_path):
    # Once the grace period is over, a thread whose request was interrupted takes no queued
    # request: its client could never get the answer.
    srv = spindle_run(short_grace_caddyfile(1), warmup="/small.php")
    srv.expect_errors(r"Spindle ended this request")
    marker = tmp_path / "queued.txt"
    with Conn(srv.port, timeout=20) as running, Conn(srv.port, timeout=20) as queued:
        running.send(build_request("GET", "/pause.php?ms=10000"))
        time.sleep(0.3)
        queued.send(build_request("GET", f"/status_at_start.php?marker={quoted(marker)}&ignore=1"))
        time.sleep(0.3)
        assert srv.terminate(timeout=15) == 0
    srv.wait_for_log(r"slot \d+: still running a request after the grace period; interrupting")
    assert not marker.exists(), marker.read_text()


@pytest.mark.classic_only
def test_stop_runs_no_queued_request_whose_client_left(spindle):
    # Clients that queued behind a busy worker and left (a slow-read attack leaves hundreds)
    # are not run while the server stops: the stop ends when the running request and the
    # queued one whose client still waits are answered, not after all the others have run.
    srv = one_classic_one_worker(spindle)
    with Conn(srv.port, timeout=30) as running, Conn(srv.port, timeout=30) as waiting:
        running.send_request("GET", "/sleep.php?ms=1500")
        time.sleep(0.2)
        gone = [Conn(srv.port, timeout=10) for _ in range(20)]
        for conn in gone:
            conn.send_request("GET", "/sleep.php?ms=1000")
        time.sleep(0.2)
        waiting.send_request("GET", "/sleep.php?ms=10")
        time.sleep(0.2)
        for conn in gone:
            conn.close()
        time.sleep(0.3)
        start = time.monotonic()
        srv.proc.send_signal(signal.SIGTERM)
        srv.terminated = True
        r = running.read_response()
        assert r.status == 200 and r.body == b"slept 1500 ms\n", r
        r = waiting.read_response()
        assert r.status == 200 and r.body == b"slept 10 ms\n", r
        srv.exit_code = srv.proc.wait(timeout=15)
    elapsed = time.monotonic() - start
    assert srv.exit_code == 0
    # The 20 abandoned requests would have taken 20 s on the one worker thread.
    assert elapsed < 8, f"stopped after {elapsed:.2f}s"
    srv.wait_for_log(r"stopping: dropped 20 queued request\(s\) whose client left")


def test_stop_waits_for_a_request_body_still_arriving(spindle):
    srv = spindle(RESPONSE, warmup="/small.php")
    with Conn(srv.port, timeout=20) as conn:
        conn.send(b"POST /body_length.php HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n"
                  b"\r\n" + b"x" * 30)
        time.sleep(0.3)
        srv.proc.send_signal(signal.SIGTERM)
        srv.terminated = True
        time.sleep(0.3)
        conn.send(b"y" * 70)
        r = conn.read_response()
        assert r.status == 200 and r.body == b"100\n", r
    srv.exit_code = srv.proc.wait(timeout=15)
    assert srv.exit_code == 0


def test_disconnect_seen_after_pipelined_bytes(spindle, tmp_path):
    # The client sends the start of a next request while PHP runs, then leaves: the watch on
    # its socket goes on past those bytes, so the script's next output fails at once.
    srv = spindle(RESPONSE, "--log-level", "debug", warmup="/small.php")
    started, go, result = tmp_path / "started", tmp_path / "go", tmp_path / "result"
    with Conn(srv.port, timeout=20) as conn:
        conn.send_request("GET", f"/abort_after_go.php?started={quoted(started)}&go={quoted(go)}"
                                 f"&result={quoted(result)}")
        wait_for_file(started, 10, "the script did not start")
        conn.send(b"GET /small.php HTTP/1.1\r\nHost: 1")
        time.sleep(0.2)
    srv.wait_for_log(r"client disconnected while PHP was running", timeout=5)
    go.write_text("go\n")
    assert wait_for_file(result, 10, "the script did not record its result") == "aborted=1\n"

"""Timeouts and misbehaving clients: slow or stalled clients must never hold a PHP thread or
keep other clients waiting."""

import socket
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest

from spindle_http import Conn, ConnectionClosed

# Timeouts and limits belong to the HTTP front end: a worker behind it changes nothing.
pytestmark = pytest.mark.classic_only

INDEX_BODY = b"hello from index\n"


def test_half_header_disconnected_after_read_header_timeout(spindle):
    srv = spindle("http", "--read-header-timeout", "1s")
    with srv.connect(timeout=10) as conn:
        conn.send(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Partial: ")
        start = time.monotonic()
        closed = conn.wait_closed(6)
        elapsed = time.monotonic() - start
    assert closed, "a half-sent header block must be dropped after --read-header-timeout"
    assert 0.7 <= elapsed <= 4.0, f"closed after {elapsed:.2f}s, expected about 1s"


def test_dripping_header_cannot_extend_read_header_timeout(spindle):
    srv = spindle("http", "--read-header-timeout", "1s")
    with srv.connect(timeout=10) as conn:
        conn.send(b"GET / HTTP/1.1\r\n")
        start = time.monotonic()
        closed = False
        # One header byte every 200 ms: the deadline covers the whole block, not each read.
        for i in range(30):
            try:
                conn.send(b"X-Drip-%d: y\r\n" % i)
            except OSError:
                closed = True
                break
            if conn.wait_closed(0.2):
                closed = True
                break
        elapsed = time.monotonic() - start
    assert closed, "a client dripping headers must be dropped"
    assert elapsed <= 4.0, f"closed after {elapsed:.2f}s, expected about 1s"


def assert_closed_after_idle_second(conn):
    """The server closes `conn`, idle from now, about 1 s later (--idle-timeout 1s)."""
    start = time.monotonic()
    closed = conn.wait_closed(6)
    elapsed = time.monotonic() - start
    assert closed
    assert 0.7 <= elapsed <= 4.0, f"closed after {elapsed:.2f}s, expected about 1s"


def test_idle_keep_alive_connection_closed_after_idle_timeout(spindle):
    srv = spindle("http", "--idle-timeout", "1s")
    with srv.connect(timeout=10) as conn:
        assert conn.request("GET", "/").status == 200
        assert_closed_after_idle_second(conn)


def test_busy_keep_alive_connection_is_not_closed_by_idle_timeout(spindle):
    # The idle deadline is measured from each response's end, not from the connection's start:
    # a connection that keeps making requests, some of them outlasting the timeout, stays
    # open, and is closed once it is idle for the timeout.
    srv = spindle("http", "--idle-timeout", "1s")
    with srv.connect(timeout=10) as conn:
        start = time.monotonic()
        while time.monotonic() - start < 3.0:
            assert conn.request("GET", "/").status == 200
            time.sleep(0.4)
        slow = conn.request("GET", "/sleep.php?ms=1500")
        assert slow.status == 200, slow
        time.sleep(0.6)
        assert conn.request("GET", "/").status == 200
        assert_closed_after_idle_second(conn)


def test_stalled_connections_do_not_block_a_normal_request(spindle):
    srv = spindle("http", "--threads", "2")
    stalled = []
    try:
        for i in range(64):
            conn = Conn(srv.port, timeout=5)
            stalled.append(conn)
            if i % 2:
                conn.send(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
        time.sleep(0.2)
        for path, body in (("/", INDEX_BODY), ("/static.txt", b"a static file of the http app\n")):
            start = time.monotonic()
            r = srv.get(path, timeout=5)
            elapsed = time.monotonic() - start
            assert r.status == 200 and r.body == body, r
            assert elapsed < 1.0, f"{path} took {elapsed:.2f}s behind 64 stalled connections"
    finally:
        for conn in stalled:
            conn.close()


def test_client_not_reading_does_not_block_others(spindle):
    srv = spindle("http", "--threads", "2")
    # A client with a tiny receive window that asks for 8 MB and never reads it.
    stalled = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.settimeout(5)
    try:
        stalled.connect(("127.0.0.1", srv.port))
        stalled.sendall(b"GET /big_response.php HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        time.sleep(0.5)
        for i in range(5):
            start = time.monotonic()
            r = srv.get(f"/echo_id.php?id=other{i}", timeout=5)
            elapsed = time.monotonic() - start
            assert r.status == 200 and r.body == f"other{i}\n".encode() * 50, r
            assert elapsed < 1.0, f"request took {elapsed:.2f}s behind a stalled reader"
    finally:
        stalled.close()
    # The stalled client's PHP thread is released once it is gone: both threads serve again.
    with ThreadPoolExecutor(max_workers=2) as pool:
        start = time.monotonic()
        results = list(pool.map(lambda _: srv.get("/sleep.php?ms=700", timeout=10), range(2)))
        elapsed = time.monotonic() - start
    assert all(r.status == 200 for r in results), results
    assert elapsed < 3.0, f"two 700 ms requests took {elapsed:.2f}s on 2 threads"


def test_disconnect_mid_stream_frees_thread_and_script_sees_abort(spindle, tmp_path):
    srv = spindle("http", "--threads", "1")
    marker = tmp_path / "aborted.txt"
    target = "/stream_until_abort.php?marker=" + urllib.parse.quote(str(marker))
    conn = srv.connect(timeout=5)
    conn.send_request("GET", target)
    head = conn.read_head()
    assert head.status == 200, head
    assert conn.read_chunk()
    assert conn.read_chunk()
    conn.close()

    deadline = time.monotonic() + 6
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), "the script never saw connection_aborted() after the client left"
    assert marker.read_text().startswith("aborted after")
    srv.wait_for_log(r"stream_until_abort: client aborted", timeout=2)
    # The only PHP thread is free again.
    start = time.monotonic()
    r = srv.get("/", timeout=5)
    assert r.status == 200 and r.body == INDEX_BODY
    assert time.monotonic() - start < 1.0


def test_slow_body_upload_does_not_hold_php_thread(spindle):
    srv = spindle("http", "--threads", "1")
    with srv.connect(timeout=10) as slow:
        slow.send(b"POST /echo_body.php HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n"
                  b"only part of the body")
        time.sleep(0.3)
        # The single PHP thread is not waiting for that body.
        start = time.monotonic()
        r = srv.get("/", timeout=5)
        assert r.status == 200 and r.body == INDEX_BODY
        assert time.monotonic() - start < 1.0
        slow.send(b"x" * 79)
        r = slow.read_response()
        assert r.status == 200, r
        assert r.json()["length"] == 100


def test_read_body_timeout_drops_stalled_upload(spindle):
    srv = spindle("http", "--read-body-timeout", "1s")
    with srv.connect(timeout=10) as conn:
        conn.send(b"POST /echo_body.php HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n"
                  b"partial")
        start = time.monotonic()
        try:
            closed = conn.wait_closed(6)
        except ConnectionClosed:
            closed = True
        elapsed = time.monotonic() - start
    assert closed, "a stalled request body must be dropped after --read-body-timeout"
    assert elapsed <= 4.0

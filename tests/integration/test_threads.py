"""Many requests at once on the PHP thread pool, and what a full pool answers."""

import os
import time
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor

import pytest

from spindle_http import Conn, concurrent_echo_requests, wrong_echo_responses


def test_200_concurrent_requests_get_their_own_responses(spindle):
    srv = spindle("http")
    bad = wrong_echo_responses(concurrent_echo_requests(srv.port, 200))
    assert not bad, f"{len(bad)} wrong responses, first: {bad[0]!r}"


def test_concurrent_keep_alive_connections(spindle):
    srv = spindle("http")

    def client(c):
        with Conn(srv.port, timeout=30) as conn:
            for n in range(10):
                ident = f"c{c}-n{n}"
                r = conn.request("GET", f"/echo_id.php?id={ident}")
                if r.status != 200 or r.body != f"{ident}\n".encode() * 50:
                    return ident, r
                r = conn.request("GET", "/static.txt")
                if r.body != b"a static file of the http app\n":
                    return "static", r
        return None

    with ThreadPoolExecutor(max_workers=20) as pool:
        failures = [f for f in pool.map(client, range(20)) if f]
    assert not failures, failures[:3]


# One classic thread on purpose (test_worker.py has the worker version).
@pytest.mark.classic_only
def test_full_pool_answers_503_after_max_wait_time(spindle):
    srv = spindle("http", "--threads", "1", "--max-wait-time", "500ms")
    with ThreadPoolExecutor(max_workers=1) as pool:
        long_request = pool.submit(srv.get, "/sleep.php?ms=3000", timeout=15)
        time.sleep(0.3)
        start = time.monotonic()
        r = srv.get("/echo_id.php?id=waiting", timeout=10)
        elapsed = time.monotonic() - start
        assert r.status == 503, r
        assert r.header("Retry-After"), r
        assert 0.4 <= elapsed < 1.5, f"503 came after {elapsed:.2f}s, expected about 0.5s"
        text = r.text.lower()
        assert "busy" in text or "retry" in text, f"unclear 503 body: {r.text!r}"
        first = long_request.result(timeout=15)
    assert first.status == 200 and first.body == b"slept 3000 ms\n", first
    # Once the thread is free, requests are served again.
    assert srv.get("/echo_id.php?id=after").body == b"after\n" * 50


def test_threads_are_named_for_top_and_perf(spindle, mode):
    srv = spindle("http")
    # A worker request's time limit is kept by the watchdog thread, started by the first one.
    assert srv.get("/echo_id.php?id=x").status == 200
    names = [Path(f"/proc/{srv.pid}/task/{task}/comm").read_text().strip()
             for task in os.listdir(f"/proc/{srv.pid}/task")]
    for prefix in ("spindle-php-", "spindle-io-"):
        numbers = sorted(int(n[len(prefix):]) for n in names if n.startswith(prefix))
        assert numbers and numbers == list(range(len(numbers))), (prefix, names)
    assert ("spindle-watch" in names) == (mode == "worker"), names


def test_php_threads_run_as_batch_and_io_threads_do_not(spindle, mode):
    # PHP threads woken with a request must not preempt the I/O thread that woke them
    # (worker/pool.cpp); the I/O threads keep the default policy to read clients at once.
    srv = spindle("http")
    assert srv.get("/echo_id.php?id=x").status == 200
    policies = {}
    for task in os.listdir(f"/proc/{srv.pid}/task"):
        name = Path(f"/proc/{srv.pid}/task/{task}/comm").read_text().strip()
        policies[name] = os.sched_getscheduler(int(task))
    php = {n: p for n, p in policies.items() if n.startswith("spindle-php-")}
    io = {n: p for n, p in policies.items() if n.startswith("spindle-io-")}
    assert php and all(p == os.SCHED_BATCH for p in php.values()), policies
    assert io and all(p == os.SCHED_OTHER for p in io.values()), policies
    # The watchdog, started from a PHP thread, must not inherit its policy.
    if mode == "worker":
        assert policies["spindle-watch"] == os.SCHED_OTHER, policies

"""Worker mode (docs/worker-mode.md): a script boots once per thread and serves request after
request through frankenphp_handle_request(). What persists between requests (application
state, ini_set, $_ENV) and what must not (superglobals, headers, status, cookies, output
buffers, uploads, sessions); routing to a worker; crashes, failing boots and their backoff;
concurrency, memory, and shutdown with a request in flight.

Every server here brings its own --worker flags, so the harness runs these tests once, in its
classic mode (which adds no flag). Fixtures: tests/fixtures/worker/."""

import hashlib
import os
import re
import signal
import subprocess
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import FIXTURES
from spindle_http import concurrent_echo_requests, multipart, wrong_echo_responses

pytestmark = pytest.mark.classic_only

APP = FIXTURES / "worker"
FRONT = APP / "front"

# Limits of the resource checks: CPU a worker backing off may burn in 3 s, and growth of the
# process's RSS between request 300 and request 3000 of a worker.
BACKOFF_CPU_LIMIT_S = 0.5
BACKOFF_RSS_GROWTH_LIMIT_KB = 4 * 1024
REQUESTS_RSS_GROWTH_LIMIT_KB = 10 * 1024


def worker(script, threads=1):
    """The flag pair that runs fixture `script` of the worker app on `threads` threads."""
    return ["--worker", f"{APP / script},{threads}"]


def cpu_seconds(pid):
    """utime + stime of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # Fields 14 and 15 of stat(5); fields[0] here is field 3 (state).
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def records_matching(srv, pattern):
    regex = re.compile(pattern)
    return [r for r in srv.records() if regex.search(r.text)]


def run_cli(binary, *args, timeout=30, cwd=None):
    return subprocess.run([binary, *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=timeout, cwd=cwd)


# --- booting once ---------------------------------------------------------------------------


def test_script_boots_once_and_keeps_state(spindle):
    srv = spindle(APP, *worker("counter.php"))
    seen = []
    with srv.connect() as conn:
        for _ in range(3):
            seen.append(conn.request("GET", "/counter.php"))
    for _ in range(2):
        seen.append(srv.get("/counter.php?x=1"))
    data = [r.json() for r in seen]
    assert [d["count"] for d in data] == [1, 2, 3, 4, 5], data
    assert len({d["boot_id"] for d in data}) == 1, data
    for d in data:
        # As in FrankenPHP: set while the script boots, not in its requests' $_SERVER.
        assert d["worker"] is None, d
        assert d["worker_at_boot"] == "1", d
        assert d["ignore_user_abort"] == 1, d
    # What the script printed while booting went to the log, at info, and to no client.
    record = srv.wait_for_log(
        r"\[worker \S*/counter\.php\] output: counter worker booted, FRANKENPHP_WORKER='1'")
    assert record.level == "info" and record.logger == "php", record
    assert all(b"booted" not in r.body for r in seen)
    assert len(records_matching(srv, r"counter worker booted")) == 1


def test_front_controller_worker_serves_every_fallback_route(spindle):
    srv = spindle(FRONT, "--worker", f"{FRONT / 'index.php'},1", warmup="/static.txt")
    routes = [
        ("/", "/index.php", None),
        ("/some/route?x=1", "/index.php", None),
        ("/index.php", "/index.php", None),
        ("/index.php/extra/path", "/index.php", "/extra/path"),
        ("/missing.php", "/index.php", None),
    ]
    for n, (target, script_name, path_info) in enumerate(routes, start=1):
        r = srv.get(target)
        assert r.status == 200, (target, r)
        data = r.json()
        assert data["worker"] is None, (target, data)
        assert data["count"] == n, (target, data)
        assert data["request_uri"] == target, data
        assert data["script_name"] == script_name, data
        # No PATH_INFO: unset or empty.
        assert (data["path_info"] or None) == path_info, data
    # Another script beside the worker runs classically; static files stay static.
    classic = srv.get("/classic.php").json()
    assert classic == {"script": "classic.php", "worker": None, "script_name": "/classic.php"}
    r = srv.get("/static.txt")
    assert r.status == 200 and r.body == b"a static file beside the workers\n", r
    assert srv.get("/").json()["count"] == len(routes) + 1


# --- per-request state ----------------------------------------------------------------------


def test_superglobals_and_input_do_not_leak_into_the_next_request(spindle):
    srv = spindle(APP, *worker("request_dump.php"))
    with srv.connect() as conn:
        first = conn.request(
            "POST", "/request_dump.php?a=1&shared=from-get",
            headers=[("Content-Type", "application/x-www-form-urlencoded"),
                     ("Cookie", "c=1; other=2"), ("X-One", "one"),
                     ("Authorization", "Basic dXNlcjpwdw==")],
            body=b"p=1&shared=from-post").json()
        assert first["get"] == {"a": "1", "shared": "from-get"}, first
        assert first["post"] == {"p": "1", "shared": "from-post"}, first
        assert first["cookie"] == {"c": "1", "other": "2"}, first
        assert first["request"]["shared"] == "from-post", first
        assert first["x_headers"] == {"HTTP_X_ONE": "one"}, first
        assert first["auth_user"] == "user", first
        assert first["input"] == "p=1&shared=from-post", first

        second = conn.request("GET", "/request_dump.php").json()
        assert second["get"] == [], second
        assert second["globals_get"] == [], second
        assert second["post"] == [], second
        assert second["cookie"] == [], second
        assert second["request"] == [], second
        assert second["files"] == [], second
        assert second["x_headers"] == [], second
        assert second["auth_user"] is None, second
        assert second["content_type"] in ("", None), second
        assert second["input"] == "", second
        assert second["query_string"] in ("", None), second
        assert second["method"] == "GET"

        # php://input belongs to each request.
        third = conn.request("POST", "/request_dump.php", headers={"Content-Type": "text/plain"},
                             body=b"third body").json()
        assert third["input"] == "third body" and third["post"] == [], third
        fourth = conn.request("PUT", "/request_dump.php", body=b"4").json()
        assert fourth["input"] == "4", fourth
        assert conn.request("GET", "/request_dump.php").json()["input"] == ""


def test_uploaded_temp_files_removed_after_each_request(spindle):
    srv = spindle(APP, *worker("request_dump.php"))
    tmp_names = []
    for i in range(3):
        content = os.urandom(20_000 + i)
        content_type, body = multipart({"note": f"n{i}"},
                                       {"upload": (f"f{i}.bin", "application/octet-stream",
                                                   content)})
        data = srv.post("/request_dump.php", body, content_type=content_type).json()
        upload = data["files"]["upload"]
        assert upload["exists"] is True and upload["name"] == f"f{i}.bin", data
        assert upload["md5"] == hashlib.md5(content).hexdigest()
        assert data["post"] == {"note": f"n{i}"}
        tmp_names.append(upload["tmp_name"])
        # The next request of the same thread sees no file.
        assert srv.get("/request_dump.php").json()["files"] == []
    deadline = time.monotonic() + 3
    while any(os.path.exists(t) for t in tmp_names) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [t for t in tmp_names if os.path.exists(t)]
    assert not left, f"upload temp files left behind by a worker: {left}"


def test_headers_status_cookies_and_buffers_do_not_leak(spindle):
    srv = spindle(APP, *worker("response_state.php"))
    with srv.connect() as conn:
        baseline = conn.request("GET", "/response_state.php")
        assert baseline.status == 200, baseline
        first = conn.request("GET", "/response_state.php?set=1")
        second = conn.request("GET", "/response_state.php")
    assert first.status == 203, first
    assert first.header("X-Leak") == "from-the-first-request", first
    assert any(c.startswith("leak=first") for c in first.header_all("Set-Cookie")), first
    # A buffer the handler leaves open is flushed into its own response.
    assert first.body == b"set response\nleft in an open buffer\n", first
    assert second.status == 200, second
    assert second.header("X-Leak") is None, second
    assert second.header_all("Set-Cookie") == [], second
    assert b"left in an open buffer" not in second.body, second
    # Same output-buffer level and header list as a request that followed nothing.
    assert second.body == baseline.body, (baseline, second)


def test_sessions_are_per_client_and_reset_between_requests(spindle, tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    srv = spindle(APP, *worker("session.php"), "--php-ini-set", f"session.save_path={sessions}")

    def session_cookie(response):
        for cookie in response.header_all("Set-Cookie"):
            if cookie.startswith("PHPSESSID="):
                return cookie.split(";", 1)[0]
        raise AssertionError(f"no session cookie in {response!r}")

    def check_fresh(data):
        # Nothing of an earlier request's session before session_start().
        assert data["before"] == {"isset": False, "status": 1, "id": ""}, data

    a = srv.get("/session.php?put=alpha")
    a_data = a.json()
    check_fresh(a_data)
    assert a_data["data"] == {"value": "alpha", "hits": 1}, a_data
    a_cookie = session_cookie(a)

    b = srv.get("/session.php?put=beta")
    b_data = b.json()
    check_fresh(b_data)
    assert b_data["data"] == {"value": "beta", "hits": 1}, b_data
    b_cookie = session_cookie(b)
    assert a_cookie != b_cookie

    for cookie, value, hits in ((a_cookie, "alpha", 2), (b_cookie, "beta", 2),
                                (a_cookie, "alpha", 3)):
        data = srv.get("/session.php", headers={"Cookie": cookie}).json()
        check_fresh(data)
        assert data["data"] == {"value": value, "hits": hits}, (cookie, data)
        assert "PHPSESSID=" + data["id"] == cookie

    # A request that does not start the session sees none and sends no cookie.
    r = srv.get("/session.php?nostart=1")
    check_fresh(r.json())
    assert r.json()["data"] is None
    assert r.header_all("Set-Cookie") == [], r
    # Without a cookie a new, empty session starts.
    r = srv.get("/session.php")
    data = r.json()
    check_fresh(data)
    assert data["data"] == {"hits": 1}, data
    assert session_cookie(r) not in (a_cookie, b_cookie)


def test_session_shutdown_entries_do_not_pile_up_across_requests(spindle, tmp_path):
    # Symfony's session storage calls session_register_shutdown() once per request in a
    # worker; each call appends a session_write_close() to the script's shutdown functions,
    # which run only when the script ends. Spindle closes the session at each request's end,
    # so inside a worker request session_register_shutdown() does nothing: before, the script
    # grew by about 170 bytes a request until its memory_limit. Shutdown functions of the application's own still run at the
    # script's end, as in FrankenPHP.
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    srv = spindle(APP, *worker("session_storage.php"), "--php-ini-set",
                  f"session.save_path={sessions}")
    first = srv.get("/session_storage.php?start=1")
    cookie = first.header_all("Set-Cookie")[0].split(";", 1)[0]
    for _ in range(50):
        srv.get("/session_storage.php")
    before = srv.get("/session_storage.php").json()["memory"]
    for _ in range(2000):
        srv.get("/session_storage.php")
    after = srv.get("/session_storage.php").json()["memory"]
    # 2,000 entries would be about 340 KB.
    assert after - before < 16 * 1024, (before, after)

    # The session itself is still written at each request's end.
    for hits in (2, 3):
        r = srv.get("/session_storage.php?start=1", headers={"Cookie": cookie})
        assert r.json()["hits"] == hits, r

    marks = tmp_path / "marks"
    for _ in range(3):
        srv.get(f"/session_storage.php?mark={marks}")
    assert not marks.exists()
    assert srv.terminate() == 0
    assert marks.read_text() == "ran\n" * 3


def test_ini_set_lasts_for_the_life_of_the_script(spindle):
    # Documented decision (as in FrankenPHP): ini_set() is not undone between requests.
    srv = spindle(APP, *worker("ini_set.php"))
    assert srv.get("/ini_set.php").body == b"14\n"
    assert srv.get("/ini_set.php?precision=5").body == b"5\n"
    assert srv.get("/ini_set.php").body == b"5\n"


def test_env_is_built_once_per_script(spindle):
    # Documented decision: $_ENV is built at boot and not rebuilt per request, so a change a
    # request makes stays visible to later requests of that thread.
    srv = spindle(APP, *worker("env.php"), env={"SPINDLE_FIXTURE_ENV": "from-process"})
    first = srv.get("/env.php?put=changed").json()
    assert first == {"at_boot": "from-process", "now": "from-process", "put_before": None,
                     "server": "from-process"}, first
    second = srv.get("/env.php").json()
    assert second["put_before"] == "changed", second
    assert second["now"] == "from-process", second


# --- the worker API -------------------------------------------------------------------------


def test_finish_request_inside_handler(spindle, tmp_path):
    srv = spindle(APP, *worker("finish_request.php"))
    marker = tmp_path / "after_finish.txt"
    start = time.monotonic()
    r = srv.get("/finish_request.php?marker=" + urllib.parse.quote(str(marker)))
    elapsed = time.monotonic() - start
    assert r.status == 200 and r.body == b"finished request 1\n", r
    assert r.header("X-Too-Late") is None, r
    assert elapsed < 0.8, f"the response waited {elapsed:.2f}s for the handler to end"
    assert not marker.exists(), "the handler should still be sleeping"
    # The thread's next request is served once the handler is done, and none of what the
    # handler printed after finishing shows up in it.
    r = srv.get("/finish_request.php", timeout=10)
    assert r.status == 200 and r.body == b"finished request 2\n", r
    assert marker.exists() and marker.read_text() == "written after finish\n"


def test_handle_request_outside_a_worker_throws(spindle):
    srv = spindle(APP)
    r = srv.get("/handle_request_outside_worker.php")
    assert r.status == 200, r
    data = r.json()
    for function in ("frankenphp_handle_request", "spindle_handle_request"):
        assert data[function]["class"] == "RuntimeException", data
        # FrankenPHP's message, which its own tests match.
        assert data[function]["message"] == (
            "frankenphp_handle_request() called while not in worker mode"), data
    assert b"handler must not run" not in r.body


def test_nested_handle_request_throws_and_worker_goes_on(spindle):
    srv = spindle(APP, *worker("nested_handle_request.php"))
    for count in (1, 2):
        r = srv.get("/nested_handle_request.php")
        assert r.status == 200, r
        data = r.json()
        assert data["count"] == count, data
        assert data["nested"]["class"] == "RuntimeException", data
        assert b"must not run" not in r.body


# --- crashes and failing boots --------------------------------------------------------------


CRASHES = {
    # ?how= -> the PHP error it logs (None: exit(), which is no error)
    "exception": r"Uncaught RuntimeException: crash_fixture_exception",
    "error": r"Call to undefined function crash_fixture_undefined_function",
    "fatal": r"crash_fixture_fatal",
    "exit": None,
}


@pytest.mark.parametrize("how", list(CRASHES))
def test_script_ended_in_handler_restarts_at_once(spindle, how):
    srv = spindle(APP, *worker("crash.php"))
    srv.expect_errors(r"crash_fixture_")
    before = [srv.get("/crash.php").json() for _ in range(2)]
    assert [d["count"] for d in before] == [1, 2], before

    r = srv.get(f"/crash.php?how={how}", timeout=10)
    if how == "exit":
        # exit() completes the request with what it set.
        assert r.status == 202 and r.body == b"exiting\n", r
        record = srv.wait_for_log(
            r"worker \S*/crash\.php script ended after 3 requests.*restarting")
        # Planned, as FrankenPHP sees a script ending with status 0: a restart, not a crash.
        assert record.level == "info", record
        assert not records_matching(srv, r"crashed"), srv.log_tail()
    else:
        assert r.status == 500, r
        assert b"crash_fixture" not in r.body, r
        php = srv.wait_for_log(CRASHES[how])
        assert php.level == "error" and php.logger == "php", php
        record = srv.wait_for_log(r"worker \S*/crash\.php crashed after 3 requests.*restarting")
        assert record.level in ("warning", "warn", "error"), record

    # The boot code ran again: a new boot id, the counter starts over.
    after = [srv.get("/crash.php", timeout=10) for _ in range(2)]
    assert all(a.status == 200 for a in after), after
    data = [a.json() for a in after]
    assert [d["count"] for d in data] == [1, 2], data
    assert data[0]["boot_id"] != before[0]["boot_id"], data

    # An exit() after that is logged as the script ending, not as the earlier crash again.
    r = srv.get("/crash.php?how=exit", timeout=10)
    assert r.status == 202, r
    ended = r"worker \S*/crash\.php script ended after 3 requests"
    expected = 2 if how == "exit" else 1
    deadline = time.monotonic() + 5
    while len(records_matching(srv, ended)) < expected and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(records_matching(srv, ended)) == expected, srv.log_tail()
    assert len(records_matching(srv, r"crashed after")) == (0 if how == "exit" else 1), (
        srv.log_tail())


@pytest.mark.parametrize("script,reason", [
    ("boot_fatal.php", "boot_fatal_marker"),
    ("boot_without_handle_request.php", "without calling frankenphp_handle_request"),
])
def test_worker_failing_every_boot_refuses_to_start(spindle_binary, script, reason):
    start = time.monotonic()
    result = run_cli(spindle_binary, "php-server", "--root", str(APP), "--listen", "127.0.0.1:0",
                     *worker(script), "--threads", "2", "--admin", "off", cwd=str(APP))
    elapsed = time.monotonic() - start
    assert result.returncode == 1, result
    # Named by its absolute path, as FrankenPHP names an unnamed worker.
    assert f"worker {APP / script} failed to start 6 times in a row" in result.stderr, (
        result.stderr)
    assert reason in result.stderr, result.stderr
    for n in range(1, 6):
        assert f"failed to start ({n} in a row)" in result.stderr, result.stderr
    assert "listening on" not in result.stderr, "it must refuse before serving anything"
    # 100 + 200 + 400 + 800 + 1000 ms of backoff between the six attempts.
    assert 2.0 <= elapsed < 20, f"gave up after {elapsed:.2f}s"


def test_worker_failing_its_first_boots_still_starts(spindle, tmp_path):
    counter = tmp_path / "boots"
    srv = spindle(APP, *worker("boot_flaky.php"), env={"SPINDLE_FLAKY_COUNTER": str(counter)})
    srv.expect_errors(r"boot_flaky_marker")
    r = srv.get("/boot_flaky.php")
    assert r.status == 200 and r.body == b"served by boot 3\n", r
    first = srv.wait_for_log(r"worker \S*/boot_flaky\.php failed to start \(1 in a row\)")
    second = srv.wait_for_log(r"failed to start \(2 in a row\)")
    assert first.level in ("warning", "warn") and "retrying in 100 ms" in first.text, first
    assert "retrying in 200 ms" in second.text, second
    assert counter.read_text() == "3"


def test_failing_worker_backs_off_without_burning_cpu(spindle, tmp_path):
    flag = tmp_path / "break"
    srv = spindle(APP, *worker("fail_on_flag.php"), "--max-wait-time", "500ms",
                  env={"SPINDLE_BREAK_FLAG": str(flag)})
    srv.expect_errors(r"fail_on_flag_marker")
    first_boot = srv.get("/fail_on_flag.php").body
    assert first_boot.startswith(b"boot "), first_boot

    flag.touch()
    r = srv.get("/fail_on_flag.php")
    assert r.status == 200 and r.body == b"breaking\n", r
    srv.wait_for_log(r"worker \S*/fail_on_flag\.php failed to start \(3 in a row\)")

    # Backing off: no CPU burnt, no memory grown.
    cpu_before, rss_before = cpu_seconds(srv.pid), rss_kb(srv.pid)
    time.sleep(3)
    cpu_used = cpu_seconds(srv.pid) - cpu_before
    rss_growth = rss_kb(srv.pid) - rss_before
    assert cpu_used < BACKOFF_CPU_LIMIT_S, f"{cpu_used:.2f}s of CPU in 3 s of backoff"
    assert rss_growth < BACKOFF_RSS_GROWTH_LIMIT_KB, f"RSS grew {rss_growth} KB while backing off"

    # Its requests wait up to --max-wait-time, then get 503.
    start = time.monotonic()
    r = srv.get("/fail_on_flag.php", timeout=10)
    elapsed = time.monotonic() - start
    assert r.status == 503, r
    assert 0.4 <= elapsed < 2.0, f"503 came after {elapsed:.2f}s, expected about 0.5s"

    # Once the cause is gone the worker boots again (within the 1 s backoff cap).
    flag.unlink()
    deadline = time.monotonic() + 6
    while True:
        r = srv.get("/fail_on_flag.php", timeout=10)
        if r.status == 200 or time.monotonic() > deadline:
            break
    assert r.status == 200 and r.body.startswith(b"boot "), r
    assert r.body != first_boot


# --- load, memory, signals ------------------------------------------------------------------


def test_200_concurrent_requests_on_four_worker_threads(spindle):
    srv = spindle(APP, *worker("echo_id.php", 4), "--threads", "5")
    results = concurrent_echo_requests(srv.port, 200)
    bad = wrong_echo_responses(results)
    assert not bad, f"{len(bad)} wrong responses, first: {bad[0]!r}"
    boot_ids = {r.header("X-Boot-Id") for _, r in results}
    assert len(boot_ids) == 4, f"expected every worker thread to serve, got {boot_ids}"


@pytest.mark.zend_allocator
def test_memory_stable_over_3000_requests(spindle):
    srv = spindle(APP, *worker("busy_request.php"))
    body = b"field=" + b"v" * 2000 + b"&list[]=1&list[]=2"

    def serve(first, last):
        with srv.connect(timeout=10) as conn:
            for n in range(first, last):
                r = conn.request("POST", f"/busy_request.php?n={n}&q=query",
                                 headers=[("Content-Type", "application/x-www-form-urlencoded"),
                                          ("Cookie", f"a={n}; b=two"), ("X-Extra", "x" * 200)],
                                 body=body)
                assert r.status == 200 and r.header("X-Request") == str(n), r

    serve(0, 300)
    after_300 = rss_kb(srv.pid)
    serve(300, 3000)
    after_3000 = rss_kb(srv.pid)
    growth = after_3000 - after_300
    assert growth <= REQUESTS_RSS_GROWTH_LIMIT_KB, (
        f"RSS grew {growth} KB from request 300 ({after_300} KB) to request 3000 "
        f"({after_3000} KB)")


def test_busy_worker_answers_503_after_max_wait_time(spindle):
    srv = spindle(APP, *worker("sleep.php"), "--max-wait-time", "500ms")
    with ThreadPoolExecutor(max_workers=1) as pool:
        long_request = pool.submit(srv.get, "/sleep.php?ms=2000", timeout=15)
        time.sleep(0.3)
        start = time.monotonic()
        r = srv.get("/sleep.php?ms=1", timeout=10)
        elapsed = time.monotonic() - start
        assert r.status == 503, r
        assert 0.4 <= elapsed < 1.5, f"503 came after {elapsed:.2f}s, expected about 0.5s"
        # Classic scripts have their own threads and are not held up by the busy worker.
        assert srv.get("/handle_request_outside_worker.php", timeout=5).status == 200
        first = long_request.result(timeout=15)
    assert first.status == 200 and first.body == b"slept 2000 ms\n", first
    assert srv.get("/sleep.php?ms=1").body == b"slept 1 ms\n"


def test_max_requests_recycles_the_thread(spindle):
    srv = spindle(APP, *worker("counter.php"), "--worker-max-requests", "3")
    seen = [srv.get("/counter.php").json() for _ in range(7)]
    assert [d["count"] for d in seen] == [1, 2, 3, 1, 2, 3, 1], seen
    boots = [d["boot_id"] for d in seen]
    assert boots[0] == boots[2] and boots[3] == boots[5] and len(set(boots)) == 3, boots
    recycled = records_matching(srv, r"served max_requests \(3\); its PHP thread state is recycled")
    assert len(recycled) == 2, srv.log_tail()


def test_sigusr1_restarts_worker_scripts(spindle):
    srv = spindle(APP, *worker("counter.php"))
    before = [srv.get("/counter.php").json() for _ in range(2)]
    assert [d["count"] for d in before] == [1, 2], before
    os.kill(srv.pid, signal.SIGUSR1)
    srv.wait_for_log(r"signal 10: configuration applied \(1 new worker generation")
    after = srv.get("/counter.php", timeout=10).json()
    assert after["count"] == 1 and after["boot_id"] != before[0]["boot_id"], (before, after)


def test_watch_restarts_workers_when_a_matching_file_changes(spindle, tmp_root):
    root = tmp_root("worker")
    srv = spindle(root, "--worker", f"{root / 'counter.php'},1", "--watch", f"{root}/**/*.php")
    srv.wait_for_log(r"watching \d+ directories for changes that restart the workers")
    first = [srv.get("/counter.php").json() for _ in range(2)]
    assert [d["count"] for d in first] == [1, 2], first

    # A file the pattern does not name changes nothing.
    (root / "notes.txt").write_text("not code")
    time.sleep(0.6)
    assert srv.get("/counter.php").json()["count"] == 3

    # A PHP file in a directory made after start-up: watched too, so the workers restart.
    (root / "lib").mkdir()
    time.sleep(0.1)
    (root / "lib" / "helper.php").write_text("<?php\n")
    srv.wait_for_log(r"watch: .*/lib/helper\.php changed: restarting every worker script")
    srv.wait_for_log(r"watch: .*/lib/helper\.php changed: configuration applied")
    after = srv.get("/counter.php", timeout=10).json()
    assert after["count"] == 1 and after["boot_id"] != first[0]["boot_id"], (first, after)
    assert len(records_matching(srv, r"restarting every worker script")) == 1


def test_sigusr1_restart_under_load_loses_no_request(spindle):
    srv = spindle(APP, *worker("echo_id.php", 2))
    stop = threading.Event()
    failures = []
    served = [0]

    def client(n):
        with srv.connect(timeout=10) as conn:
            i = 0
            while not stop.is_set():
                ident = f"c{n}-{i}"
                r = conn.request("GET", f"/echo_id.php?id={ident}")
                if r.status != 200 or r.body != f"{ident}\n".encode() * 50:
                    failures.append((ident, r))
                served[0] += 1
                i += 1

    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = [pool.submit(client, n) for n in range(8)]
        time.sleep(0.3)
        for _ in range(3):
            os.kill(srv.pid, signal.SIGUSR1)
            time.sleep(0.3)
        stop.set()
        for f in futures:
            f.result(timeout=20)
    assert not failures, f"{len(failures)} failed requests during restarts, first {failures[0]!r}"
    assert served[0] > 100, served
    deadline = time.monotonic() + 10
    while len(records_matching(srv, r"signal 10: configuration applied \(1 new worker")) < 3:
        assert time.monotonic() < deadline, srv.log_tail()
        time.sleep(0.05)


def test_restart_interrupts_requests_past_the_grace_period(spindle):
    srv = spindle(APP, *worker("sleep.php"), *worker("counter.php"),
                  "--worker-restart-grace", "1s")
    srv.expect_errors(r"Spindle ended this request")
    with ThreadPoolExecutor(max_workers=1) as pool:
        stuck = pool.submit(srv.get, "/sleep.php?ms=10000", timeout=20)
        time.sleep(0.3)
        start = time.monotonic()
        os.kill(srv.pid, signal.SIGUSR1)
        r = stuck.result(timeout=20)
        elapsed = time.monotonic() - start
    # usleep() is interrupted too: the request ends about one grace period after the signal.
    assert r.status == 500, r
    assert 0.8 <= elapsed < 4, f"interrupted after {elapsed:.2f}s, expected about 1s"
    srv.wait_for_log(r"slot \d+: worker \S*/sleep\.php still busy after the restart grace period")
    # The worker booted again and serves; the other worker restarted without an interrupt.
    assert srv.get("/sleep.php?ms=1", timeout=10).body == b"slept 1 ms\n"
    assert srv.get("/counter.php", timeout=10).json()["count"] == 1


@pytest.mark.parametrize("as_worker", [False, True], ids=["classic", "worker"])
def test_fatal_error_after_output_answers_500(spindle, as_worker):
    flags = worker("fatal_after_output.php") if as_worker else []
    srv = spindle(APP, *flags)
    srv.expect_errors(r"spindle_fixture_undefined_function")
    for _ in range(2):
        r = srv.get("/fatal_after_output.php")
        assert r.status == 500, r
        assert r.body == b"partial page\n", r


def test_sigterm_completes_in_flight_worker_request(spindle):
    srv = spindle(APP, *worker("sleep.php"))
    with ThreadPoolExecutor(max_workers=1) as pool:
        in_flight = pool.submit(srv.get, "/sleep.php?ms=1500", timeout=15)
        time.sleep(0.4)
        exit_code = srv.terminate()
        r = in_flight.result(timeout=15)
    assert r.status == 200 and r.body == b"slept 1500 ms\n", r
    assert exit_code == 0, f"exit code {exit_code} after SIGTERM\n{srv.log_tail()}"
    # frankenphp_handle_request() returned false and the script ran on to its end.
    srv.wait_for_log(r"\[worker \S*/sleep\.php\] output: sleep worker loop ended", timeout=1)


# --- command line ---------------------------------------------------------------------------


def test_missing_worker_file_exits_2(spindle_binary, tmp_path):
    result = run_cli(spindle_binary, "php-server", "--root", str(APP), "--listen",
                     "127.0.0.1:0", "-w", "no_such_worker.php,1", cwd=str(tmp_path))
    assert result.returncode == 2, result
    assert "no_such_worker.php" in result.stderr, result


def test_too_few_threads_for_the_workers_exits_2(spindle_binary, tmp_path):
    # counter.php is found relative to the root (it is not in the current directory).
    result = run_cli(spindle_binary, "php-server", "--root", str(APP), "--listen",
                     "127.0.0.1:0", "--worker", "counter.php,2", "--threads", "2",
                     cwd=str(tmp_path))
    assert result.returncode == 2, result
    assert "does not exist" not in result.stderr, result
    assert "--threads" in result.stderr or "threads" in result.stderr.lower(), result
    assert "3" in result.stderr, result

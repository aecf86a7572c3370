"""The PHP runtime inside Spindle: finishing a response early, early hints, exit, errors and
limits, logging, OPcache, and where php.ini settings come from."""

import os
import re
import time
import urllib.parse

import pytest

RUNTIME_INDEX = b"runtime index\n"


def assert_still_serving(srv):
    r = srv.get("/", timeout=5)
    assert r.status == 200 and r.body == RUNTIME_INDEX, r


def assert_times_out(srv, path, timeout=15):
    """GET `path` on a server whose limit is 1 s: 500 well before the script would end."""
    start = time.monotonic()
    r = srv.get(path, timeout=timeout)
    elapsed = time.monotonic() - start
    assert r.status == 500, r
    assert elapsed < 5, f"a 1 s max_execution_time let {path} run {elapsed:.2f}s"


def assert_worker_restarted(srv, script, how=r"crashed after \d+ requests"):
    """In worker mode: the worker of /script logged that its script ended (`how`) and that it
    restarts. Nothing in classic mode, where every request runs the script afresh."""
    if srv.mode != "worker":
        return
    srv.wait_for_log(rf"worker \S*/{re.escape(script)} {how}.*restarting")


# --- finishing early, interim responses, exit -----------------------------------------------


@pytest.mark.parametrize("function", ["frankenphp_finish_request", "fastcgi_finish_request"])
def test_finish_request_sends_response_while_script_continues(spindle, tmp_path, function):
    srv = spindle("runtime")
    marker = tmp_path / "after_finish.txt"
    start = time.monotonic()
    r = srv.get(f"/{function}.php?marker=" + urllib.parse.quote(str(marker)), timeout=10)
    elapsed = time.monotonic() - start
    assert r.status == 200, r
    assert r.body == b"response complete\n"
    assert elapsed < 1.2, f"response took {elapsed:.2f}s: it waited for the script to end"
    assert not marker.exists(), "the script should still be sleeping"
    deadline = time.monotonic() + 5
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), "the script did not go on after finishing the request"
    assert marker.read_text() == "written after finish\n"


def test_finish_request_keeps_connection_usable(spindle, tmp_path):
    srv = spindle("runtime")
    marker = tmp_path / "after_finish.txt"
    with srv.connect() as conn:
        r = conn.request("GET", "/fastcgi_finish_request.php?marker="
                         + urllib.parse.quote(str(marker)))
        assert r.body == b"response complete\n"
        r = conn.request("GET", "/")
        assert r.body == RUNTIME_INDEX
    deadline = time.monotonic() + 5
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists()


def test_early_hints(spindle):
    srv = spindle("runtime")
    with srv.connect() as conn:
        r = conn.request("GET", "/early_hints.php")
    assert len(r.interim) == 1, r
    hints = r.interim[0]
    assert hints.status == 103, hints
    assert hints.reason == "Early Hints"
    assert hints.header("Link") == "</style.css>; rel=preload; as=style"
    assert r.status == 200, r
    assert r.header("X-Final") == "yes"
    assert r.body == b"final body\n"


def test_exit_keeps_output(spindle):
    srv = spindle("runtime")
    for _ in range(2):
        r = srv.get("/exit_midway.php", timeout=5)
        assert r.status == 200, r
        assert r.body == b"before exit\n"
    # In a worker, exit() ends the worker script, which starts again for the next request.
    assert_worker_restarted(srv, "exit_midway.php", r"script ended after \d+ requests")


# --- errors ---------------------------------------------------------------------------------


def test_fatal_error_500_and_next_request_works(spindle):
    srv = spindle("runtime")
    srv.expect_errors(r"spindle_fixture_undefined_function")
    r = srv.get("/fatal_error.php")
    assert r.status == 500, r
    assert b"spindle_fixture_undefined_function" not in r.body
    assert b"Fatal error" not in r.body
    record = srv.wait_for_log(r"Call to undefined function spindle_fixture_undefined_function")
    assert record.level == "error" and record.logger == "php", record
    assert_worker_restarted(srv, "fatal_error.php")
    assert srv.get("/fatal_error.php", timeout=5).status == 500
    assert_still_serving(srv)


def test_uncaught_exception_500_and_next_request_works(spindle):
    srv = spindle("runtime")
    srv.expect_errors(r"uncaught_exception_marker")
    r = srv.get("/uncaught_exception.php")
    assert r.status == 500, r
    assert b"uncaught_exception_marker" not in r.body
    record = srv.wait_for_log(r"Uncaught RuntimeException: uncaught_exception_marker")
    assert record.level == "error" and record.logger == "php", record
    assert_worker_restarted(srv, "uncaught_exception.php")
    assert srv.get("/uncaught_exception.php", timeout=5).status == 500
    assert_still_serving(srv)


def test_max_execution_time_500_and_server_keeps_serving(spindle):
    srv = spindle("runtime", "--php-ini-set", "max_execution_time=1")
    srv.expect_errors(r"Maximum execution time")
    assert_times_out(srv, "/infinite_loop.php")
    record = srv.wait_for_log(r"Maximum execution time of 1 second exceeded")
    assert record.level == "error", record
    assert_worker_restarted(srv, "infinite_loop.php")
    for _ in range(3):
        assert_still_serving(srv)


def test_time_between_requests_does_not_count_as_execution_time(spindle):
    # A worker waits for its next request inside its script: waiting longer than
    # max_execution_time must neither fail the next request nor disarm the limit for it.
    srv = spindle("runtime", "--php-ini-set", "max_execution_time=1")
    srv.expect_errors(r"Maximum execution time of 1 second exceeded in .*infinite_loop")
    assert_still_serving(srv)
    time.sleep(2.5)
    for _ in range(3):
        assert_still_serving(srv)
    assert_times_out(srv, "/infinite_loop.php")
    assert_still_serving(srv)


def test_execution_timers_are_reused_not_accumulated(spindle):
    # Each PHP thread keeps one execution timer for its whole life (sapi/execution_timer.c):
    # after many requests, timeouts among them, the process holds at most one per thread, and
    # the limit still ends every runaway request.
    srv = spindle("runtime", "--php-ini-set", "max_execution_time=1")
    srv.expect_errors(r"Maximum execution time")
    for _ in range(30):
        assert_still_serving(srv)
    for _ in range(2):
        assert_times_out(srv, "/infinite_loop.php")
    for _ in range(30):
        assert_still_serving(srv)
    with open(f"/proc/{srv.pid}/timers") as f:
        timers = sum(1 for line in f if line.startswith("ID:"))
    threads = len(os.listdir(f"/proc/{srv.pid}/task"))
    assert timers <= threads, f"{timers} POSIX timers for {threads} threads"


def test_max_execution_time_cuts_a_blocking_call_short(spindle):
    # The limit is wall-clock time, as PHP's own timer measures it on Linux: a script asleep in
    # a system call is woken and ended, not left to sleep on.
    srv = spindle("runtime", "--php-ini-set", "max_execution_time=1")
    srv.expect_errors(r"Maximum execution time")
    assert_times_out(srv, "/sleep_past_limit.php?s=20", timeout=25)
    srv.wait_for_log(r"Maximum execution time of 1 second exceeded in .*sleep_past_limit")
    assert_worker_restarted(srv, "sleep_past_limit.php")
    assert_still_serving(srv)


@pytest.mark.parametrize("limit", [0, 4])
def test_set_time_limit_extends_the_limit(spindle, limit):
    # set_time_limit(0) lifts the limit and set_time_limit(4) restarts it at 4 s: a request busy
    # for 1.6 s under max_execution_time=1 completes either way.
    srv = spindle("runtime", "--php-ini-set", "max_execution_time=1")
    r = srv.get(f"/set_time_limit.php?limit={limit}&busy=1.6", timeout=15)
    assert r.status == 200 and r.body == b"done\n", r
    assert_still_serving(srv)


def test_set_time_limit_shortens_the_limit(spindle):
    # Under max_execution_time=60, set_time_limit(1) brings the limit down to 1 s.
    srv = spindle("runtime", "--php-ini-set", "max_execution_time=60")
    srv.expect_errors(r"Maximum execution time")
    assert_times_out(srv, "/set_time_limit.php?limit=1&busy=30", timeout=35)
    srv.wait_for_log(r"Maximum execution time of 1 second exceeded in .*set_time_limit")
    assert_worker_restarted(srv, "set_time_limit.php")
    assert_still_serving(srv)


@pytest.mark.zend_allocator
def test_memory_limit_500(spindle):
    srv = spindle("runtime")
    srv.expect_errors(r"Allowed memory size")
    r = srv.get("/memory_hog.php", timeout=15)
    assert r.status == 500, r
    assert b"Allowed memory size" not in r.body
    srv.wait_for_log(r"Allowed memory size of \d+ bytes exhausted")
    assert_worker_restarted(srv, "memory_hog.php")
    assert_still_serving(srv)


def test_error_log_reaches_server_log(spindle):
    srv = spindle("runtime")
    marker = f"m{time.monotonic_ns()}"
    r = srv.get(f"/error_log_marker.php?id={marker}")
    assert r.status == 200 and r.body == b"logged\n", r
    record = srv.wait_for_log(rf"error_log_marker {marker}")
    assert record.logger == "php", record


def test_display_errors_off_by_default(spindle):
    srv = spindle("runtime")
    r = srv.get("/warning_hidden.php")
    assert r.status == 200, r
    assert r.body == b"before warning\nafter warning\n"
    record = srv.wait_for_log(r"Undefined variable \$spindle_fixture_undefined_variable")
    assert record.level in ("warning", "warn"), record
    assert record.logger == "php", record


def test_production_defaults_for_assertions_deprecations_and_trace_arguments(spindle):
    srv = spindle("runtime")
    data = srv.get("/production_defaults.php").json()
    assert data["zend.assertions"] == "-1", data
    assert data["assertion_ran"] is False, data
    assert data["error_reporting"] == data["production_error_reporting"], data
    assert data["trace_has_args"] is False, data


def test_mysql_localhost_uses_the_debian_socket(spindle):
    srv = spindle("runtime")
    data = srv.get("/mysql_sockets.php").json()
    assert data == {"mysqli": "/var/run/mysqld/mysqld.sock",
                    "pdo_mysql": "/var/run/mysqld/mysqld.sock"}, data


def test_xml_declaration_in_a_template_is_text(spindle):
    srv = spindle("runtime")
    r = srv.get("/xml_declaration.php")
    assert r.status == 200, r
    assert r.body == b'<?xml version="1.0" encoding="UTF-8"?>\n<feed>entry</feed>\n', r


def test_php_ini_overrides_production_defaults(spindle, tmp_path):
    ini = tmp_path / "development.ini"
    ini.write_text("zend.assertions = 1\nerror_reporting = E_ALL\nzend.exception_ignore_args = 0\n")
    srv = spindle("runtime", "--php-ini", str(ini))
    data = srv.get("/production_defaults.php").json()
    assert data["zend.assertions"] == "1", data
    assert data["assertion_ran"] is True, data
    assert data["error_reporting"] == 32767, data
    assert data["trace_has_args"] is True, data


# --- engine and configuration ---------------------------------------------------------------


def test_opcache_enabled(spindle):
    srv = spindle("runtime")
    data = srv.get("/opcache_status.php").json()
    assert data["opcache_enabled"] is True, data
    assert data["sapi"] == "spindle"


def test_php_ini_scan_dir_honoured(spindle, tmp_path):
    scan_dir = tmp_path / "conf.d"
    scan_dir.mkdir()
    ini = scan_dir / "99-spindle-test.ini"
    ini.write_text("date.timezone = Pacific/Chatham\nmemory_limit = 77M\n")
    srv = spindle("runtime", env={"PHP_INI_SCAN_DIR": str(scan_dir)})
    data = srv.get("/ini_values.php").json()
    assert data["date.timezone"] == "Pacific/Chatham", data
    assert data["memory_limit"] == "77M", data
    assert str(ini) in (data["scanned_files"] or ""), data


def test_php_ini_file_honoured(spindle, tmp_path):
    ini = tmp_path / "custom-php.ini"
    ini.write_text("memory_limit = 99M\nprecision = 11\ndate.timezone = Asia/Kathmandu\n")
    srv = spindle("runtime", "--php-ini", str(ini))
    data = srv.get("/ini_values.php").json()
    assert data["memory_limit"] == "99M", data
    assert data["precision"] == "11", data
    assert data["date.timezone"] == "Asia/Kathmandu", data
    assert data["loaded_file"] == str(ini), data
    # OPcache stays on with an operator's php.ini that does not mention it.
    assert srv.get("/opcache_status.php").json()["opcache_enabled"] is True


def test_php_ini_set_overrides(spindle, tmp_path):
    ini = tmp_path / "custom-php.ini"
    ini.write_text("memory_limit = 99M\n")
    srv = spindle("runtime", "--php-ini", str(ini), "--php-ini-set", "memory_limit=55M",
                  "--php-ini-set", "precision=9")
    data = srv.get("/ini_values.php").json()
    assert data["memory_limit"] == "55M", data
    assert data["precision"] == "9", data

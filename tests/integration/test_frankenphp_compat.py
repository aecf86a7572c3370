"""Behaviour that apps and worker scripts written for FrankenPHP rely on, ported from its own
test suite (frankenphp_test.go, worker_test.go, caddy/*_test.go and their testdata/ scripts)
and from the bugs those tests found here. Fixtures: tests/fixtures/compat/."""

import json
import os
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import FIXTURES
from test_admin import metrics, value, wait_until

APP = FIXTURES / "compat"


# --- a timeout inside a session save handler (FrankenPHP issue #2368) --------------------


@pytest.mark.classic_only
@pytest.mark.parametrize(
    "flags",
    [["--threads", "2"], ["--worker", f"{APP / 'session_deadlock.php'},2", "--threads", "3"]],
    ids=["classic", "worker"])
def test_timeout_inside_a_user_save_handler_releases_the_session_lock(spindle, tmp_path, flags):
    # Two threads serve the fixture. R1 holds the session's lock for 2 s; R2 waits for it past
    # its 1 s limit and runs out of time inside the user handler once R1 lets go; R3, queued
    # behind them, must get the lock then. Before the fix R2 kept it for the thread's life.
    srv = spindle(APP, *flags)
    srv.expect_errors(r"Maximum execution time of 1 second exceeded")
    target = "/session_deadlock.php?" + urllib.parse.urlencode({"dir": str(tmp_path)})

    def get(hold_ms):
        return srv.get(f"{target}&hold_ms={hold_ms}", timeout=15)

    with ThreadPoolExecutor(max_workers=3) as pool:
        holder = pool.submit(get, 2000)
        time.sleep(0.3)
        waiter = pool.submit(get, 0)
        time.sleep(0.1)
        third = pool.submit(get, 0)
        first, second, last = (f.result(timeout=20) for f in (holder, waiter, third))
    assert (first.status, first.text) == (200, "locked\ndone\n"), first
    assert second.status == 500, second
    assert (last.status, last.text) == (200, "locked\ndone\n"), last
    # Both threads are back: two more requests at once are both answered.
    with ThreadPoolExecutor(max_workers=2) as pool:
        again = [pool.submit(get, 100) for _ in range(2)]
        assert [f.result(timeout=10).status for f in again] == [200, 200]
    assert "recursive manner" not in srv.log(), srv.log_tail()


# --- $_ENV in a worker ----------------------------------------------------------------------


def test_worker_changes_to_env_survive_files_that_read_env(spindle):
    srv = spindle(APP, "--php-ini-set", "variables_order=EGPCS")
    for _ in range(3):
        r = srv.get("/overwrite_env.php")
        assert (r.status, r.text) == (200, "custom_value,custom_value"), r


# --- exit() inside a worker's handler --------------------------------------------------------


@pytest.mark.classic_only
def test_worker_output_after_exit_reaches_the_response_like_symfony_dd(spindle):
    srv = spindle(APP, "--worker", f"{APP / 'dd_worker.php'},1", "--threads", "2")
    for i in range(3):
        r = srv.get(f"/dd_worker.php?output=dump{i}")
        assert (r.status, r.text) == (500, f"dump{i}"), r
    # Shutdown functions run before the destructors, into the same response.
    r = srv.get("/dd_worker.php?output=dumped&shutdown=x")
    assert (r.status, r.text) == (500, "[shutdown:x]dumped"), r
    # exit(0) keeps the status the script had: 200, with what it printed.
    r = srv.get("/dd_worker.php?exit_only=1")
    assert (r.status, r.text) == (200, "before exit;"), r
    assert "never reached" not in srv.log()


# --- $_SERVER as FrankenPHP builds it --------------------------------------------------------


def test_server_variables_as_frankenphp_sets_them(spindle):
    srv = spindle(APP)
    s = srv.get("/server_vars.php", host="example.test:8443").json()
    # SERVER_PORT is the Host header's port, SERVER_NAME its name.
    assert (s["SERVER_NAME"], s["SERVER_PORT"]) == ("example.test", "8443"), s
    # Without a port in Host: the scheme's.
    assert srv.get("/server_vars.php", host="example.test").json()["SERVER_PORT"] == "80"
    # Defined and empty on plain HTTP; AUTH_TYPE and REMOTE_IDENT always empty.
    for name in ("HTTPS", "SSL_PROTOCOL", "SSL_CIPHER", "AUTH_TYPE", "REMOTE_IDENT"):
        assert s[name] == "", (name, s)
    # Basic credentials give REMOTE_USER; AUTH_TYPE stays empty.
    basic = srv.get("/server_vars.php", headers={"Authorization": "Basic dXNlcjpwdw=="}).json()
    assert (basic["REMOTE_USER"], basic["AUTH_TYPE"]) == ("user", ""), basic
    # A worker's requests do not carry FRANKENPHP_WORKER (only its boot does).
    assert s["FRANKENPHP_WORKER"] is None, s


@pytest.mark.classic_only
def test_worker_env_and_frankenphp_worker_are_in_the_boot_server_array_only(spindle_run,
                                                                            tmp_path):
    # FrankenPHP's TestWorkerEnv, TestWorkerGetOpt and TestEnv: the worker's env FOO=bar is in
    # the $_SERVER it boots with, getenv() and $_ENV; its requests' $_SERVER has the site's.
    (tmp_path / "worker_env.php").write_text((APP / "worker_env.php").read_text())
    srv = spindle_run(f"""{{
	frankenphp {{
		num_threads 3
		php_ini variables_order EGPCS
	}}
}}
:0 {{
	bind 127.0.0.1
	root * {tmp_path}
	php_server {{
		env FOO baz
		worker {{
			file worker_env.php
			num 1
			env FOO bar
		}}
	}}
}}
""", warmup=None)
    for i in range(3):
        r = srv.get("/worker_env.php", headers={"Request": str(i)})
        assert r.status == 200, r
        # getenv() sees the request's variables first, as under php-fpm (environment.md);
        # without them (local_only), the worker's environment.
        assert r.json() == {"request_foo": "baz", "boot_foo": "bar", "getenv_foo": "baz",
                            "getenv_local_foo": "bar", "env_foo": "bar",
                            "request_worker": None, "boot_worker": "1",
                            "header": str(i)}, r.json()
    # getopt() after each request did not end the script: one boot served them all.
    assert "restarting" not in srv.log(), srv.log_tail()


# --- connection_status() ---------------------------------------------------------------------


@pytest.mark.parametrize("finish", ["0", "1"])
def test_connection_status_is_aborted_once_the_client_has_gone(spindle, finish):
    # FrankenPHP's TestConnectionAbort: the client leaves while the script runs; echo + flush
    # then sees it, with or without frankenphp_finish_request() first.
    srv = spindle(APP)
    for i in range(2):
        conn = srv.connect(timeout=5)
        conn.send_request("GET", f"/connection_status.php?i={finish}{i}&finish={finish}"
                                 f"&wait_ms=400")
        conn.close()
        srv.wait_for_log(rf"connection_status_marker request {finish}{i}: 1", timeout=5)


def test_connection_status_stays_normal_after_finish_request_for_a_client_still_there(spindle):
    # FrankenPHP's TestFinishRequestRealHTTPServerDoesNotAbort.
    srv = spindle(APP)
    with srv.connect() as conn:
        r = conn.request("GET", "/connection_status.php?i=kept&finish=1")
        assert (r.status, r.body) == (200, b""), r
        srv.wait_for_log(r"connection_status_marker request kept: 0", timeout=5)
        # The connection goes on.
        assert conn.request("GET", "/server_vars.php").status == 200


# --- max_wait_time ---------------------------------------------------------------------------


@pytest.mark.classic_only
@pytest.mark.parametrize("flags", [["--threads", "1"],
                                   ["--worker", f"{APP / 'sleep.php'},1", "--threads", "2"]],
                         ids=["classic", "worker"])
def test_max_wait_time_takes_any_positive_duration(spindle, flags):
    # FrankenPHP's TestMaxWaitTime: 1ns is accepted; with one thread busy, a queued request
    # gets 503.
    srv = spindle(APP, "--max-wait-time", "1ns", *flags, warmup="/sleep.php")
    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = list(pool.map(lambda _: srv.get("/sleep.php?ms=50", timeout=10).status,
                                 range(10)))
    assert 503 in statuses and 200 in statuses, statuses


# --- 404 of a request nothing serves ---------------------------------------------------------


@pytest.mark.classic_only
def test_a_request_no_route_serves_gets_an_empty_404(spindle, tmp_path):
    (tmp_path / "page.txt").write_text("page")
    srv = spindle(tmp_path, warmup="/page.txt")
    r = srv.get("/missing.txt")
    assert (r.status, r.body, r.header("Content-Length")) == (404, b"", "0"), r


# --- metrics with FrankenPHP's meanings ------------------------------------------------------


@pytest.mark.classic_only
def test_worker_metrics_mean_what_frankenphp_means(spindle):
    srv = spindle(APP, "--worker", f"{APP / 'ending_worker.php'},1", "--threads", "3",
                  "--admin", "127.0.0.1:0", warmup="/ending_worker.php")
    name = str(APP / "ending_worker.php")  # unnamed: labelled by its absolute path
    m = metrics(srv)
    # The idle worker thread counts as busy in frankenphp_busy_threads, not in Spindle's view.
    assert value(m, "frankenphp_busy_threads") == 1
    assert value(m, "spindle_busy_threads") == 0
    assert value(m, "frankenphp_total_workers", worker=name) == 1
    # Types and help texts as FrankenPHP's registry has them (metrics.go).
    assert m["frankenphp_total_threads"]["type"] == "gauge"
    for family in ("frankenphp_worker_request_count", "frankenphp_worker_request_time",
                   "frankenphp_worker_queue_depth"):
        assert m[family]["help"] == "", m[family]
    # A script ending by itself with status 0 is a restart; with status 1, a crash.
    assert srv.get("/ending_worker.php?end=0").text == "ending"
    wait_until(lambda: value(metrics(srv), "frankenphp_worker_restarts", worker=name) == 1,
               message="the ended script counted as a restart")
    assert value(metrics(srv), "frankenphp_worker_crashes", worker=name) == 0
    assert srv.get("/ending_worker.php?end=1").text == "ending"
    wait_until(lambda: value(metrics(srv), "frankenphp_worker_crashes", worker=name) == 1,
               message="exit(1) counted as a crash")
    assert value(metrics(srv), "frankenphp_worker_restarts", worker=name) == 1
    assert srv.get("/ending_worker.php").text == "count:1"


@pytest.mark.classic_only
def test_worker_requests_are_counted_before_their_response_is_written(spindle):
    srv = spindle(APP, "--worker", f"{APP / 'ending_worker.php'},1", "--threads", "2",
                  "--admin", "127.0.0.1:0", warmup="/ending_worker.php")
    name = str(APP / "ending_worker.php")
    before = value(metrics(srv), "frankenphp_worker_request_count", worker=name)
    for i in range(1, 11):
        assert srv.get("/ending_worker.php").status == 200
        # No wait: a scrape right after a response counts it.
        assert value(metrics(srv), "frankenphp_worker_request_count", worker=name) == before + i


# --- Caddyfile options FrankenPHP's tests use -------------------------------------------------

MATCH_WORKER = """<?php
$count = 0;
while (frankenphp_handle_request(function () use (&$count) {
    $count++;
    header('Content-Type: application/json');
    echo json_encode(['count' => $count, 'script_name' => $_SERVER['SCRIPT_NAME'],
                      'php_self' => $_SERVER['PHP_SELF'],
                      'document_uri' => $_SERVER['DOCUMENT_URI']]);
})) {
}
"""


@pytest.mark.classic_only
def test_order_php_server_before_respond(spindle_run, tmp_path):
    # FrankenPHP's TestPHPServerDirectiveDisableFileServer: PHP answers first, so the catch-all
    # respond never does while the front controller takes every path.
    (tmp_path / "index.php").write_text("<?php echo 'front';")
    (tmp_path / "hello.txt").write_text("Hello\n")
    srv = spindle_run(f"""{{
	order php_server before respond
}}
:0 {{
	bind 127.0.0.1
	root * {tmp_path}
	php_server {{
		file_server off
	}}
	respond "Not found" 404
}}
""")
    for target in ("/", "/not-found.txt", "/hello.txt"):
        r = srv.get(target)
        assert (r.status, r.text) == (200, "front"), (target, r)


@pytest.mark.classic_only
def test_index_off_lets_unserved_requests_fall_through_to_respond(spindle_run, tmp_path):
    # FrankenPHP's TestWorkerMatchDirectiveWithoutFileServer, its Caddyfile as written: the
    # worker (outside the root) takes its match, the rest falls through to respond.
    files = tmp_path / "files"
    files.mkdir()
    (files / "static.txt").write_text("static")
    (files / "index.php").write_text("<?php echo 'index';")
    (files / "hello.php").write_text("<?php echo 'hello';")
    (tmp_path / "match_worker.php").write_text(MATCH_WORKER)
    srv = spindle_run(f"""{{
	frankenphp {{
		num_threads 2
	}}
}}
:0 {{
	bind 127.0.0.1
	route {{
		php_server {{
			index off
			file_server off
			root {files}
			worker {{
				file ../match_worker.php
				num 1
				match /some-path
			}}
		}}
		respond "Request falls through" 404
	}}
}}
""", warmup=None)
    r = srv.get("/some-path")
    assert r.status == 200, r
    # match * or a path, outside the root: no URL path of its own, as in FrankenPHP.
    assert r.json() == {"count": 1, "script_name": "", "php_self": "", "document_uri": ""}, r
    for target in ("/static.txt", "/", "/missing"):
        r = srv.get(target)
        assert (r.status, r.text) == (404, "Request falls through"), (target, r)
    # A script named by the request still runs.
    assert srv.get("/hello.php").text == "hello"


@pytest.mark.classic_only
def test_access_log_to_a_file_rolls_over(spindle_run, tmp_path):
    (tmp_path / "www").mkdir()
    (tmp_path / "www/index.php").write_text("<?php echo 'hi';")
    logs = tmp_path / "logs"
    logs.mkdir()
    srv = spindle_run(f"""
:0 {{
	bind 127.0.0.1
	root * {tmp_path}/www
	php_server
	log {{
		output file {logs}/access.log {{
			roll_size 1KiB
			roll_keep 2
		}}
		format json
	}}
}}
""")
    for i in range(40):
        assert srv.get(f"/?request={i}").status == 200
    # The last line is written once its response is; between a roll's rename and the new
    # file's creation there is no access.log for a moment.
    def logged_last():
        try:
            return "request=39 " in (logs / "access.log").read_text()
        except FileNotFoundError:
            return False

    wait_until(logged_last, message="the 40th request logged")
    names = sorted(p.name for p in logs.iterdir())
    assert names == ["access.1.log", "access.2.log", "access.log"], names
    for name in names:
        text = (logs / name).read_text()
        assert 0 < len(text) <= 1024, (name, len(text))
        for line in text.splitlines():
            assert json.loads(line)["logger"].startswith("access:"), line
    # The server's own log has none of them.
    assert "request=39" not in srv.log()


@pytest.mark.classic_only
def test_access_log_to_stdout(spindle_run, tmp_path):
    (tmp_path / "index.php").write_text("<?php echo 'hi';")
    srv = spindle_run(f"""
:0 {{
	bind 127.0.0.1
	root * {tmp_path}
	php_server
	log {{
		output stdout
	}}
}}
""")
    assert srv.get("/?to=stdout").status == 200
    deadline = time.monotonic() + 5
    while "/?to=stdout" not in srv.stdout() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert '"GET /?to=stdout HTTP/1.1" 200' in srv.stdout(), srv.stdout()
    assert "/?to=stdout" not in srv.log()


@pytest.mark.classic_only
@pytest.mark.parametrize("resolve", ["true", "false"])
def test_resolve_root_symlink(spindle_run, tmp_path, resolve):
    # FrankenPHP's TestSymlinkResolveRoot.
    real = tmp_path / "test"
    real.mkdir()
    (real / "document_root.php").write_text(
        "<?php echo 'DOCUMENT_ROOT=', $_SERVER['DOCUMENT_ROOT'], ' SCRIPT_FILENAME=',"
        " $_SERVER['SCRIPT_FILENAME'];")
    public = tmp_path / "public"
    public.symlink_to(real)
    srv = spindle_run(f"""
:0 {{
	bind 127.0.0.1
	php_server {{
		root {public}
		resolve_root_symlink {resolve}
	}}
}}
""", warmup=None)
    root = os.path.realpath(real) if resolve == "true" else str(public)
    r = srv.get("/document_root.php")
    assert r.text == f"DOCUMENT_ROOT={root} SCRIPT_FILENAME={root}/document_root.php", r


@pytest.mark.classic_only
def test_global_max_requests_recycles_classic_and_worker_threads(spindle_run, tmp_path):
    # FrankenPHP's TestModuleMaxRequests and TestWorkerMaxRequests (its PR #2292).
    (tmp_path / "index.php").write_text("<?php echo 'I am by birth a Genevese';")
    (tmp_path / "match_worker.php").write_text(MATCH_WORKER)
    srv = spindle_run(f"""{{
	frankenphp {{
		num_threads 3
		max_requests 5
		worker {{
			file {tmp_path}/match_worker.php
			num 1
			match /worker/*
		}}
	}}
}}
:0 {{
	bind 127.0.0.1
	root * {tmp_path}
	php_server
}}
""", warmup=None)
    for _ in range(30):
        r = srv.get("/index.php")
        assert (r.status, r.text) == (200, "I am by birth a Genevese"), r
    classic = [rec for rec in srv.records() if "classic thread served max_requests (5)" in rec.text]
    assert len(classic) >= 2, srv.log_tail()
    counts = [srv.get("/worker/x").json()["count"] for _ in range(12)]
    assert counts == [1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2], counts


@pytest.mark.classic_only
def test_the_same_worker_file_serves_two_sites_one_worker_each(spindle_run, tmp_path):
    # FrankenPHP's TestNamedModuleWorkers and TestModuleWorkerInheritsEnv, unnamed: each
    # site boots its own worker with its own env.
    (tmp_path / "worker_with_env.php").write_text(
        "<?php\n$env = $_SERVER['APP_ENV'] ?? '';\n"
        "while (frankenphp_handle_request(function () use ($env) {\n"
        "    echo \"Worker has APP_ENV=$env\";\n})) {\n}\n")
    srv = spindle_run(f"""{{
	admin 127.0.0.1:0
	frankenphp {{
		num_threads 4
	}}
}}
http://one.test:0 {{
	bind 127.0.0.1
	root * {tmp_path}
	php_server {{
		env APP_ENV inherit_this
		worker worker_with_env.php 2
	}}
}}
http://two.test:0 {{
	bind 127.0.0.1
	root * {tmp_path}
	php_server {{
		worker {{
			file worker_with_env.php
			num 1
			env APP_ENV two
		}}
	}}
}}
""", warmup=None)
    for _ in range(3):
        with srv.connect(host_header="one.test") as conn:
            assert conn.request("GET", "/worker_with_env.php").text == (
                "Worker has APP_ENV=inherit_this")
        with srv.connect(host_header="two.test") as conn:
            assert conn.request("GET", "/worker_with_env.php").text == "Worker has APP_ENV=two"
    # One worker per site, named as FrankenPHP names them.
    file = os.path.realpath(tmp_path / "worker_with_env.php")
    m = metrics(srv)
    assert value(m, "frankenphp_total_workers", worker=file) == 2
    assert value(m, "frankenphp_total_workers", worker=f"two.test:{file}") == 1


def test_a_session_left_open_by_exit_is_written_and_does_not_leak(spindle, tmp_path):
    # FrankenPHP's TestSessionNoLeakAfterExit_worker, in both modes.
    srv = spindle(APP)
    base = "/session_exit.php?" + urllib.parse.urlencode({"dir": str(tmp_path)})
    r = srv.get(f"{base}&action=set_and_exit&value=exit_secret")
    assert (r.status, r.text) == (200, "BEFORE_EXIT"), r
    cookie = r.header("Set-Cookie").split(";")[0]
    for _ in range(2):
        r = srv.get(f"{base}&action=check_empty")
        assert r.text == "SESSION_EMPTY=true", r
        assert srv.get(f"{base}&action=get").text == "secret=NOT_FOUND"
    # Its own cookie finds it: the session was written as the script ended.
    r = srv.get(f"{base}&action=get", headers={"Cookie": cookie})
    assert r.text == "secret=exit_secret", r

"""The admin endpoint (docs/operations.md): its own listener beside the sites', answering
/healthz, /readyz, /metrics (Prometheus text), /threads (JSON), POST /workers/restart and the
status page at /, which a headless Chromium loads and watches update.

The harness turns the admin endpoint off for every server (--admin off) unless a test asks for
one; these tests ask for 127.0.0.1:0 and read the port from the log."""

import os
import re
import shutil
import signal
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import FIXTURES, executor_fixtures
from spindle_http import Conn

HTTP = FIXTURES / "http"
WORKER = FIXTURES / "worker"
ADMIN = ("--admin", "127.0.0.1:0")

# --- a small Prometheus text-format (0.0.4) parser -------------------------------------------

METRIC_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
SAMPLE = re.compile(rf"^({METRIC_NAME})(?:\{{(.*)\}})? (\S+)$")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


def parse_labels(text):
    labels = {}
    pos = 0
    while pos < len(text):
        match = LABEL.match(text, pos)
        assert match, f"bad label syntax at {text[pos:]!r}"
        value = re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)),
                       match.group(2))
        assert match.group(1) not in labels, f"label {match.group(1)} twice in {text!r}"
        labels[match.group(1)] = value
        pos = match.end()
    return labels


def parse_prometheus(text):
    """{family: {"type", "help", "samples": {(name, frozenset(labels)): value}}}. Asserts what
    the format requires: HELP and TYPE once per family and before its samples, samples named
    after their family (histograms: _bucket with le, _sum, _count), numeric values, cumulative
    buckets ending in +Inf equal to _count."""
    assert text.endswith("\n"), "the text must end with a line feed"
    families = {}
    current = None
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name, _, help_text = line[7:].partition(" ")
            assert re.fullmatch(METRIC_NAME, name), line
            assert name not in families, f"family {name} twice"
            current = families[name] = {"help": help_text, "type": None, "samples": {}}
            current["name"] = name
        elif line.startswith("# TYPE "):
            name, _, kind = line[7:].partition(" ")
            assert current is not None and current["name"] == name, f"TYPE without HELP: {line}"
            assert kind in TYPES and current["type"] is None, line
            current["type"] = kind
        else:
            assert not line.startswith("#") and line, f"unexpected line {line!r}"
            match = SAMPLE.match(line)
            assert match, f"bad sample line {line!r}"
            name, labels, value = match.group(1), parse_labels(match.group(2) or ""), match.group(3)
            assert current is not None and current["type"], f"sample before TYPE: {line}"
            family = current["name"]
            if current["type"] == "histogram":
                assert name in (family + "_bucket", family + "_sum", family + "_count"), line
                assert (name == family + "_bucket") == ("le" in labels), line
            else:
                assert name == family, f"sample {name} in family {family}"
            number = float(value)  # "+Inf", "NaN" and exponents parse too
            key = (name, frozenset(labels.items()))
            assert key not in current["samples"], f"sample twice: {line}"
            current["samples"][key] = number
    for name, family in families.items():
        if family["type"] != "histogram":
            continue
        series = {}
        for (sample, labels), value in family["samples"].items():
            rest = frozenset((k, v) for k, v in labels if k != "le")
            le = dict(labels).get("le")
            series.setdefault(rest, {"buckets": []})
            if le is not None:
                series[rest]["buckets"].append((float(le), value))
            else:
                series[rest][sample[len(name) + 1:]] = value
        for labels, parts in series.items():
            buckets = sorted(parts["buckets"])
            assert buckets and buckets[-1][0] == float("inf"), f"{name}{dict(labels)}: no +Inf"
            counts = [count for _, count in buckets]
            assert counts == sorted(counts), f"{name}{dict(labels)}: buckets not cumulative"
            assert buckets[-1][1] == parts["count"], f"{name}{dict(labels)}: +Inf != _count"
            assert "sum" in parts, f"{name}{dict(labels)}: no _sum"
    return families


def value(families, name, **labels):
    """One sample's value; `name` may be a histogram's _count or _sum."""
    for family in families.values():
        for (sample, sample_labels), number in family["samples"].items():
            if sample == name and dict(sample_labels) == labels:
                return number
    raise AssertionError(f"no sample {name}{labels}")


def metrics(srv):
    r = srv.admin("GET", "/metrics")
    assert r.status == 200, r
    assert r.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8", r
    return parse_prometheus(r.text)


def threads(srv):
    r = srv.admin("GET", "/threads")
    assert r.status == 200 and r.header("Content-Type") == "application/json", r
    return r.json()


def wait_for_metrics(srv, ready, message):
    """The metrics once `ready(families)` holds: a figure may settle just after the response
    that moves it reached the client."""

    def check():
        families = metrics(srv)
        return families if ready(families) else None

    return wait_until(check, message=message)


def wait_until(condition, timeout=10.0, message="condition"):
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"{message} not met within {timeout}s")
        time.sleep(0.05)


def listening_sockets(pid):
    """How many TCP sockets process `pid` has in the LISTEN state."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:
                    count += 1
    return count


# --- the endpoint itself ---------------------------------------------------------------------


@pytest.mark.classic_only
def test_health_methods_and_unknown_paths(spindle):
    srv = spindle(HTTP, *ADMIN)
    assert srv.admin_port is not None and srv.admin_port != srv.port
    r = srv.admin("GET", "/healthz")
    assert (r.status, r.body) == (200, b"ok\n"), r
    assert r.header("Cache-Control") == "no-store"
    r = srv.admin("GET", "/readyz")
    assert (r.status, r.body) == (200, b"ready\n"), r
    head = srv.admin("HEAD", "/healthz")
    assert head.status == 200 and head.body == b"" and head.header("Content-Length") == "3", head
    assert srv.admin("GET", "/metrics?name[]=x").status == 200  # a query is ignored
    for path in ("/nope", "/metrics/", "/workers", "/index.php", "/Healthz"):
        assert srv.admin("GET", path).status == 404, path
    for method, path in (("POST", "/metrics"), ("DELETE", "/threads"), ("PUT", "/"),
                         ("GET", "/workers/restart")):
        r = srv.admin(method, path, body=b"" if method != "GET" else None)
        assert r.status == 405, (method, path, r)
        assert r.header("Allow") == ("POST" if path == "/workers/restart" else "GET, HEAD"), r
    # The sites do not answer admin paths, and the admin endpoint serves no site.
    assert srv.get("/healthz").body == b"hello from index\n"
    assert srv.admin("GET", "/static.txt").status == 404
    # Keep-alive: several requests on one connection.
    with Conn(srv.admin_port) as conn:
        for _ in range(3):
            assert conn.request("GET", "/healthz").status == 200


@pytest.mark.classic_only
def test_admin_off_listens_nowhere(spindle):
    srv = spindle(HTTP, "--admin", "off")
    assert srv.admin_port is None
    assert "admin endpoint" not in srv.log()
    assert listening_sockets(srv.pid) == 1  # the site's listener alone
    with_admin = spindle(HTTP, *ADMIN)
    assert listening_sockets(with_admin.pid) == 2


@pytest.mark.classic_only
def test_admin_port_in_use_stops_the_start(spindle_binary, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run(
            [spindle_binary, "php-server", "--root", str(HTTP), "--listen", "127.0.0.1:0",
             "--threads", "1", "--admin", f"127.0.0.1:{port}"],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=20)
        assert result.returncode == 2, result
        assert f"cannot listen for the admin endpoint on 127.0.0.1:{port}" in result.stderr
        assert "listening on" not in result.stderr

        (tmp_path / "www").mkdir()
        (tmp_path / "www/index.php").write_text("<?php echo 1;")
        caddyfile = tmp_path / "Caddyfile"
        caddyfile.write_text(f"# taken\n{{\n\tadmin 127.0.0.1:{port}\n}}\n"
                             ":0 {\n\tbind 127.0.0.1\n\troot * www\n\tphp_server\n}\n")
        result = subprocess.run([spindle_binary, "run", "--config", str(caddyfile)],
                                stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                timeout=20, cwd=tmp_path)
    assert result.returncode == 2, result
    assert f"{caddyfile}:3: cannot listen for the admin endpoint on 127.0.0.1:{port}" in (
        result.stderr), result.stderr
    assert "listening on" not in result.stderr


# --- metrics ---------------------------------------------------------------------------------


@pytest.mark.classic_only
def test_metrics_and_threads_say_which_spindle_and_php_serve(spindle):
    srv = spindle(HTTP, *ADMIN)
    # `spindle version` prints "Spindle X (PHP Y, ...)"; the same two figures in both views.
    printed = subprocess.run([srv.binary, "version"], capture_output=True, text=True, timeout=30,
                             check=True).stdout
    version, php_version = re.match(r"Spindle (\S+) \(PHP ([0-9.]+)", printed).groups()
    families = metrics(srv)
    assert families["spindle_build_info"]["type"] == "gauge"
    assert value(families, "spindle_build_info", version=version, php_version=php_version) == 1
    document = threads(srv)
    assert (document["version"], document["php_version"]) == (version, php_version)


def test_metrics_count_exactly_the_requests_sent(spindle, mode):
    srv = spindle(HTTP, *ADMIN)
    before = metrics(srv)
    for family in ("frankenphp_total_threads", "frankenphp_busy_threads", "frankenphp_queue_depth",
                   "frankenphp_total_workers", "frankenphp_ready_workers",
                   "frankenphp_busy_workers", "frankenphp_worker_crashes",
                   "frankenphp_worker_restarts", "frankenphp_worker_request_count",
                   "frankenphp_worker_request_time", "frankenphp_worker_queue_depth",
                   "spindle_worker_request_duration_seconds", "spindle_http_requests_total",
                   "spindle_http_request_duration_seconds", "spindle_connections",
                   "spindle_queue_rejections_total", "process_resident_memory_bytes",
                   "process_cpu_seconds_total", "process_open_fds"):
        assert family in before, f"{family} missing"
    assert before["frankenphp_total_threads"]["type"] == "gauge"  # as FrankenPHP has it
    assert before["frankenphp_busy_threads"]["type"] == "gauge"
    assert before["spindle_http_request_duration_seconds"]["type"] == "histogram"
    assert value(before, "process_resident_memory_bytes") > 1 << 20
    total = len(threads(srv)["threads"])
    assert value(before, "frankenphp_total_threads") == total

    with srv.connect() as conn:
        for _ in range(7):
            assert conn.request("GET", "/").status == 200
        for _ in range(3):
            assert conn.request("DELETE", "/static.txt").status == 405
        assert conn.request("GET", "/static.txt").status == 200
    # A response is counted once its last byte is written, which may be just after the client
    # read it, and its PHP thread is idle again just after that: wait for the 11th and for
    # the idle thread, then every figure must be exact.
    counted = value(before, "spindle_http_request_duration_seconds_count") + 11
    workers = len(executor_fixtures(HTTP)) if mode == "worker" else 0
    after = wait_for_metrics(
        srv, lambda m: value(m, "spindle_http_request_duration_seconds_count") >= counted
        and value(m, "spindle_busy_threads") == 0, "11 responses counted, every thread idle")

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("spindle_http_requests_total", code="2xx") == 8
    assert delta("spindle_http_requests_total", code="4xx") == 3
    assert delta("spindle_http_requests_total", code="5xx") == 0
    assert delta("spindle_http_request_duration_seconds_count") == 11
    assert delta("spindle_http_request_duration_seconds_sum") > 0
    assert value(after, "spindle_busy_threads") == 0
    # FrankenPHP counts every running worker thread busy, idle or not.
    assert value(after, "frankenphp_busy_threads") == workers
    assert value(after, "spindle_queue_rejections_total", reason="queue_full") == 0
    if mode == "worker":
        # index.php runs as a worker, labelled by its absolute path: its 7 requests, counted
        # once each.
        index = str(HTTP / "index.php")
        assert delta("frankenphp_worker_request_count", worker=index) == 7
        assert delta("spindle_worker_request_duration_seconds_count", worker=index) == 7
        assert delta("frankenphp_worker_request_time", worker=index) > 0
        assert value(after, "frankenphp_total_workers", worker=index) == 1
        assert value(after, "frankenphp_ready_workers", worker=index) == 1
    else:
        assert not any(sample == "frankenphp_total_workers"
                       for sample, _ in after["frankenphp_total_workers"]["samples"])


@pytest.mark.classic_only
def test_rejections_and_busy_threads_are_counted(spindle):
    srv = spindle(WORKER, "--worker", f"{WORKER / 'sleep.php'},1", "--max-wait-time", "300ms",
                  *ADMIN, warmup="/sleep.php?ms=1")
    with ThreadPoolExecutor(max_workers=1) as pool:
        slow = pool.submit(srv.get, "/sleep.php?ms=1500", timeout=15)
        wait_until(lambda: value(metrics(srv), "frankenphp_busy_workers", worker=str(WORKER / "sleep.php")),
                   message="the worker busy")
        m = metrics(srv)
        assert value(m, "frankenphp_busy_threads") == 1
        assert srv.get("/sleep.php?ms=1", timeout=10).status == 503
        assert slow.result(timeout=15).status == 200
    # The slot counts a request when it asks for the next one, just after the response.
    m = wait_for_metrics(
        srv, lambda m: value(m, "frankenphp_worker_request_count", worker=str(WORKER / "sleep.php")) >= 2,
        "the slow request counted")
    assert value(m, "spindle_queue_rejections_total", reason="timeout") == 1
    assert value(m, "frankenphp_busy_workers", worker=str(WORKER / "sleep.php")) == 0
    assert value(m, "frankenphp_worker_request_count", worker=str(WORKER / "sleep.php")) == 2
    # The slow request lands in the buckets above 1 s only.
    assert value(m, "spindle_worker_request_duration_seconds_bucket", worker=str(WORKER / "sleep.php"),
                 le="1") == 1
    assert value(m, "spindle_worker_request_duration_seconds_bucket", worker=str(WORKER / "sleep.php"),
                 le="2.5") == 2


# --- threads ---------------------------------------------------------------------------------


def test_threads_show_every_slot_and_the_request_it_runs(spindle, mode):
    srv = spindle(HTTP, *ADMIN, "--threads", "3") if mode == "classic" else spindle(HTTP, *ADMIN)
    document = threads(srv)
    expected = 3 if mode == "classic" else len(document["groups"]) - 1 + 4
    assert len(document["threads"]) == document["total"] == expected
    assert [t["index"] for t in document["threads"]] == list(range(expected))
    assert document["ready"] is True and document["draining"] is False
    for t in document["threads"]:
        assert t["state"] == "ready" and t["request"] is None, t
        assert t["boots"] == 1 and t["crashes"] == 0, t
        assert set(t) == {"index", "group", "generation", "worker", "state", "requests", "boots",
                          "crashes", "restarts", "request", "memory_bytes", "peak_memory_bytes",
                          "held_memory_bytes"}
        assert t["worker"] == (t["group"] != "classic")
    with ThreadPoolExecutor(max_workers=1) as pool:
        slow = pool.submit(srv.get, "/sleep.php?ms=1500&tag=x%20y", timeout=15)

        def running():
            for t in threads(srv)["threads"]:
                if t["request"] is not None:
                    return t
            return None

        busy = wait_until(running, message="a busy thread")
        assert busy["state"] == "busy", busy
        assert busy["request"]["method"] == "GET"
        assert busy["request"]["uri"] == "/sleep.php?ms=1500&tag=x%20y"
        assert busy["group"] == ("classic" if mode == "classic" else str(HTTP / "sleep.php"))
        requests_before = busy["requests"]
        time.sleep(0.3)
        later = threads(srv)["threads"][busy["index"]]
        assert later["request"]["running_ms"] > busy["request"]["running_ms"] >= 0
        # The request id (the crash report's `req N`) stays the request's while it runs.
        assert isinstance(busy["request"]["id"], int) and busy["request"]["id"] > 0
        assert later["request"]["id"] == busy["request"]["id"]
        assert slow.result(timeout=15).status == 200

    def finished():
        t = threads(srv)["threads"][busy["index"]]
        return t if t["request"] is None else None

    done = wait_until(finished, message="the request over")
    assert done["requests"] == requests_before + 1
    assert done["state"] == "ready"


@pytest.mark.zend_allocator
def test_threads_report_the_php_memory_of_each_slot(spindle, mode):
    # One classic thread: both classic requests land on it.
    srv = spindle(HTTP, *ADMIN, "--threads", "1") if mode == "classic" else spindle(HTTP, *ADMIN)
    mib = 1 << 20

    def slot_of(document):
        group = "classic" if mode == "classic" else str(HTTP / "hold_memory.php")
        return next(t for t in document["threads"] if t["group"] == group)

    for count in (1, 2):
        response = srv.get("/hold_memory.php?mib=8")
        assert response.status == 200
        # A worker keeps what the previous request stored; a classic run starts empty.
        assert response.body == (b"%d\n" % count if mode == "worker" else b"1\n")
    # A request is counted before its response is complete; its memory is recorded once it
    # has ended, before the slot is ready again.
    def settled(requests):
        t = slot_of(threads(srv))
        return t if t["requests"] >= requests and t["state"] == "ready" else None

    slot = wait_until(lambda: settled(2), message="both requests counted")
    # Each request allocated 8 MiB; the worker holds 16 MiB at the end, the classic run held 8
    # MiB until its shutdown, and both peaked above 8.
    held = 16 if mode == "worker" else 8
    assert held * mib <= slot["memory_bytes"] < (held + 8) * mib, slot
    assert slot["peak_memory_bytes"] >= max(slot["memory_bytes"], 8 * mib), slot
    # What the heap holds from the system after the request's clean-up: the worker's 16 MiB
    # and more; a classic thread's heap, back to at least its first 2 MiB chunk.
    assert slot["held_memory_bytes"] >= (slot["memory_bytes"] if mode == "worker" else 2 * mib)
    if mode == "worker":
        # The peak restarts with each request: a small one afterwards peaks near what stays.
        assert srv.get("/hold_memory.php?mib=0").status == 200
        small = wait_until(lambda: settled(3), message="the third request counted")
        assert small["peak_memory_bytes"] < small["memory_bytes"] + 2 * mib, small


# --- worker restarts -------------------------------------------------------------------------


@pytest.mark.classic_only
def test_post_workers_restart_reboots_every_worker_script(spindle):
    srv = spindle(WORKER, "--worker", f"{WORKER / 'counter.php'},2", "--threads", "3", *ADMIN,
                  warmup="/counter.php")
    first = srv.get("/counter.php").json()

    def worker_threads():
        return [t for t in threads(srv)["threads"] if t["worker"]]

    assert [t["boots"] for t in worker_threads()] == [1, 1]
    # Refused: another origin, a host name (DNS rebinding), GET.
    r = srv.admin("POST", "/workers/restart", headers={"Origin": "http://evil.example"}, body=b"")
    assert r.status == 403, r
    r = srv.admin("POST", "/workers/restart", headers={"Host": f"evil.example:{srv.admin_port}"},
                  body=b"")
    assert r.status == 403, r
    assert srv.admin("GET", "/workers/restart").status == 405
    assert [t["boots"] for t in worker_threads()] == [1, 1]

    old_slots = {t["index"] for t in worker_threads()}
    r = srv.admin("POST", "/workers/restart",
                  headers={"Origin": f"http://127.0.0.1:{srv.admin_port}"}, body=b"")
    assert r.status == 202, r
    assert r.json() == {"restarting": [str(WORKER / "counter.php")]}

    # A new generation on other slots takes over; the old threads end.
    def new_generation_serves():
        live = [t for t in worker_threads() if t["state"] in ("ready", "busy")]
        return len(live) == 2 and not {t["index"] for t in live} & old_slots and all(
            t["boots"] == 1 for t in live)

    wait_until(new_generation_serves, message="a new generation of both worker threads serves")
    srv.wait_for_log(r"POST /workers/restart: restarting every worker script")
    srv.wait_for_log(r"POST /workers/restart: configuration applied \(1 new worker generation")
    after = srv.get("/counter.php").json()
    assert after["count"] == 1 and after["boot_id"] != first["boot_id"], (first, after)
    m = metrics(srv)
    assert value(m, "frankenphp_total_workers", worker=str(WORKER / "counter.php")) == 2
    assert value(m, "frankenphp_worker_crashes", worker=str(WORKER / "counter.php")) == 0
    # The old generation's threads ended: every worker thread left is a new one.
    wait_until(lambda: {t["index"] for t in worker_threads()
                        if t["state"] not in ("done", "reserved")}.isdisjoint(old_slots),
               message="the old generation's threads ended")
    # A server without workers restarts nothing, and says so.
    plain = spindle(HTTP, *ADMIN)
    r = plain.admin("POST", "/workers/restart", body=b"")
    assert r.status == 202 and r.json() == {"restarting": []}, r


# --- readiness -------------------------------------------------------------------------------


@pytest.mark.classic_only
def test_readyz_is_503_while_a_worker_cannot_boot(spindle_run, tmp_path):
    shutil.copy(WORKER / "fail_on_flag.php", tmp_path / "fail_on_flag.php")
    (tmp_path / "index.php").write_text("<?php echo 'classic';")
    flag = tmp_path / "break"
    flag.touch()
    server = spindle_run(f"""{{
	admin 127.0.0.1:0
	frankenphp {{
		num_threads 3
		worker {{
			file fail_on_flag.php
			num 1
			max_consecutive_failures -1
		}}
	}}
}}
:0 {{
	bind 127.0.0.1
	root * {tmp_path}
	php_server
}}
""", env={"SPINDLE_BREAK_FLAG": str(flag)})
    server.expect_errors(r"fail_on_flag_marker")
    r = server.admin("GET", "/readyz")
    assert r.status == 503, r
    # Unnamed, the worker is named by its absolute path, as in FrankenPHP.
    flagged = os.path.realpath(tmp_path / "fail_on_flag.php")
    assert r.text == f"not ready: starting: worker {flagged} not booted yet\n", r
    assert server.admin("GET", "/healthz").status == 200
    document = threads(server)
    assert document["ready"] is False and "fail_on_flag.php" in document["reason"]
    m = metrics(server)
    assert value(m, "frankenphp_ready_workers", worker=flagged) == 0
    assert value(m, "frankenphp_worker_crashes", worker=flagged) >= 1

    flag.unlink()
    wait_until(lambda: server.admin("GET", "/readyz").status == 200, timeout=8,
               message="readyz 200 once the worker boots")
    assert value(metrics(server), "frankenphp_ready_workers", worker=flagged) == 1


@pytest.mark.classic_only
def test_readyz_is_503_while_draining(spindle):
    srv = spindle(HTTP, *ADMIN, "--threads", "2")
    with ThreadPoolExecutor(max_workers=1) as pool:
        slow = pool.submit(srv.get, "/sleep.php?ms=1500", timeout=15)
        wait_until(lambda: threads(srv)["busy"] == 1, message="the request running")
        srv.proc.send_signal(signal.SIGTERM)
        srv.terminated = True

        def not_ready():
            response = srv.admin("GET", "/readyz")
            return response if response.status == 503 else None

        r = wait_until(not_ready, message="readyz 503")
        assert r.text == "not ready: draining: the server is shutting down\n", r
        r = srv.admin("POST", "/workers/restart", body=b"")
        assert r.status == 503, r
        assert slow.result(timeout=15).status == 200
    srv.exit_code = srv.proc.wait(timeout=10)


# --- the status page -------------------------------------------------------------------------


@pytest.mark.classic_only
def test_status_page_is_self_contained(spindle):
    srv = spindle(HTTP, *ADMIN)
    r = srv.admin("GET", "/")
    assert r.status == 200 and r.header("Content-Type") == "text/html; charset=utf-8", r
    csp = r.header("Content-Security-Policy")
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp, csp
    page = r.text
    assert page.startswith("<!doctype html>")
    # No external asset: nothing is fetched from anywhere but the page's own origin.
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "external asset"
    assert 'fetch("threads"' in page


CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.mark.classic_only
def test_status_page_in_headless_chromium_updates_live(spindle):
    # scripts/install-deps.sh installs the browser: missing, the set-up is broken.
    assert CHROMIUM and CHROMEDRIVER, "needs Debian's chromium and chromium-driver"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    srv = spindle(HTTP, *ADMIN, "--threads", "3")
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-extensions", "--no-first-run", "--window-size=1200,800"):
        options.add_argument(argument)
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(30)
        driver.get(srv.admin_url("/"))
        wait = WebDriverWait(driver, 15, poll_frequency=0.1)

        def rows(_):
            found = driver.find_elements(By.CSS_SELECTOR, "#slots tr")
            return found if len(found) == 3 else False

        found = wait.until(rows)
        assert [row.get_attribute("id") for row in found] == ["slot-0", "slot-1", "slot-2"]
        assert {row.get_attribute("data-state") for row in found} == {"ready"}
        assert driver.find_element(By.ID, "ready").text == "yes"
        assert driver.find_element(By.ID, "total").text == "3"
        # Which Spindle and which PHP serve, as /metrics' spindle_build_info says.
        info = threads(srv)
        assert driver.find_element(By.ID, "php_version").text == info["php_version"]
        assert driver.find_element(By.ID, "version").text == info["version"]

        def served():
            return sum(int(cell.text or 0)
                       for cell in driver.find_elements(By.CSS_SELECTOR, "#slots td.requests"))

        before = served()
        updates = int(driver.find_element(By.ID, "updates").text)
        # Requests sent now show up on the page without reloading it.
        with srv.connect() as conn:
            for _ in range(5):
                assert conn.request("GET", "/").status == 200
        wait.until(lambda _: served() >= before + 5)
        assert int(driver.find_element(By.ID, "updates").text) > updates
        # A running request shows in its row while it runs.
        with ThreadPoolExecutor(max_workers=1) as pool:
            slow = pool.submit(srv.get, "/sleep.php?ms=2500", timeout=15)
            cell = wait.until(lambda _: next(
                (c for c in driver.find_elements(By.CSS_SELECTOR, "#slots td.request")
                 if "/sleep.php?ms=2500" in c.text), False))
            assert cell.text == "GET /sleep.php?ms=2500"
            assert slow.result(timeout=15).status == 200
        assert driver.find_element(By.ID, "error").text == ""
        assert not [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        driver.quit()

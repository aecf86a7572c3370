"""The slow log (slowlog_timeout, php-fpm's request_slowlog_timeout) and GET
/threads/N/backtrace: the PHP backtrace of a running request, taken on its own thread, for a
script asleep, one spinning on the CPU and one deep in a call chain, in both modes."""

import json
import re
import subprocess
import threading
import time

import pytest

from spindle_harness import FIXTURES

APP = "slowlog"
SLOW = "slow request: "


def frame_lines(name):
    """{marker: [line, ...]} of the `// frame: MARKER` comments of a fixture of the app."""
    lines = {}
    for number, text in enumerate((FIXTURES / APP / name).read_text().splitlines(), 1):
        found = re.search(r"// frame: (.+)$", text)
        if found:
            lines.setdefault(found.group(1).strip(), []).append(number)
    return lines


def fixture_file(name):
    return str(FIXTURES / APP / name)


def slow_records(server):
    return [record for record in server.records() if SLOW in record.text]


def fields_of(record):
    """The structured fields a console slow-log line ends with (one JSON object)."""
    text = record.text
    return json.loads(text[text.index(" {", text.index(SLOW)) + 1:])


def only_slow_fields(server, uri):
    """The fields of the one slow-log line about `uri`, after one more watch period, so a
    second line for the same request would have come."""
    server.wait_for_log(SLOW + "GET " + re.escape(uri))
    time.sleep(0.3)
    lines = [fields_of(r) for r in slow_records(server) if f"GET {uri} " in r.text]
    assert len(lines) == 1, server.log_tail()
    return lines[0]


def frame(function, name=None, line=None):
    """A backtrace frame as the log and the admin endpoint write it."""
    if name is None:
        return {"function": function}
    return {"function": function, "file": fixture_file(name), "line": line}


@pytest.mark.parametrize("fn, returned", [
    ("sleep", 0), ("usleep", None), ("time_nanosleep", True), ("time_sleep_until", True),
])
def test_sleeping_request_is_logged_once_and_sleeps_to_its_end(spindle, fn, returned):
    srv = spindle(APP, "--slowlog-timeout", "300ms")
    uri = f"/sleep.php?fn={fn}&ms=1500"
    res = srv.get(uri, timeout=10)
    assert res.status == 200, res
    # Woken for its backtrace, the sleep went on to its end and returned what PHP returns.
    body = res.json()
    assert body["result"] == returned
    # sleep() takes whole seconds: 1.
    assert body["slept_ms"] >= (1000 if fn == "sleep" else 1490), body

    fields = only_slow_fields(srv, uri)
    lines = frame_lines("sleep.php")
    assert fields["backtrace"][:3] == [
        frame(fn),
        frame("sleep_in", "sleep.php", lines[f"sleep_in {fn}"][0]),
        frame("{closure}", "sleep.php", lines["closure"][0]),
    ], fields
    assert fields["method"] == "GET"
    assert fields["uri"] == uri
    assert isinstance(fields["slot"], int) and isinstance(fields["request_id"], int)
    assert 0.3 <= fields["running_seconds"] < 1.5, fields


def test_busy_loop_is_logged_through_the_vm_interrupt(spindle):
    srv = spindle(APP, "--slowlog-timeout", "300ms")
    res = srv.get("/busy.php?ms=1500", timeout=10)
    assert res.status == 200 and res.text.startswith("spun "), res

    fields = only_slow_fields(srv, "/busy.php?ms=1500")
    lines = frame_lines("busy.php")
    top, caller = fields["backtrace"][:2]
    assert top["function"] == "spin" and top["file"] == fixture_file("busy.php"), fields
    assert top["line"] in lines["spin loop"], fields
    assert caller == frame("{closure}", "busy.php", lines["closure"][0])
    assert 0.3 <= fields["running_seconds"] < 1.5, fields


def test_nested_call_chain_names_every_frame_with_its_line(spindle):
    srv = spindle(APP, "--slowlog-timeout", "300ms")
    res = srv.get("/nested.php?ms=1500", timeout=10)
    assert res.status == 200 and res.text == "done\n", res

    fields = only_slow_fields(srv, "/nested.php?ms=1500")
    lines = frame_lines("nested.php")
    assert fields["backtrace"][:5] == [
        frame("usleep"),
        frame("Chain->inner", "nested.php", lines["Chain->inner"][0]),
        frame("middle", "nested.php", lines["middle"][0]),
        frame("outer", "nested.php", lines["outer"][0]),
        frame("{closure}", "nested.php", lines["closure"][0]),
    ], fields


def test_json_log_format_gives_the_fields_as_members(spindle):
    srv = spindle(APP, "--slowlog-timeout", "300ms", "--log-format", "json")
    assert srv.get("/sleep.php?fn=usleep&ms=1500", timeout=10).status == 200
    deadline = time.monotonic() + 5
    found = []
    while not found and time.monotonic() < deadline:
        found = [json.loads(line) for line in srv.log().splitlines()
                 if line.startswith("{") and SLOW in line]
        time.sleep(0.05)
    assert len(found) == 1, srv.log_tail()
    line = found[0]
    assert line["level"] == "warning" and line["logger"] == "sapi", line
    assert line["msg"].startswith(f"[slot {line['slot']} req {line['request_id']}] {SLOW}GET ")
    assert line["method"] == "GET" and line["uri"] == "/sleep.php?fn=usleep&ms=1500"
    assert line["host"] == "127.0.0.1"
    assert 0.3 <= line["running_seconds"] < 1.5, line
    assert line["backtrace"][0] == {"function": "usleep"}
    assert line["backtrace"][1]["function"] == "sleep_in"


def test_request_shorter_than_the_threshold_logs_nothing(spindle):
    srv = spindle(APP, "--slowlog-timeout", "1s")
    assert srv.get("/sleep.php?fn=usleep&ms=200", timeout=10).status == 200
    assert srv.get("/busy.php?ms=200", timeout=10).status == 200
    assert srv.get("/index.php").status == 200
    # Well past the threshold of the requests above, had they still been running.
    time.sleep(1.2)
    assert slow_records(srv) == [], srv.log_tail()
    # The same server does log a request that outlasts it.
    assert srv.get("/busy.php?ms=1500", timeout=10).status == 200
    only_slow_fields(srv, "/busy.php?ms=1500")


def test_slow_log_off_by_default(spindle):
    srv = spindle(APP)
    assert srv.get("/busy.php?ms=600", timeout=10).status == 200
    time.sleep(0.3)
    assert slow_records(srv) == [], srv.log_tail()


def running_thread(srv, prefix, timeout=5.0):
    """The index of the PHP thread whose running request's URI starts with `prefix`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for thread in srv.admin(target="/threads").json()["threads"]:
            request = thread.get("request")
            if request and request["uri"].startswith(prefix):
                return thread["index"]
        time.sleep(0.02)
    raise AssertionError(f"no thread runs {prefix} within {timeout}s")


def backtrace_in(srv, index, function, timeout=5.0):
    """The admin answer and report of thread `index`'s backtrace once its innermost frame is
    `function` (or the last one after `timeout`): the thread shows the request as running from
    its start, a moment before the script reaches that function (longer on a loaded machine)."""
    deadline = time.monotonic() + timeout
    while True:
        res = srv.admin(target=f"/threads/{index}/backtrace")
        assert res.status == 200, res
        report = res.json()
        top = report["backtrace"][0]["function"] if report["backtrace"] else None
        if top == function or time.monotonic() > deadline:
            return res, report
        time.sleep(0.02)


def test_admin_backtrace_of_a_running_request(spindle):
    srv = spindle(APP, "--admin", "127.0.0.1:0")
    answers = {}
    uri = "/sleep.php?fn=sleep&ms=2000"
    client = threading.Thread(target=lambda: answers.update(res=srv.get(uri, timeout=15)))
    client.start()
    try:
        index = running_thread(srv, "/sleep.php")
        res, report = backtrace_in(srv, index, "sleep")
        assert res.header("content-type") == "application/json", res
        lines = frame_lines("sleep.php")
        assert report["slot"] == index and report["uri"] == uri and report["method"] == "GET"
        assert report["backtrace"][:2] == [
            frame("sleep"),
            frame("sleep_in", "sleep.php", lines["sleep_in sleep"][0]),
        ], report
        assert 0 < report["running_seconds"] < 2, report
        # Asked again, the same sleeping script answers again.
        again = srv.admin(target=f"/threads/{index}/backtrace").json()
        assert again["request_id"] == report["request_id"]
        assert again["running_seconds"] >= report["running_seconds"]
    finally:
        client.join(timeout=15)
    # The sleep was not cut short by either look.
    body = answers["res"].json()
    assert body["result"] == 0 and body["slept_ms"] >= 1990, body

    idle = srv.admin(target=f"/threads/{index}/backtrace")
    assert idle.status == 409 and "not running a request" in idle.text, idle
    # No slow log was asked for: the admin endpoint writes none.
    assert slow_records(srv) == []


def test_admin_backtrace_of_a_busy_loop(spindle):
    srv = spindle(APP, "--admin", "127.0.0.1:0")
    client = threading.Thread(target=lambda: srv.get("/busy.php?ms=1500", timeout=15))
    client.start()
    try:
        index = running_thread(srv, "/busy.php")
        _, report = backtrace_in(srv, index, "spin")
        assert report["backtrace"][0]["function"] == "spin", report
        assert report["backtrace"][0]["line"] in frame_lines("busy.php")["spin loop"]
    finally:
        client.join(timeout=15)


@pytest.mark.classic_only
@pytest.mark.parametrize("target, status", [
    ("/threads/4096/backtrace", 404),
    ("/threads/x/backtrace", 404),
    ("/threads/01/backtrace", 404),
    ("/threads//backtrace", 404),
    ("/threads/0/backtrace", 409),
])
def test_admin_backtrace_refuses_what_it_cannot_answer(spindle, target, status):
    srv = spindle(APP, "--admin", "127.0.0.1:0")
    res = srv.admin(target=target)
    assert res.status == status, res
    assert srv.admin("POST", "/threads/0/backtrace").status == 405


@pytest.mark.classic_only
def test_caddyfile_slowlog_timeout_logs_a_slow_request(spindle_run):
    srv = spindle_run(
        "{\n\tfrankenphp {\n\t\tslowlog_timeout 300ms\n\t}\n}\n"
        f"http://127.0.0.1:0 {{\n\tbind 127.0.0.1\n\troot * {FIXTURES / APP}\n\tphp_server\n}}\n")
    assert srv.get("/nested.php?ms=1500", timeout=10).status == 200
    assert only_slow_fields(srv, "/nested.php?ms=1500")["backtrace"][1]["function"] == \
        "Chain->inner"


def run_cli(binary, *args, cwd):
    return subprocess.run([binary, *args], cwd=cwd, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("name, text, expected", [
    ("Caddyfile", "{\n\tfrankenphp {\n\t\tslowlog_timeout 5x\n\t}\n}\n:8080 {\n\tphp_server\n}\n",
     '{path}:3: slowlog_timeout: invalid duration "5x"'),
    ("spindle.json", json.dumps({"php": {"slowlog_timeout": "soon"}}),
     '{path}: /php/slowlog_timeout: invalid duration "soon"'),
    ("spindle.json", json.dumps({"php": {"slowlog_timeout": 5}}),
     '{path}: /php/slowlog_timeout: must be a duration string such as "30s"'),
])
def test_bad_duration_names_file_and_line(spindle_binary, tmp_path, name, text, expected):
    path = tmp_path / name
    path.write_text(text)
    result = run_cli(spindle_binary, "validate", "--config", str(path), cwd=tmp_path)
    assert result.returncode == 2, result
    assert result.stderr.startswith("spindle: " + expected.format(path=path)), result.stderr


def test_bad_flag_duration_is_refused(spindle_binary, tmp_path):
    result = run_cli(spindle_binary, "php-server", "--slowlog-timeout", "later", cwd=tmp_path)
    assert result.returncode == 2, result
    assert "--slowlog-timeout" in result.stderr and 'invalid duration "later"' in result.stderr


def test_call_blocked_in_c_code_is_not_interrupted_and_logged_once(spindle):
    srv = spindle(APP, "--slowlog-timeout", "300ms")
    uri = "/blocked.php?ms=1500"
    res = srv.get(uri, timeout=10)
    assert res.status == 200, res
    # No signal reached the thread: the select waited its whole time, with nothing ready.
    body = res.json()
    assert body["ready"] == 0 and body["waited_ms"] >= 1490, body
    fields = only_slow_fields(srv, uri)
    # Taken once PHP code ran again (or, if none did, as the request ended), not at 300 ms.
    assert fields["running_seconds"] >= 1.49, fields
    assert fields["method"] == "GET" and fields["uri"] == uri


@pytest.mark.classic_only
def test_admin_backtrace_of_a_thread_stuck_in_c_code_times_out(spindle):
    srv = spindle(APP, "--admin", "127.0.0.1:0")
    answers = {}
    uri = "/blocked.php?ms=6500"
    client = threading.Thread(target=lambda: answers.update(res=srv.get(uri, timeout=15)))
    client.start()
    try:
        index = running_thread(srv, "/blocked.php")
        started = time.monotonic()
        res = srv.admin(target=f"/threads/{index}/backtrace", timeout=15)
        assert res.status == 504 and "blocked in C code" in res.text, res
        assert 4.5 <= time.monotonic() - started < 6.4
    finally:
        client.join(timeout=15)
    # The late answer, once PHP code ran again, went nowhere; the wait was not cut short.
    body = answers["res"].json()
    assert body["ready"] == 0 and body["waited_ms"] >= 6490, body
    assert srv.admin(target="/healthz").status == 200

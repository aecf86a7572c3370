"""The crash report: a PHP extension that crashes the process (tests/fixtures/ext/spindle_probe,
built with phpize) makes the dying server log one block with the signal, the faulting thread,
its native stack and every PHP thread's running request, and the process still dies of that
signal (server/process/crash_report.cpp, docs/crash-runbook.md)."""

import json
import re
import resource
import signal
import threading
import time

import pytest

from spindle_http import Conn, ConnectionClosed
from test_extensions import php_prefix, probe_extension  # noqa: F401 (fixtures)

# What spindle_probe_crash($how) does to the process. "overflow" overflows the thread's stack:
# the report still comes, from the thread's alternate signal stack.
SIGNALS = {"segv": signal.SIGSEGV, "abort": signal.SIGABRT, "fpe": signal.SIGFPE,
           "overflow": signal.SIGSEGV}
# The URIs of the requests still running when the crash comes, one per client.
SLEEPERS = ["/sleep.php?ms=20000&who=first-sleeper", "/sleep.php?ms=20000&who=second-sleeper"]
# A console report's request line (docs/crash-runbook.md).
REQUEST_LINE = re.compile(
    r"^    slot (\d+) \((\w+)\) (\S+) (\S+) from (\S+), req (\d+), running (\d+) ms"
    r"(  <- crashed here)?$", re.MULTILINE)


@pytest.fixture
def no_core_files():
    """Servers started meanwhile write no core file (it would be the size of the process): the
    soft RLIMIT_CORE is 0 while the test runs; children inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
    yield
    resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))


def start(spindle, tmp_root, probe, *flags):
    """A server with the probe loaded and an admin endpoint; in worker mode sleep.php and
    crash.php are workers of two threads each."""
    srv = spindle(tmp_root("crash"), "--php-ini-set", f"extension={probe}", "--admin",
                  "127.0.0.1:0", *flags, worker_threads=2)
    srv.expect_errors(r"^fatal signal ")
    return srv


def running_uris(srv):
    """The URIs the admin endpoint's /threads shows running."""
    r = srv.admin("GET", "/threads")
    assert r.status == 200, r
    return {t["request"]["uri"] for t in r.json()["threads"] if t["request"]}


def crash_while_others_run(srv, how):
    """Starts the two sleepers, waits until both run, then crashes the server with
    /crash.php?how=HOW; returns the crash URI and the server's exit code."""
    def sleeper(uri):
        try:
            with Conn(srv.port, timeout=30) as conn:
                conn.request("GET", uri)
        except (OSError, ConnectionClosed):
            pass  # the process died under it, as expected

    clients = [threading.Thread(target=sleeper, args=(uri,), daemon=True) for uri in SLEEPERS]
    for client in clients:
        client.start()
    deadline = time.monotonic() + 10
    while not set(SLEEPERS) <= running_uris(srv):
        assert time.monotonic() < deadline, f"the sleepers never ran: {running_uris(srv)}"
        time.sleep(0.05)
    crash_uri = f"/crash.php?how={how}&who=the-crasher"
    try:
        with Conn(srv.port, timeout=10) as conn:
            response = conn.request("GET", crash_uri)
        raise AssertionError(f"the crashing request was answered: {response!r}")
    except (OSError, ConnectionClosed):
        pass
    code = srv.expect_death(SIGNALS[how])
    for client in clients:
        client.join(timeout=5)
    return crash_uri, code


@pytest.mark.parametrize("how", sorted(SIGNALS))
def test_crash_logs_the_signal_stack_and_running_requests(spindle, tmp_root, probe_extension,
                                                          no_core_files, how):
    srv = start(spindle, tmp_root, probe_extension)
    crash_uri, code = crash_while_others_run(srv, how)
    signum = SIGNALS[how]
    assert code == -signum, f"exit code {code}, not death by {signum.name}\n{srv.log_tail()}"

    reports = [r for r in srv.records() if r.logger == "crash"]
    assert len(reports) == 1, reports
    report = reports[0]
    assert report.level == "critical", report
    text = report.text
    assert text.startswith(f"fatal signal {signum.name} ("), text
    if how == "segv":
        assert "(SEGV_MAPERR) at address 0x0 " in text, text
    elif how == "overflow":
        # The guard page below the thread's stack.
        assert re.search(r"\(SEGV_(MAPERR|ACCERR)\) at address 0x[0-9a-f]{6,} ", text), text
    else:
        # abort() and raise() send the signal: the sender is the server itself.
        assert f"(SI_TKILL) sent by process {srv.pid} " in text, text
    thread = re.search(r" in thread spindle-php-(\d+) \(tid \d+\)", text)
    assert thread, text
    assert text.rstrip().endswith("end of crash report"), text

    stack = text.split("native stack of ", 1)[1].split("PHP requests running:", 1)[0]
    frames = [line for line in stack.splitlines()[1:] if line.strip()]
    assert frames and all(line.startswith("    ") for line in frames), stack
    if how == "overflow":
        # Thousands of calls of one recursive frame are one line and a count, so the frames
        # below them (the engine running the script) still show.
        assert re.search(r"^    \S*spindle_probe\.so\(.*\n    \.\.\. the frame above \d{3,} more times$",
                         stack, re.MULTILINE), stack
    else:
        assert re.search(r"spindle_probe\.so\(zif_spindle_probe_crash\+0x[0-9a-f]+\)", stack), stack
    assert "libphp.so(execute_ex+" in stack, stack
    if how == "segv":
        # The stack starts at the faulting instruction, not in the handler.
        assert "zif_spindle_probe_crash" in frames[0], frames

    requests = {m.group(4): m for m in REQUEST_LINE.finditer(text)}
    assert set(requests) == {crash_uri, *SLEEPERS}, text
    crashed = requests[crash_uri]
    assert crashed.group(8), f"the crashing request is not marked: {text}"
    assert crashed.group(1) == thread.group(1), "the crashing thread is not the request's slot"
    for uri in SLEEPERS:
        line = requests[uri]
        assert not line.group(8), line.group(0)
        assert line.group(2) == "busy" and line.group(3) == "GET", line.group(0)
        assert line.group(5) == "127.0.0.1", line.group(0)
    slots = {m.group(1) for m in requests.values()}
    ids = {m.group(6) for m in requests.values()}
    assert len(slots) == 3 and len(ids) == 3, text


def test_crash_report_is_one_json_line_with_log_format_json(spindle, tmp_root, probe_extension,
                                                            no_core_files):
    srv = start(spindle, tmp_root, probe_extension, "--log-format", "json")
    crash_uri, code = crash_while_others_run(srv, "segv")
    assert code == -signal.SIGSEGV

    lines = [json.loads(line) for line in srv.log().splitlines() if line.startswith("{")]
    reports = [line for line in lines if line["logger"] == "crash"]
    assert len(reports) == 1, srv.log_tail()
    report = reports[0]
    assert report["level"] == "critical"
    assert report["msg"].startswith("fatal signal SIGSEGV (SEGV_MAPERR) at address 0x0 in thread")
    assert report["signal"] == "SIGSEGV" and report["signal_number"] == signal.SIGSEGV
    assert report["code"] == "SEGV_MAPERR" and report["address"] == "0x0"
    assert report["pid"] == srv.pid
    assert re.fullmatch(r"spindle-php-\d+", report["thread"]), report["thread"]
    assert "zif_spindle_probe_crash" in report["stack"][0], report["stack"]
    # The same time format as the server's other JSON lines.
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}", report["time"])
    assert lines[0]["time"] <= report["time"], (lines[0], report["time"])

    requests = {r["uri"]: r for r in report["requests"]}
    assert set(requests) == {crash_uri, *SLEEPERS}, report["requests"]
    assert requests[crash_uri]["crashed"] is True
    assert report["thread"] == f"spindle-php-{requests[crash_uri]['slot']}"
    for uri in SLEEPERS:
        r = requests[uri]
        assert r["crashed"] is False and r["state"] == "busy" and r["method"] == "GET", r
        assert r["client"] == "127.0.0.1" and r["request_id"] > 0 and r["running_ms"] >= 0, r

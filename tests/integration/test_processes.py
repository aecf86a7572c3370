"""processes N: a supervisor binds the sockets and runs N server processes, each with its own
PHP threads (server/process/supervisor.cpp). A segfault in an extension (tests/fixtures/ext/
spindle_probe) kills one process: the others keep serving, the dead one is replaced within a
second, and the requests that fail are the ones it had accepted (its crash report lists those
still running). The admin endpoint
shows every process as one server, labelled by process."""

import json
import os
import re
import signal
import threading
import time
from datetime import datetime

import pytest

from spindle_http import Conn, ConnectionClosed
from test_crash_report import no_core_files  # noqa: F401 (fixture)
from test_extensions import php_prefix, probe_extension  # noqa: F401 (fixtures)

PROCESSES = 4
# Concurrent clients (wrk -c 32), and PHP threads per process for them: a process takes a
# quarter of them on average (at most 12 in our runs), so each request it accepts runs at once
# rather than waiting in its queue, and each one in flight on it is in its crash report. In
# worker mode the worker gets WORKER_THREADS, plus the usual classic pool: fewer threads to
# boot keep a replacement within a second on 2 shared cores.
CLIENTS = 32
THREADS = 24
WORKER_THREADS = 16
# What a dead process's log line looks like (server/process/supervisor.cpp).
DEATH = r"^process \d+ \(pid \d+\) killed by SIGSEGV"


def start(spindle, mode, probe, *flags):
    """PROCESSES server processes with the probe extension, JSON logs and an admin endpoint."""
    threads = [] if mode == "worker" else ["--threads", str(THREADS)]
    srv = spindle("processes", "--processes", str(PROCESSES), "--admin", "127.0.0.1:0",
                  "--log-format", "json", "--php-ini-set", f"extension={probe}", *threads,
                  *flags, worker_threads=WORKER_THREADS)
    wait_all_ready(srv)
    return srv


def wait_all_ready(srv, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if srv.admin("GET", "/readyz").status == 200:
            return
        time.sleep(0.05)
    raise AssertionError(f"not every process became ready\n{srv.log_tail()}")


def records(srv):
    """The server's JSON log lines."""
    return [json.loads(line) for line in srv.log().splitlines() if line.startswith("{")]


def log_time(record):
    return datetime.strptime(record["time"], "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()


def get(port, target, timeout=10):
    """One request on its own connection: (status, body), or None when the connection broke."""
    try:
        with Conn(port, timeout=timeout) as conn:
            response = conn.request("GET", target, headers={"Connection": "close"})
            return response.status, response.text
    except (OSError, ConnectionClosed):
        return None


class Load:
    """CLIENTS threads sending /pid.php?ms=MS one request per connection until stopped; every
    request is recorded as (uri, start, end, result)."""

    def __init__(self, port, ms):
        self.port = port
        self.ms = ms
        self.done = threading.Event()
        self.results = []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.client, args=(c,), daemon=True)
                        for c in range(CLIENTS)]

    def client(self, c):
        n = 0
        while not self.done.is_set():
            uri = f"/pid.php?ms={self.ms}&c={c}&n={n}"
            started = time.time()
            result = get(self.port, uri)
            with self.lock:
                self.results.append((uri, started, time.time(), result))
            n += 1

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        for t in self.threads:
            t.join(timeout=30)


def test_one_process_by_default_runs_no_supervisor(spindle, mode):
    srv = spindle("processes", "--admin", "127.0.0.1:0")
    status, body = get(srv.port, "/pid.php")
    assert status == 200 and int(body) == srv.pid, "PHP ran outside the server's own process"
    assert "processes" not in srv.admin("GET", "/threads").json()
    assert "supervisor" not in srv.log()


def test_requests_spread_over_every_process_and_admin_shows_one_server(spindle, mode,
                                                                        probe_extension):
    srv = start(spindle, mode, probe_extension)
    with Load(srv.port, 20) as load:
        time.sleep(1.5)
    answered = [r for r in load.results if r[3] is not None]
    assert answered and all(r[3][0] == 200 for r in answered), load.results[:5]
    assert len(answered) == len(load.results), "a request failed with no crash"
    pids = {int(r[3][1]) for r in answered}

    threads = srv.admin("GET", "/threads").json()
    processes = threads["processes"]
    assert [p["process"] for p in processes] == list(range(1, PROCESSES + 1)), processes
    assert all(p["ready"] and p["pid"] > 0 for p in processes), processes
    assert len({p["pid"] for p in processes}) == PROCESSES
    assert srv.pid not in {p["pid"] for p in processes}, "the supervisor runs no PHP"
    # The requests went to more than one process, and only to the supervisor's processes.
    assert len(pids) >= 2 and pids <= {p["pid"] for p in processes}, (pids, processes)
    by_process = {}
    for t in threads["threads"]:
        by_process.setdefault(t["process"], 0)
        by_process[t["process"]] += 1
    assert sorted(by_process) == list(range(1, PROCESSES + 1)), by_process
    assert threads["total"] == sum(by_process.values())
    assert threads["ready"] is True

    metrics = srv.admin("GET", "/metrics").text
    for name in ("spindle_http_requests_total", "process_resident_memory_bytes"):
        # One family, written once, with a sample of every process.
        assert metrics.count(f"# TYPE {name} ") == 1, metrics
        labelled = set(re.findall(rf'^{name}{{process="(\d+)"', metrics, re.MULTILINE))
        assert labelled == {str(i) for i in range(1, PROCESSES + 1)}, labelled
    assert f"spindle_processes {PROCESSES}" in metrics
    assert srv.admin("GET", "/healthz").status == 200
    # The status page is a process's own; its /threads (polled by the page) is the merged one.
    page = srv.admin("GET", "/")
    assert page.status == 200 and "<html" in page.text.lower()


@pytest.mark.wall_clock  # the replacement must be ready within 1 s: not under ASan
def test_a_crash_loses_only_the_requests_on_the_dead_process(spindle, mode, probe_extension,
                                                             no_core_files):  # noqa: F811
    srv = start(spindle, mode, probe_extension)
    srv.expect_errors(r"^fatal signal ", DEATH)
    before = {p["pid"] for p in srv.admin("GET", "/threads").json()["processes"]}
    with Load(srv.port, 100) as load:
        time.sleep(1.0)
        crash_sent = time.time()
        assert get(srv.port, "/crash.php") is None, "the crashing request was answered"
        time.sleep(2.0)
    wait_all_ready(srv, timeout=5)

    log = records(srv)
    reports = [r for r in log if r["logger"] == "crash"]
    assert len(reports) == 1, srv.log_tail()
    report = reports[0]
    dead = report["pid"]
    assert dead in before
    on_dead = {r["uri"] for r in report["requests"] if not r["crashed"]}
    assert any(r["crashed"] and r["uri"] == "/crash.php" for r in report["requests"]), report

    failed = {r[0]: r for r in load.results if r[3] is None}
    answered = [r for r in load.results if r[3] is not None]
    assert all(r[3][0] == 200 for r in answered), [r for r in answered if r[3][0] != 200][:5]
    deaths = [r for r in log if r["logger"] == "server" and re.match(DEATH, r["msg"])]
    assert len(deaths) == 1 and f"(pid {dead})" in deaths[0]["msg"], deaths
    died = log_time(deaths[0])
    # Every request the crash report lists failed with its process, unless its response was
    # already on the wire: the slot still names a request whose script just wrote its whole
    # answer (the PHP thread's direct write) when the report is taken, and that answer then
    # came from the dying process, before its death.
    written = {r[0] for r in answered if int(r[3][1]) == dead and r[2] <= died + 0.5}
    assert on_dead <= set(failed) | written, (on_dead - set(failed), srv.log_tail())
    on_dead -= written
    # Every other failure was on the dying process too: accepted during its last milliseconds,
    # while it wrote its report (started after the crash request was sent), or done with its
    # script (it slept its whole MS) with its response not yet written when the process died.
    # None was running on another process: every failure came at the death, none later.
    late = [r for uri, r in failed.items()
            if uri not in on_dead and r[1] >= crash_sent - 0.01]
    finishing = [r for uri, r in failed.items()
                 if uri not in on_dead and r[1] < crash_sent - 0.01 and r[2] - r[1] >= 0.1]
    assert len(on_dead) + len(late) + len(finishing) == len(failed), (failed, on_dead)
    assert all(crash_sent <= r[2] <= died + 0.5 for r in failed.values()), (failed, died)
    assert len(late) + len(finishing) <= CLIENTS, (late, finishing)
    # No answer came from the dead process after its crash; the others kept answering.
    after = [r for r in answered if r[1] > crash_sent]
    assert all(int(r[3][1]) != dead for r in after), "the dead process answered"
    assert len({int(r[3][1]) for r in after}) >= 2, after[:5]

    # The supervisor logged the death with the pid and the signal, and a new process took
    # the place within a second.
    place = re.match(r"^process (\d+) ", deaths[0]["msg"]).group(1)
    ready = [r for r in log if r["logger"] == "server"
             and re.match(rf"^process {place} \(pid \d+\) ready$", r["msg"])]
    assert ready, srv.log_tail()
    replaced_in = log_time(ready[0]) - log_time(deaths[0])
    assert 0 <= replaced_in < 1.0, f"replaced in {replaced_in:.3f} s"
    now = {p["pid"] for p in srv.admin("GET", "/threads").json()["processes"]}
    assert dead not in now and len(now) == PROCESSES and len(now & before) == PROCESSES - 1
    print(f"\n{mode}: {len(load.results)} requests, {len(failed)} failed "
          f"({len(on_dead)} listed in the crash report, {len(late)} accepted while it was "
          f"written, {len(finishing)} done with their script), replaced in "
          f"{replaced_in * 1000:.0f} ms")


def test_restarts_stop_at_the_emergency_threshold(spindle_run, tmp_path, probe_extension,
                                                   no_core_files):  # noqa: F811
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.php").write_text("<?php echo getmypid(), \"\\n\";\n")
    (root / "crash.php").write_text("<?php spindle_probe_crash('segv');\n")
    srv = spindle_run(f"""{{
    admin 127.0.0.1:0
    log {{
        format json
    }}
    frankenphp {{
        processes 2
        num_threads 2
        emergency_restart_threshold 2
        emergency_restart_interval 1m
        php_ini extension {probe_extension}
    }}
}}
:0 {{
    bind 127.0.0.1
    root * {root}
    php_server
}}
""")
    srv.expect_errors(r"^fatal signal ", DEATH, r"emergency_restart_threshold",
                      r"no server process left")
    wait_all_ready(srv)
    assert get(srv.port, "/crash.php") is None
    # The first death is restarted.
    srv.wait_for_log(r"process \d+ \(pid \d+\) ready")
    wait_all_ready(srv)
    assert get(srv.port, "/crash.php") is None
    # The second reaches the threshold: no restart, the last process keeps serving.
    srv.wait_for_log(r"reached emergency_restart_threshold")
    processes = srv.admin("GET", "/threads").json()["processes"]
    assert sum(1 for p in processes if p["pid"]) == 1, processes
    for _ in range(20):
        answer = get(srv.port, "/index.php")
        assert answer is not None and answer[0] == 200, srv.log_tail()
    assert srv.admin("GET", "/readyz").status == 503
    # The last one dies too: the supervisor exits non-zero.
    assert get(srv.port, "/crash.php") is None
    srv.terminated = True
    srv.expected_exit_code = 1
    srv.exit_code = srv.proc.wait(timeout=10)
    assert srv.exit_code == 1, srv.log_tail()
    assert "no server process left: exiting (status 1)" in srv.log()


def test_signals_reach_every_process(spindle, mode, probe_extension):
    srv = start(spindle, mode, probe_extension)
    pids = [p["pid"] for p in srv.admin("GET", "/threads").json()["processes"]]
    # SIGHUP: every process reloads its configuration; SIGUSR1: every process restarts its
    # workers (what each logs is in http_server.cpp).
    for signum, line in ((signal.SIGHUP, "signal 1: configuration applied"),
                         (signal.SIGUSR1, "signal 10: restarting every worker script")):
        srv.proc.send_signal(signum)
        deadline = time.monotonic() + 10
        while sum(1 for r in records(srv) if r["msg"].startswith(line)) < PROCESSES:
            assert time.monotonic() < deadline, srv.log_tail()
            time.sleep(0.05)
        time.sleep(0.3)
        assert sum(1 for r in records(srv) if r["msg"].startswith(line)) == PROCESSES
    wait_all_ready(srv)
    # SIGTERM drains every process: the requests running on all of them finish.
    results = {}

    def slow(i):
        results[i] = get(srv.port, f"/pid.php?ms=1500&i={i}", timeout=20)

    clients = [threading.Thread(target=slow, args=(i,)) for i in range(16)]
    for c in clients:
        c.start()
    time.sleep(0.7)
    assert srv.terminate(timeout=20) == 0, srv.log_tail()
    for c in clients:
        c.join(timeout=20)
    assert all(r is not None and r[0] == 200 for r in results.values()), results
    assert len({r[1] for r in results.values()}) >= 2, results
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)

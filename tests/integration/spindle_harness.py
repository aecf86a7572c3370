"""Harness of the integration and app tests (their conftest.py files import it): starts the
real spindle binary on 127.0.0.1 port 0 and checks every server on tear-down, as NGINX Unit's
test harness does: the process is still alive, it did not grow its open file descriptors, its
log has no unexpected error, and it stops with exit code 0 on SIGTERM.

Every test that uses the `spindle` fixture runs once per mode in MODES, unless it is marked
`classic_only`. A mode decides the extra flags a server gets (see mode_arguments):

- classic: none; every .php file runs classically, one script run per request.
- worker: every fixture file of the app written in the executor pattern (it requires
  tests/fixtures/_executor.php and returns its handler closure) is started as a worker script
  on one thread (`-w FILE,1`), so the requests a test sends to it are served by the resident
  script through frankenphp_handle_request(); the app's other .php files stay classic.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from spindle_http import Conn

# The modes every server scenario runs in; tests marked classic_only run in the first only.
MODES = ["classic", "worker"]

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"
DEFAULT_BINARY = "/work/main/build/spindle"

START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
# Open descriptors a server may have above its baseline at tear-down: idle keep-alive sockets
# that are still closing.
FD_TOLERANCE = 3
FD_SETTLE_TIMEOUT = 2.5
DEFAULT_THREADS = "4"
# What marks a fixture file as runnable in both modes (see tests/fixtures/_executor.php).
EXECUTOR = "_executor.php"

LISTENING = re.compile(r"listening on https?://127\.0\.0\.1:(\d+)")
ADMIN_LISTENING = re.compile(r"admin endpoint on http://127\.0\.0\.1:(\d+)")
# "2026-12-02 11:22:33.123 info  [server] message"
LOG_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} (trace|debug|info|warning|warn|error|critical)\s+"
    r"\[(\w+)\] ?(.*)$"
)
ERROR_LEVELS = {"error", "critical"}


def pytest_addoption(parser):
    parser.addoption(
        "--spindle",
        action="store",
        default=os.environ.get("SPINDLE_BINARY", DEFAULT_BINARY),
        help="path of the spindle binary under test",
    )
    parser.addoption(
        "--soak",
        action="store_true",
        default=False,
        help="also run the tests marked soak (long runs whose figures bench/RESULTS.md keeps)",
    )


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    # Lets fixtures see whether the test body failed (to print the server log then).
    outcome = yield
    report = outcome.get_result()
    setattr(item, "rep_" + report.when, report)


@pytest.fixture(scope="session")
def spindle_binary(request):
    # Absolute: servers run in their app's folder.
    path = Path(request.config.getoption("--spindle")).resolve()
    if not path.is_file() or not os.access(path, os.X_OK):
        pytest.fail(f"spindle binary not found at {path} (give --spindle=PATH)")
    return str(path)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "classic_only: run only in classic mode (HTTP front end, routing and limits, where a "
        "worker adds nothing, or servers that bring their own worker flags)",
    )
    config.addinivalue_line(
        "markers",
        "zend_allocator: measures PHP's own memory manager (memory_limit, memory figures) or "
        "the process's RSS, which the sanitizer run changes (USE_ZEND_ALLOC=0 replaces the "
        "manager with malloc, ASan's quarantine holds freed memory); scripts/sanitize.sh "
        "leaves these out",
    )
    config.addinivalue_line(
        "markers",
        "wall_clock: bounds how fast a flood of expensive requests is served (probe latencies "
        "under an attack); the sanitizer build runs PHP output several times slower, so "
        "scripts/sanitize.sh leaves these out and scripts/test.sh checks them",
    )
    config.addinivalue_line(
        "markers",
        "soak: a long run of a scenario that also runs short by default; only with --soak",
    )


def pytest_collection_modifyitems(config, items):
    # Soak runs take minutes: only on request (--soak). Deselected, not skipped: the default
    # run runs the same scenario short.
    if config.getoption("--soak"):
        return
    soak = [item for item in items if item.get_closest_marker("soak") is not None]
    if soak:
        config.hook.pytest_deselected(items=soak)
        items[:] = [item for item in items if item.get_closest_marker("soak") is None]


def pytest_generate_tests(metafunc):
    if "mode" in metafunc.fixturenames:
        classic_only = metafunc.definition.get_closest_marker("classic_only") is not None
        metafunc.parametrize("mode", MODES[:1] if classic_only else MODES, indirect=True,
                             scope="session")


def rss_bytes(pid):
    """Resident memory of process `pid` (VmRSS), in bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for {pid}")


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now, for a server a test starts."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def executor_fixtures(root):
    """The .php files of an app written in the executor pattern, in a stable order."""
    found = []
    for path in sorted(Path(root).rglob("*.php")):
        if path.is_file() and not path.name.startswith("_"):
            if EXECUTOR in path.read_text(errors="replace"):
                found.append(path)
    return found


def mode_arguments(mode, root, worker_threads=1):
    """Flags that run the app at `root` in `mode`, each worker on `worker_threads` threads."""
    if mode == "classic":
        return []
    if mode == "worker":
        workers = executor_fixtures(root)
        if not workers:
            raise ValueError(f"{root} has no executor-style fixture to run as a worker")
        args = []
        for path in workers:
            args += ["--worker", f"{path},{worker_threads}"]
        # The workers' threads plus the usual pool for the app's classic scripts.
        return args + ["--threads", str(len(workers) * worker_threads + int(DEFAULT_THREADS))]
    raise ValueError(f"mode {mode!r} is not supported: teach mode_arguments() its flags")


class LogRecord:
    def __init__(self, level, logger, text):
        self.level = level
        self.logger = logger
        self.text = text  # message, with continuation lines joined by "\n"

    def __repr__(self):
        return f"{self.level} [{self.logger}] {self.text}"


def parse_log(text):
    """Records of a log; lines that do not start a record continue the previous one."""
    records = []
    for line in text.splitlines():
        match = LOG_LINE.match(line)
        if match:
            records.append(LogRecord(match.group(1), match.group(2), match.group(3)))
        elif records:
            records[-1].text += "\n" + line
        elif line.strip():
            records.append(LogRecord("unknown", "", line))
    return records


class SpindleServer:
    """One running spindle php-server process."""

    def __init__(self, binary, root, args, env, mode, command=None, wrapper=(), worker_threads=1):
        self.binary = binary
        self.root = Path(root)
        self.args = list(args)
        self.mode = mode
        self.port = None
        self.admin_port = None  # set when the server runs an admin endpoint on 127.0.0.1
        self.proc = None
        self.fd_baseline = None
        # Descriptors the test's scripts keep open on purpose (a worker's database connection).
        self.kept_fds = 0
        self.expected_errors = []
        self.conns = []
        self._stderr = []
        self._stdout = []
        self._lock = threading.Lock()
        self._readers = []
        self.stopped = False
        self.terminated = False
        self.exit_code = None
        self.expected_exit_code = 0  # after the test's own SIGTERM (terminate())

        full_env = {k: v for k, v in os.environ.items() if k not in ("PHPRC", "PHP_INI_SCAN_DIR")}
        full_env.update(env or {})
        if command is not None:
            # A configuration-file server: `command` follows the binary as it is; `wrapper`
            # (e.g. prlimit) runs it, exec'ing it so the pid stays the server's.
            self.command = [*wrapper, binary, *command]
        else:
            mode_args = mode_arguments(mode, self.root, worker_threads)
            self.command = [
                binary,
                "php-server",
                "--root",
                str(self.root),
                "--listen",
                "127.0.0.1:0",
                *mode_args,
                *self.args,
            ]
            if "--threads" not in self.args and "--threads" not in mode_args:
                self.command += ["--threads", DEFAULT_THREADS]
            # Servers run in parallel: none takes the default admin port (2019) unless the
            # test asks for an admin endpoint itself (--admin 127.0.0.1:0).
            if not any(a == "--admin" or a.startswith("--admin=") for a in self.args):
                self.command += ["--admin", "off"]
        self.proc = subprocess.Popen(
            self.command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full_env,
            cwd=str(self.root),
        )
        for stream, sink in ((self.proc.stderr, self._stderr), (self.proc.stdout, self._stdout)):
            reader = threading.Thread(target=self._read, args=(stream, sink), daemon=True)
            reader.start()
            self._readers.append(reader)

    # --- process and log ----------------------------------------------------------------

    def _read(self, stream, sink):
        for raw in iter(stream.readline, b""):
            with self._lock:
                sink.append(raw.decode("utf-8", "replace"))
        stream.close()

    @property
    def pid(self):
        return self.proc.pid

    def log(self):
        """Everything the server wrote to stderr so far."""
        with self._lock:
            return "".join(self._stderr)

    def stdout(self):
        with self._lock:
            return "".join(self._stdout)

    def records(self):
        return parse_log(self.log())

    def wait_for_log(self, pattern, timeout=5.0):
        """The first log record matching the regex, waiting for it up to timeout seconds."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            for record in self.records():
                if regex.search(record.text):
                    return record
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"no log line matching {pattern!r} within {timeout}s; log:\n{self.log_tail()}"
                )
            time.sleep(0.05)

    def log_tail(self, lines=60):
        return "".join(self.log().splitlines(keepends=True)[-lines:])

    def expect_errors(self, *patterns):
        """Declares log records at level error/critical that this test provokes on purpose."""
        self.expected_errors.extend(re.compile(p) for p in patterns)

    def is_alive(self):
        return self.proc.poll() is None

    def fd_count(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def wait_ready(self):
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            match = LISTENING.search(self.log())
            if match:
                self.port = int(match.group(1))
                admin = ADMIN_LISTENING.search(self.log())
                self.admin_port = int(admin.group(1)) if admin else None
                return
            if self.proc.poll() is not None:
                for reader in self._readers:
                    reader.join(timeout=2)
                raise AssertionError(
                    f"spindle exited with {self.proc.returncode} before listening\n"
                    f"command: {' '.join(self.command)}\nstderr:\n{self.log()}"
                )
            time.sleep(0.02)
        self.kill()
        raise AssertionError(
            f"spindle did not log 'listening on' within {START_TIMEOUT}s\n"
            f"command: {' '.join(self.command)}\nstderr:\n{self.log()}"
        )

    def warm_up(self, path):
        """One request, then the fd baseline once the process's descriptors settle."""
        with Conn(self.port) as conn:
            response = conn.request("GET", path)
            assert response.status < 500, (
                f"warm-up request GET {path} failed: {response!r}\n{self.log_tail()}"
            )
        previous = -1
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            count = self.fd_count()
            if count == previous:
                break
            previous = count
            time.sleep(0.05)
        self.fd_baseline = self.fd_count()

    def terminate(self, timeout=STOP_TIMEOUT):
        """Sends SIGTERM now, for tests of graceful shutdown, and returns the exit code (None if
        the process outlived timeout). Tear-down then checks only the log and that exit code."""
        self.terminated = True
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.exit_code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        return self.exit_code

    def expect_death(self, signum, timeout=10.0):
        """Waits for the process to die of `signum` (a crash the test provokes) and returns its
        exit code (-signum when it did), with its whole log read. Tear-down then checks that
        exit code and the log, as after the test's own SIGTERM."""
        self.terminated = True
        self.expected_exit_code = -signum
        try:
            self.exit_code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"spindle did not die of signal {signum} within {timeout}s\n{self.log_tail()}"
            ) from None
        for reader in self._readers:
            reader.join(timeout=2)
        return self.exit_code

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass

    # --- clients ------------------------------------------------------------------------

    def url(self, path="/"):
        return f"http://127.0.0.1:{self.port}{path}"

    def admin_url(self, path="/"):
        assert self.admin_port is not None, "this server runs no admin endpoint on 127.0.0.1"
        return f"http://127.0.0.1:{self.admin_port}{path}"

    def admin(self, method="GET", target="/", headers=None, body=None, timeout=10.0):
        """One request to the admin endpoint on a fresh connection."""
        assert self.admin_port is not None, "this server runs no admin endpoint on 127.0.0.1"
        with Conn(self.admin_port, timeout=timeout) as conn:
            return conn.request(method, target, headers, body)

    def connect(self, timeout=10.0, host_header=None):
        """A new client connection, closed by the harness at tear-down at the latest."""
        conn = Conn(self.port, timeout=timeout, host_header=host_header)
        self.conns.append(conn)
        return conn

    def request(self, method="GET", target="/", headers=None, body=None, version="1.1",
                host=None, timeout=10.0):
        """One request on a fresh connection, which is closed afterwards."""
        with Conn(self.port, timeout=timeout) as conn:
            return conn.request(method, target, headers, body, version, host)

    def get(self, target="/", **kwargs):
        return self.request("GET", target, **kwargs)

    def post(self, target, body, content_type="application/x-www-form-urlencoded", headers=None,
             **kwargs):
        pairs = [("Content-Type", content_type)] + list((headers or {}).items())
        return self.request("POST", target, headers=pairs, body=body, **kwargs)

    def raw(self, data, timeout=5.0):
        """Sends raw bytes on a fresh connection; returns the parsed response."""
        with Conn(self.port, timeout=timeout) as conn:
            conn.send(data)
            return conn.read_response()

    # --- tear-down ----------------------------------------------------------------------

    def stop_and_check(self):
        """Checks the running server, stops it with SIGTERM; returns a list of problems."""
        problems = []
        for conn in self.conns:
            conn.close()
        if self.terminated:
            if self.exit_code is None:
                problems.append("server did not exit after the test's SIGTERM")
            elif self.exit_code != self.expected_exit_code:
                problems.append(f"server exited with {self.exit_code}, not "
                                f"{self.expected_exit_code}, after the test's SIGTERM or crash")
        elif not self.is_alive():
            problems.append(f"server died during the test (exit code {self.proc.returncode})")
        else:
            if self.fd_baseline is not None:
                deadline = time.monotonic() + FD_SETTLE_TIMEOUT
                count = self.fd_count()
                allowed = self.fd_baseline + FD_TOLERANCE + self.kept_fds
                while count > allowed and time.monotonic() < deadline:
                    time.sleep(0.05)
                    count = self.fd_count()
                if count > allowed:
                    fds = []
                    for fd in sorted(os.listdir(f"/proc/{self.pid}/fd"), key=int):
                        try:
                            fds.append(f"{fd} -> {os.readlink(f'/proc/{self.pid}/fd/{fd}')}")
                        except OSError:
                            pass
                    problems.append(
                        f"open file descriptors grew from {self.fd_baseline} to {count}: "
                        + ", ".join(fds)
                    )
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.exit_code = self.proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                problems.append(f"server did not exit within {STOP_TIMEOUT}s of SIGTERM")
                self.kill()
            else:
                if self.exit_code != 0:
                    problems.append(f"server exited with {self.exit_code} after SIGTERM")
        self.kill()
        for reader in self._readers:
            reader.join(timeout=2)
        unexpected = [
            record
            for record in self.records()
            if record.level in ERROR_LEVELS
            and not any(p.search(record.text) for p in self.expected_errors)
        ]
        if unexpected:
            problems.append(
                "unexpected error lines in the log:\n" + "\n".join(map(repr, unexpected))
            )
        self.stopped = True
        return problems


@pytest.fixture(scope="session")
def mode(request):
    """The mode of the current test, parametrized by pytest_generate_tests."""
    return request.param


def app_root(app):
    """A fixture app by name (tests/fixtures/<app>) or a path."""
    if isinstance(app, Path) or "/" in str(app):
        return Path(app)
    return FIXTURES / app


@pytest.fixture
def spindle(request, spindle_binary, mode):
    """Factory: spindle(app_or_root, *flags, env=None, warmup="/", worker_threads=1) starts a
    server and returns a ready SpindleServer. Every server is checked and stopped at the end of
    the test."""
    servers = []

    def start(app, *args, env=None, warmup="/", worker_threads=1):
        server = SpindleServer(spindle_binary, app_root(app), args, env, mode,
                               worker_threads=worker_threads)
        servers.append(server)
        server.wait_ready()
        if warmup is not None:
            server.warm_up(warmup)
        return server

    yield start
    check_servers(request, servers)


@pytest.fixture
def spindle_run(request, spindle_binary, tmp_path):
    """Factory: spindle_run(text, name="Caddyfile", env=None, cwd=None, wrapper=()) writes a
    configuration file into a fresh directory and starts `spindle run --config` on it. The
    configuration must listen on 127.0.0.1 (e.g. `bind 127.0.0.1` and port 0). Checked and
    stopped like spindle."""
    servers = []

    def start(text, name="Caddyfile", env=None, cwd=None, warmup="/", wrapper=()):
        return start_config_server(spindle_binary, servers, tmp_path / name, text,
                                   cwd or tmp_path, env=env, warmup=warmup, wrapper=wrapper)

    yield start
    check_servers(request, servers)


def start_config_server(binary, servers, path, text, cwd, env=None, warmup="/", wrapper=()):
    """Writes `text` to `path` (admin endpoint off unless it sets one), starts `spindle run
    --config` on it in `cwd`, appends it to `servers` (for check_servers) and returns it ready."""
    path = Path(path)
    path.write_text(without_default_admin(text, path.name))
    server = SpindleServer(binary, Path(cwd), [], env, None,
                           command=["run", "--config", str(path)], wrapper=wrapper)
    servers.append(server)
    server.wait_ready()
    if warmup is not None:
        server.warm_up(warmup)
    return server


def without_default_admin(text, name):
    """The configuration with its admin endpoint turned off, unless it sets one itself: servers
    run in parallel and cannot all take the default port 2019. A Caddyfile gets `admin off` in
    its global options block (a new one, three lines, or one more line in its own), a JSON
    document an "admin" key."""
    if name.endswith(".json"):
        document = json.loads(text)
        if "admin" not in document:
            document = {"admin": "off", **document}
        return json.dumps(document, indent=2)
    if re.search(r"^\s*admin\b", text, re.MULTILINE):
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped == "{":
            lines.insert(i + 1, "\tadmin off")
            return "\n".join(lines)
        break
    return "{\n\tadmin off\n}\n" + text


def check_servers(request, servers):
    """Stops every server of a test and fails the test with what their tear-down found."""
    problems = []
    for server in servers:
        try:
            found = server.stop_and_check()
        except Exception as e:  # tear-down must stop every server whatever happens
            server.kill()
            found = [f"tear-down check raised {e!r}"]
        if found:
            problems.append(f"server {' '.join(server.command)}:\n  " + "\n  ".join(found))
    failed = getattr(request.node, "rep_call", None)
    if problems or (failed is not None and failed.failed):
        for server in servers:
            print(f"----- log of {' '.join(server.command)} -----\n{server.log()}")
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def tmp_root(tmp_path):
    """copy_app(app) copies a fixture app into a fresh temporary directory (for tests that
    add files, dotfiles or symlinks at run time) and returns the new root."""

    def copy_app(app):
        root = tmp_path / "root"
        shutil.copytree(FIXTURES / app, root, symlinks=True)
        # Executor-style fixtures require ../_executor.php.
        shutil.copy(FIXTURES / EXECUTOR, tmp_path / EXECUTOR)
        return root

    return copy_app


"""Real services for the tests of PHP extensions: Redis, Memcached and PostgreSQL from Debian's
packages (scripts/install-deps.sh), each started on 127.0.0.1 and a free port with a fresh
data directory, no system service and no /etc configuration, and stopped at the end of the
session. A missing program fails the test that needs it, naming the package."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from spindle_harness import free_port

START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0
POSTGRES_BIN = Path("/usr/lib/postgresql")



def program(name, package):
    for folder in ("/usr/bin", "/usr/sbin"):
        path = Path(folder) / name
        if path.exists():
            return str(path)
    raise AssertionError(f"{name} is not installed: scripts/install-deps.sh installs {package}")


def wait_for_port(port, proc, log_path, what):
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"{what} exited with {proc.returncode}:\n"
                                 f"{Path(log_path).read_text(errors='replace')[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not listen on {port} within {START_TIMEOUT}s")
        time.sleep(0.05)


class Service:
    """One daemon: `start()` runs it, `stop()` ends it and removes its data directory."""

    name = "service"

    def __init__(self):
        # Not under pytest's tmp_path: its parents are private to root, and PostgreSQL runs
        # as its own user.
        self.base = Path(tempfile.mkdtemp(prefix=f"spindle-{self.name}-"))
        self.base.chmod(0o755)
        self.log_path = self.base / f"{self.name}.log"
        self.port = free_port()
        self.proc = None

    def command(self):
        raise NotImplementedError

    def prepare(self):
        pass

    def run_as(self):
        """subprocess arguments that choose the daemon's user (none: this process's)."""
        return {}

    def start(self):
        self.prepare()
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, cwd=self.base,
                                         **self.run_as())
        wait_for_port(self.port, self.proc, self.log_path, self.name)
        self.wait_ready()
        return self

    def wait_ready(self):
        """Returns once the service answers requests (listening may come first)."""

    stop_signal = signal.SIGTERM

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(self.stop_signal)
            try:
                self.proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def remove(self):
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)


class Redis(Service):
    name = "redis"

    def command(self):
        return [program("redis-server", "redis-server"), "--bind", "127.0.0.1", "--port",
                str(self.port), "--save", "", "--appendonly", "no", "--dir", str(self.base)]

    def query(self, *args, database=0):
        """One Redis command in `database` over its own connection, as the test's view of what
        the app stored: bulk strings and integers come back as str and int, arrays as lists."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as sock:
            sock.sendall(encode_command("SELECT", database) + encode_command(*args))
            replies = sock.makefile("rb")
            read_reply(replies)
            return read_reply(replies)


def encode_command(*args):
    parts = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = str(arg).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def read_reply(stream):
    """One RESP reply from `stream`."""
    line = stream.readline().rstrip(b"\r\n")
    kind, rest = line[:1], line[1:]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        raise AssertionError(f"Redis error: {rest.decode()}")
    if kind == b":":
        return int(rest)
    if kind == b"$":
        size = int(rest)
        return None if size < 0 else stream.read(size + 2)[:-2].decode(errors="replace")
    if kind == b"*":
        return [read_reply(stream) for _ in range(int(rest))]
    raise AssertionError(f"unexpected Redis reply {line!r}")


class Memcached(Service):
    name = "memcached"

    def command(self):
        # memcached refuses to run as root unless told which user to be.
        user = ["-u", "memcache"] if os.geteuid() == 0 else []
        return [program("memcached", "memcached"), "-l", "127.0.0.1", "-p", str(self.port),
                "-U", "0", "-m", "64", *user]

    def stat(self, name):
        """One counter of the server's `stats`, as the test's view of its connections."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as sock:
            sock.sendall(b"stats\r\n")
            replies = sock.makefile("rb")
            for line in replies:
                fields = line.decode().split()
                if fields == ["END"]:
                    break
                if fields[:2] == ["STAT", name]:
                    return int(fields[2])
        raise AssertionError(f"memcached has no stat {name}")


class PostgreSQL(Service):
    """A cluster of its own (initdb, trust authentication on 127.0.0.1 only); `restart()`
    stops and starts it on the same port, as an operator's restart would."""

    name = "postgresql"
    user = "postgres"
    # Fast shutdown: SIGTERM (smart) would wait for the workers' persistent connections.
    stop_signal = signal.SIGINT

    def __init__(self):
        super().__init__()
        self.data = self.base / "data"
        versions = sorted(POSTGRES_BIN.glob("*/bin/postgres"))
        if not versions:
            raise AssertionError("PostgreSQL is not installed: scripts/install-deps.sh installs "
                                 "postgresql")
        self.bin = versions[-1].parent

    def run_as(self):
        # PostgreSQL refuses to run as root.
        return {"user": self.user, "group": self.user} if os.geteuid() == 0 else {}

    def prepare(self):
        if self.data.exists():
            return
        if os.geteuid() == 0:
            shutil.chown(self.base, self.user, self.user)
        init = subprocess.run(
            [str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
             "--no-sync", "-E", "UTF8"],
            capture_output=True, text=True, timeout=120, cwd=self.base, **self.run_as())
        if init.returncode != 0:
            raise AssertionError(f"initdb failed:\n{init.stdout}{init.stderr}")

    def command(self):
        return [str(self.bin / "postgres"), "-D", str(self.data),
                "-h", "127.0.0.1", "-p", str(self.port), "-k", str(self.base),
                "-c", "fsync=off", "-c", "max_connections=100"]

    def wait_ready(self):
        # The port opens while recovery still refuses connections ("the database system is
        # starting up"); pg_isready says when it takes them.
        deadline = time.monotonic() + START_TIMEOUT
        while subprocess.run([str(self.bin / "pg_isready"), "-q", "-h", "127.0.0.1", "-p",
                              str(self.port)]).returncode != 0:
            if time.monotonic() > deadline:
                raise AssertionError(f"PostgreSQL took no connections within {START_TIMEOUT}s")
            time.sleep(0.05)

    def restart(self):
        self.stop()
        self.start()

    def dsn(self):
        return f"pgsql:host=127.0.0.1;port={self.port};dbname=postgres;user=postgres"


def service_fixture(kind):
    @pytest.fixture(scope="session")
    def running():
        service = kind()
        try:
            yield service.start()
        finally:
            service.remove()

    return running


redis_server = service_fixture(Redis)
memcached_server = service_fixture(Memcached)
postgres_server = service_fixture(PostgreSQL)

"""A throw-away MariaDB server for the app tests: a fresh data directory made by
mariadb-install-db, `mariadbd` on 127.0.0.1 and a free port (no system service, no
/etc/mysql configuration), stopped and removed at the end."""

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from spindle_harness import free_port

START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0



def find_program(*names):
    for name in names:
        for folder in ("/usr/sbin", "/usr/bin"):
            path = Path(folder) / name
            if path.exists():
                return str(path)
        found = shutil.which(name)
        if found:
            return found
    raise AssertionError(f"none of {names} is installed (scripts/install-deps.sh apps installs "
                         "mariadb-server)")


class MariaDB:
    """One running server; `sql()` runs statements as root over its Unix socket."""

    def __init__(self, base):
        self.base = Path(base)
        self.datadir = self.base / "data"
        self.socket = self.base / "mariadb.sock"
        self.log_path = self.base / "mariadbd.log"
        self.port = None
        self.proc = None
        self.client = find_program("mariadb", "mysql")

    def start(self):
        self.base.mkdir(parents=True, exist_ok=True)
        # As root, the server must be told to stay root (it refuses otherwise); as anyone else
        # it runs as that user. Root gets no password: the server listens on 127.0.0.1 only.
        as_user = ["--user=root"] if os.geteuid() == 0 else []
        install = subprocess.run(
            [find_program("mariadb-install-db", "mysql_install_db"), "--no-defaults",
             f"--datadir={self.datadir}", *as_user, "--skip-test-db",
             "--auth-root-authentication-method=normal"],
            capture_output=True, text=True, timeout=120)
        if install.returncode != 0:
            raise AssertionError(f"mariadb-install-db failed:\n{install.stdout}{install.stderr}")
        self.port = free_port()
        arguments = [
            find_program("mariadbd", "mysqld"), "--no-defaults", f"--datadir={self.datadir}",
            "--skip-networking=0", "--bind-address=127.0.0.1", f"--port={self.port}",
            f"--socket={self.socket}", f"--pid-file={self.base / 'mariadbd.pid'}",
            "--skip-log-bin", "--innodb-buffer-pool-size=32M", "--skip-name-resolve",
            # Tests need no crash safety: flush the log once a second, not at every commit.
            "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0",
            *as_user,
        ]
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"mariadbd exited with {self.proc.returncode}:\n"
                                     f"{self.log_tail()}")
            if self.socket.exists() and self._ping():
                return self
            if time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"mariadbd not ready within {START_TIMEOUT}s:\n"
                                     f"{self.log_tail()}")
            time.sleep(0.1)

    def _ping(self):
        result = subprocess.run(
            [self.client, "--no-defaults", f"--socket={self.socket}", "-uroot", "-e", "SELECT 1"],
            capture_output=True, timeout=10)
        return result.returncode == 0

    def sql(self, statements, database=None):
        """Runs SQL as root; returns the tab-separated output rows."""
        command = [self.client, "--no-defaults", f"--socket={self.socket}", "-uroot",
                   "--batch", "--skip-column-names"]
        if database:
            command.append(database)
        result = subprocess.run(command, input=statements, capture_output=True, text=True,
                                timeout=60)
        if result.returncode != 0:
            raise AssertionError(f"SQL failed: {statements}\n{result.stderr}")
        return [line.split("\t") for line in result.stdout.splitlines()]

    def create_database(self, name, user, password):
        """A database and a user that may use it from 127.0.0.1 over TCP."""
        self.sql(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4;\n"
                 f"CREATE USER '{user}'@'127.0.0.1' IDENTIFIED BY '{password}';\n"
                 f"GRANT ALL PRIVILEGES ON `{name}`.* TO '{user}'@'127.0.0.1';\n")

    def log_tail(self, lines=40):
        try:
            return "".join(self.log_path.read_text(errors="replace")
                           .splitlines(keepends=True)[-lines:])
        except OSError:
            return "(no log)"

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

"""packaging/systemd/spindle.service: the unit file is valid for systemd, and the command line
it starts speaks systemd's notification protocol as a Type=notify service must. systemd itself
is emulated: the test binds the AF_UNIX datagram socket that NOTIFY_SOCKET names and reads the
messages Spindle sends (READY=1 only after every worker booted; RELOADING=1 and READY=1 around
SIGHUP; STOPPING=1 on SIGTERM)."""

import configparser
import shlex
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from spindle_harness import FIXTURES, SpindleServer, check_servers

UNIT = Path(__file__).resolve().parents[2] / "packaging/systemd/spindle.service"
INSTALLED_BINARY = "/usr/local/bin/spindle"
INSTALLED_CONFIG = "/etc/spindle/Caddyfile"


def service_section():
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read_string(UNIT.read_text())
    return parser["Service"]


def command_line(key, binary, config):
    """The unit's Exec line `key`, run against the binary under test and a test's config."""
    words = shlex.split(service_section()[key])
    assert words[0] == INSTALLED_BINARY, f"{key} must start {INSTALLED_BINARY}"
    return [binary if w == INSTALLED_BINARY else str(config) if w == INSTALLED_CONFIG else w
            for w in words]


class NotifySocket:
    """The end of NOTIFY_SOCKET that systemd holds: one datagram per notification."""

    def __init__(self, path):
        self.path = str(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)

    def receive(self, timeout=30.0):
        """The next message as a dict of its KEY=VALUE lines, and when it arrived."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(4096)
        except socket.timeout:
            raise AssertionError(f"no notification within {timeout}s") from None
        fields = dict(line.split("=", 1) for line in data.decode().splitlines() if line)
        return fields, time.monotonic()

    def close(self):
        self.sock.close()


def test_unit_file_passes_systemd_analyze(spindle_binary, tmp_path):
    unit = tmp_path / "spindle.service"
    unit.write_text(UNIT.read_text().replace(INSTALLED_BINARY, spindle_binary))
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    # systemd-analyze reports a misspelt value on stderr and still exits 0.
    assert result.stderr == ""


def test_unit_is_a_sandboxed_notify_service():
    service = service_section()
    assert service["Type"] == "notify"
    assert shlex.split(service["ExecReload"]) == ["/bin/kill", "-HUP", "$MAINPID"]
    assert service["Restart"] == "on-failure"
    assert service["User"] == "spindle"
    assert int(service["LimitNOFILE"]) >= 65536
    assert service["ProtectSystem"] == "strict"
    assert service["NoNewPrivileges"] == "yes"


def test_ready_after_every_worker_booted_reload_and_stop(request, spindle_binary, tmp_path):
    www = tmp_path / "www"
    www.mkdir()
    (www / "worker.php").write_text((FIXTURES / "systemd/worker.php").read_text())
    boot_dir = tmp_path / "booted"
    boot_dir.mkdir()
    config = tmp_path / "Caddyfile"
    config.write_text(f"""{{
\tadmin off
\tfrankenphp {{
\t\tnum_threads 4
\t}}
}}
:0 {{
\tbind 127.0.0.1
\troot * {www}
\tphp_server {{
\t\tworker {www}/worker.php 2
\t}}
}}
""")
    pre = subprocess.run(command_line("ExecStartPre", spindle_binary, config),
                         capture_output=True, text=True, timeout=60)
    assert pre.returncode == 0, pre.stderr

    notify = NotifySocket(tmp_path / "notify.sock")
    command = command_line("ExecStart", spindle_binary, config)
    started = time.monotonic()
    server = SpindleServer(command[0], tmp_path, [], {"NOTIFY_SOCKET": notify.path,
                                                      "BOOT_DIR": str(boot_dir)},
                           None, command=command[1:])
    try:
        ready, ready_at = notify.receive()
        # Checked first, before anything else can let a worker finish: every worker thread had
        # booted when READY=1 was sent.
        booted = sorted(boot_dir.iterdir())
        assert ready["READY"] == "1", ready
        assert len(booted) == 2, f"READY=1 came with {len(booted)} of 2 workers booted"
        assert ready_at - started >= 0.7
        assert "STATUS" in ready
        server.wait_ready()
        with server.connect() as conn:
            seen = conn.request("GET", "/worker.php").json()
        # systemd's socket is Spindle's, not the scripts'.
        assert seen == {"getenv": False, "server": None}

        server.proc.send_signal(signal.SIGHUP)
        reloading, _ = notify.receive()
        assert reloading["RELOADING"] == "1"
        # CLOCK_MONOTONIC in microseconds, as systemd compares it with its own clock.
        assert abs(int(reloading["MONOTONIC_USEC"]) / 1e6 - time.monotonic()) < 5
        again, _ = notify.receive()
        assert again["READY"] == "1"

        server.terminate()
        stopping, _ = notify.receive()
        assert stopping == {"STOPPING": "1"}
    finally:
        notify.close()
        check_servers(request, [server])

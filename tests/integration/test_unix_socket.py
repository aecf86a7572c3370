"""Listening on a Unix domain socket (`--listen unix/PATH`, Caddyfile `bind unix//PATH|MODE`),
what a reverse proxy on the same host connects to: requests in both modes, the socket file's
mode, a stale file replaced, a live one refused, the file removed on SIGTERM."""

import os
import shutil
import socket
import stat
import subprocess
import tempfile

import pytest

from spindle_harness import FIXTURES
from spindle_http import Conn


@pytest.fixture
def socket_path():
    # sockaddr_un holds 107 bytes of path, which pytest's tmp_path may exceed.
    directory = tempfile.mkdtemp(prefix="spindle-sock-")
    yield os.path.join(directory, "spindle.sock")
    shutil.rmtree(directory, ignore_errors=True)


def test_requests_over_a_unix_socket_as_over_tcp(spindle, socket_path):
    srv = spindle("http", "--listen", f"unix/{socket_path}|0660")
    srv.wait_for_log(f"listening on unix/{socket_path}")
    assert stat.S_ISSOCK(os.stat(socket_path).st_mode)
    assert stat.S_IMODE(os.stat(socket_path).st_mode) == 0o660
    with Conn(None, unix_path=socket_path) as conn:
        # Keep-alive, a body read by PHP, and a static file sent with sendfile().
        r = conn.request("POST", "/echo_body.php", body=b"x" * 100_000)
        assert r.status == 200, r
        assert r.json()["length"] == 100_000, r
        r = conn.request("GET", "/static.txt")
        assert r.status == 200 and r.body == (FIXTURES / "http" / "static.txt").read_bytes(), r
        r = conn.request("GET", "/request_headers.php", headers={"X-Forwarded-For": "203.0.113.7"})
        assert r.status == 200, r
        assert r.json()["server"]["HTTP_X_FORWARDED_FOR"] == "203.0.113.7", r
    # The TCP address (the harness's 127.0.0.1:0) serves the same site beside it.
    assert srv.get("/static.txt").status == 200


def test_a_unix_socket_client_is_a_local_proxy(spindle, socket_path):
    # As Puma and Unicorn report it: REMOTE_ADDR 127.0.0.1, so that "trust the proxy on
    # 127.0.0.1" settings apply; no client port; SERVER_PORT 80 unless Host names one.
    srv = spindle("sapi", "--listen", f"unix/{socket_path}")
    srv.wait_for_log(f"listening on unix/{socket_path}")
    with Conn(None, unix_path=socket_path, host_header="example.test") as conn:
        s = conn.request("GET", "/server_vars.php?q=1").json()
    assert s["REMOTE_ADDR"] == "127.0.0.1", s
    assert s["SERVER_ADDR"] == "127.0.0.1", s
    assert s["SERVER_PORT"] == "80", s
    assert s["REMOTE_PORT"] == "0", s
    assert s["SERVER_NAME"] == "example.test", s
    assert s["HTTP_HOST"] == "example.test", s
    assert s["QUERY_STRING"] == "q=1", s
    assert s["REQUEST_SCHEME"] == "http" and s["HTTPS"] == "", s


@pytest.mark.classic_only
def test_a_stale_socket_file_is_replaced_and_removed_on_exit(spindle, socket_path):
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(socket_path)  # bound, never listening: what a killed server leaves
    left.close()
    srv = spindle("http", "--listen", f"unix/{socket_path}")
    srv.wait_for_log(f"listening on unix/{socket_path}")
    with Conn(None, unix_path=socket_path) as conn:
        assert conn.request("GET", "/static.txt").status == 200
    srv.terminate()
    assert not os.path.exists(socket_path)


def refused_start(binary, path):
    """The error output of a php-server asked to listen on unix/PATH, which must fail."""
    started = subprocess.run(
        [binary, "php-server", "--root", str(FIXTURES / "http"), "--admin", "off", "--listen",
         f"unix/{path}"],
        capture_output=True, text=True, timeout=30)
    assert started.returncode != 0, started.stderr
    return started.stderr


@pytest.mark.classic_only
def test_a_live_socket_or_another_file_is_refused(spindle, spindle_binary, socket_path):
    srv = spindle("http", "--listen", f"unix/{socket_path}")
    srv.wait_for_log(f"listening on unix/{socket_path}")
    assert "another server accepts connections on it" in refused_start(spindle_binary,
                                                                        socket_path)
    # The running server keeps its socket.
    with Conn(None, unix_path=socket_path) as conn:
        assert conn.request("GET", "/static.txt").status == 200

    regular = socket_path + ".txt"
    with open(regular, "w") as f:
        f.write("not a socket")
    assert "the path exists and is not a socket" in refused_start(spindle_binary, regular)
    assert open(regular).read() == "not a socket"


@pytest.mark.classic_only
def test_caddyfile_bind_unix_socket(spindle_run, socket_path):
    srv = spindle_run(f"""
http://127.0.0.1:0 {{
	bind 127.0.0.1 unix/{socket_path}|0600
	root * {FIXTURES / "http"}
	php_server
}}
""")
    srv.wait_for_log(f"listening on unix/{socket_path}")
    assert stat.S_IMODE(os.stat(socket_path).st_mode) == 0o600
    with Conn(None, unix_path=socket_path, host_header="127.0.0.1") as conn:
        r = conn.request("POST", "/echo_body.php", body=b"over the socket")
        assert r.status == 200, r
        assert r.json()["head"] == "over the socket", r

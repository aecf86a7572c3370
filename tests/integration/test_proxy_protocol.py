"""The PROXY protocol (Caddy's `listener_wrappers { proxy_protocol { ... } }`) behind a real
HAProxy started by the test on 127.0.0.1, with `send-proxy` (v1) and `send-proxy-v2`: the
client's address comes from the header; a listener that requires the header refuses
connections without it; allow/deny/fallback_policy decide per peer; malformed headers close
the connection and the server goes on serving."""

import shutil
import socket
import struct
import subprocess
import time

import pytest

from spindle_harness import FIXTURES, free_port
from spindle_http import Conn

CLIENT = "127.0.0.3"  # the client's own loopback address, which only the header can tell
HAPROXY_SOURCE = "127.0.0.4"  # where HAProxy connects to Spindle from


def worker_line(mode):
    if mode == "classic":
        return ""
    return f"worker {FIXTURES / 'sapi' / 'server_vars.php'} 1"


def start_spindle(spindle_run, mode, wrapper_options, trusted=""):
    caddyfile = f"""{{
	servers {{
		{trusted}
		listener_wrappers {{
			proxy_protocol {{
				{wrapper_options}
			}}
			tls
		}}
	}}
}}
http://:0 {{
	bind 127.0.0.1
	root {FIXTURES / 'sapi'}
	php_server {{
		{worker_line(mode)}
	}}
}}
"""
    # The harness's plain warm-up request would be refused: warm up with a header instead, then
    # take the descriptor baseline the tear-down compares with (no connection may leak).
    srv = spindle_run(caddyfile, warmup=None)
    with Conn(srv.port) as conn:
        conn.send(b"PROXY TCP4 192.0.2.1 127.0.0.1 1000 80\r\n"
                  b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert conn.read_response().status == 200
    time.sleep(0.3)
    srv.fd_baseline = srv.fd_count()
    return srv


@pytest.fixture
def haproxy(tmp_path):
    """Factory: haproxy(backend_port) starts HAProxy with a v1 and a v2 frontend in front of
    127.0.0.1:backend_port and returns their ports {"v1": p1, "v2": p2}."""
    binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
    started = []

    def start(backend_port):
        ports = {"v1": free_port(), "v2": free_port()}
        config = tmp_path / "haproxy.cfg"
        config.write_text(f"""global
    maxconn 100

defaults
    mode tcp
    timeout connect 5s
    timeout client 30s
    timeout server 30s

frontend v1
    bind 127.0.0.1:{ports["v1"]}
    default_backend v1

frontend v2
    bind 127.0.0.1:{ports["v2"]}
    default_backend v2

backend v1
    server spindle 127.0.0.1:{backend_port} send-proxy source {HAPROXY_SOURCE}

backend v2
    server spindle 127.0.0.1:{backend_port} send-proxy-v2 source {HAPROXY_SOURCE}
""")
        proc = subprocess.Popen([binary, "-db", "-f", str(config)], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        started.append(proc)
        deadline = time.monotonic() + 10
        for port in ports.values():
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise AssertionError(f"haproxy did not start: {proc.stdout.read()!r}")
                    time.sleep(0.05)
        return ports

    yield start
    for proc in started:
        proc.terminate()
        proc.wait(timeout=10)


def through(port, source=CLIENT, headers=None):
    """$_SERVER of /server_vars.php over a connection from `source` to `port`, with a second
    request on the same connection (the header comes once per connection)."""
    with Conn(port, source=source) as conn:
        first = conn.request("GET", "/server_vars.php", headers=headers)
        second = conn.request("GET", "/server_vars.php", headers=headers)
        local_port = conn.sock.getsockname()[1]
    assert first.status == 200 and second.status == 200, (first, second)
    return first.json(), second.json(), local_port


def is_refused(port, data, source=CLIENT):
    """True when the server closes a connection that sent `data` without answering."""
    with Conn(port, source=source, timeout=5) as conn:
        conn.send(data)
        try:
            got = conn.sock.recv(4096)
        except (ConnectionResetError, socket.timeout):
            return True
        return got == b""


def test_haproxy_send_proxy_v1_and_v2_name_the_client(spindle_run, mode, haproxy):
    srv = start_spindle(spindle_run, mode, "fallback_policy require")
    ports = haproxy(srv.port)
    for version in ("v1", "v2"):
        first, second, client_port = through(ports[version])
        for s in (first, second):
            assert s["REMOTE_ADDR"] == CLIENT, (version, s)
            assert s["REMOTE_PORT"] == str(client_port), (version, s)
            assert s["SERVER_ADDR"] == "127.0.0.1", (version, s)


def test_a_required_header_refuses_plain_connections(spindle_run, mode, haproxy):
    srv = start_spindle(spindle_run, mode, "fallback_policy require")
    ports = haproxy(srv.port)
    assert is_refused(srv.port, b"GET /server_vars.php HTTP/1.1\r\nHost: x\r\n\r\n")
    # The proxy still gets through afterwards.
    assert through(ports["v2"])[0]["REMOTE_ADDR"] == CLIENT


@pytest.mark.parametrize("header", [
    b"PROXY TCP4 not-an-address 127.0.0.1 1 2\r\n",
    b"PROXY TCP4 198.51.100.1 127.0.0.1 1 2\n",
    b"PROXY " + b"9" * 200 + b"\r\n",
    b"PROXY TCP6 198.51.100.1 127.0.0.1 1 2\r\n",
    b"\r\n\r\n\x00\r\nQUIT\n\x21\x11\x00\x04\x01\x02\x03\x04",  # v2 IPv4 cut short
    b"\r\n\r\n\x00\r\nQUIT\n\x31\x11\x00\x0c" + bytes(12),  # v2 version 3
    b"\r\n\r\n\x00\r\nQUIT\n\x21\x11\xff\xff" + bytes(64),  # v2 length over the limit
])
def test_malformed_headers_are_closed_and_the_server_goes_on(spindle_run, mode, haproxy,
                                                             header):
    srv = start_spindle(spindle_run, mode, "fallback_policy use")
    ports = haproxy(srv.port)
    assert is_refused(srv.port, header + b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert srv.is_alive()
    assert through(ports["v1"])[0]["REMOTE_ADDR"] == CLIENT


def test_allow_deny_and_fallback_policies(spindle_run, mode, haproxy):
    # HAProxy (127.0.0.4) is denied; 127.0.0.1 is allowed; others fall back to ignore: a
    # header is read and dropped, the peer's address stays.
    srv = start_spindle(spindle_run, mode,
                        f"allow 127.0.0.1/32\n\t\t\t\tdeny {HAPROXY_SOURCE}/32\n"
                        "\t\t\t\tfallback_policy ignore")
    ports = haproxy(srv.port)
    # Denied: HAProxy's connection is closed, so the client gets no response.
    with Conn(ports["v2"], source=CLIENT, timeout=5) as conn:
        conn.send(b"GET /server_vars.php HTTP/1.1\r\nHost: x\r\n\r\n")
        assert conn.wait_closed(5)
    header = b"PROXY TCP4 198.51.100.9 127.0.0.1 4444 80\r\n"
    request = b"GET /server_vars.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    # Allowed peer: its header's address is used.
    with Conn(srv.port, source="127.0.0.1") as conn:
        conn.send(header + request)
        r = conn.read_response()
    assert r.json()["REMOTE_ADDR"] == "198.51.100.9" and r.json()["REMOTE_PORT"] == "4444", r
    # Fallback ignore: the header is taken off the stream, the address is the peer's.
    with Conn(srv.port, source="127.0.0.5") as conn:
        conn.send(header + request)
        r = conn.read_response()
    assert r.json()["REMOTE_ADDR"] == "127.0.0.5", r
    # And without a header, ignore serves the request as it came.
    with Conn(srv.port, source="127.0.0.5") as conn:
        conn.send(request)
        assert conn.read_response().json()["REMOTE_ADDR"] == "127.0.0.5"


def test_timeout_local_command_and_trusted_proxies_after_the_header(spindle_run, mode):
    srv = start_spindle(spindle_run, mode, "timeout 300ms\n\t\t\t\tfallback_policy require",
                        trusted="trusted_proxies static 198.51.100.0/24")
    # A peer that connects and says nothing is closed at the timeout.
    with Conn(srv.port, source=CLIENT, timeout=5) as conn:
        started = time.monotonic()
        assert conn.wait_closed(4)
        assert time.monotonic() - started < 3
    # v2 LOCAL (a proxy's own health check): the connection keeps its peer address.
    local = b"\r\n\r\n\x00\r\nQUIT\n\x20\x00\x00\x00"
    with Conn(srv.port, source=CLIENT) as conn:
        conn.send(local + b"GET /server_vars.php HTTP/1.1\r\nHost: x\r\n\r\n")
        assert conn.read_response().json()["REMOTE_ADDR"] == CLIENT
    # The address from the header is the peer trusted_proxies judges: a trusted proxy behind
    # the PROXY hop names the client with X-Forwarded-For.
    v2 = (b"\r\n\r\n\x00\r\nQUIT\n\x21\x11\x00\x0c" + socket.inet_aton("198.51.100.20")
          + socket.inet_aton("127.0.0.1") + struct.pack("!HH", 5555, 80))
    with Conn(srv.port, source=CLIENT) as conn:
        conn.send(v2 + b"GET /server_vars.php HTTP/1.1\r\nHost: x\r\n"
                       b"X-Forwarded-For: 203.0.113.50\r\n\r\n")
        assert conn.read_response().json()["REMOTE_ADDR"] == "203.0.113.50"

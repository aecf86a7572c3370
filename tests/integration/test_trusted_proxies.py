"""Behind a reverse proxy: trusted_proxies (Caddy's global `servers` option), its php-server
flags --trusted-proxies and --trusted-proxies-strict, and what a trusted peer's
X-Forwarded-For / -Proto / -Port / -Host and RFC 7239 Forwarded headers change: REMOTE_ADDR,
REMOTE_PORT, HTTPS, REQUEST_SCHEME, SERVER_PORT, HTTP_HOST, SERVER_NAME, the access log and
/threads. The test client connects from 127.0.0.1 (the trusted proxy) or from 127.0.0.2 (an
untrusted peer), two loopback addresses the server tells apart."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

import pytest

from spindle_harness import FIXTURES
from spindle_http import Conn

TRUSTED = "127.0.0.1"
UNTRUSTED = "127.0.0.2"


def wait_until(condition, timeout=10.0, message="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {message}")


def server_vars(srv, headers, source=TRUSTED, host_header=None):
    with Conn(srv.port, source=source, host_header=host_header) as conn:
        r = conn.request("GET", "/server_vars.php", headers=headers)
    assert r.status == 200, r
    return r.json()


def worker_line(mode):
    """The php_server block line that runs the sapi fixtures as workers in worker mode."""
    if mode == "classic":
        return ""
    return f"worker {FIXTURES / 'sapi' / 'server_vars.php'} 1"


def test_a_trusted_proxy_names_the_client(spindle):
    srv = spindle("sapi", "--trusted-proxies", "127.0.0.1/32")
    s = server_vars(srv, {"X-Forwarded-For": "203.0.113.5"})
    assert s["REMOTE_ADDR"] == "203.0.113.5", s
    assert s["REMOTE_HOST"] == "203.0.113.5", s
    # No port was forwarded: not the proxy's own.
    assert s["REMOTE_PORT"] == "0", s
    # The header itself still reaches the app, as it does behind nginx.
    assert s["HTTP_X_FORWARDED_FOR"] == "203.0.113.5", s
    # Without forwarding headers the peer is the client.
    plain = server_vars(srv, {})
    assert plain["REMOTE_ADDR"] == TRUSTED and plain["REMOTE_PORT"] != "0", plain


def test_left_most_address_by_default_right_most_untrusted_when_strict(spindle):
    # The client wrote the first entry itself; the proxies appended the others.
    chain = {"X-Forwarded-For": "6.6.6.6, 203.0.113.5, 127.0.0.9"}
    loose = spindle("sapi", "--trusted-proxies", "127.0.0.0/8")
    assert server_vars(loose, chain)["REMOTE_ADDR"] == "6.6.6.6"
    strict = spindle("sapi", "--trusted-proxies", "127.0.0.0/8", "--trusted-proxies-strict")
    assert server_vars(strict, chain)["REMOTE_ADDR"] == "203.0.113.5"
    # Repeated X-Forwarded-For fields are one list.
    split = server_vars(strict, [("X-Forwarded-For", "6.6.6.6"),
                                 ("X-Forwarded-For", "198.51.100.7, 127.0.0.9")])
    assert split["REMOTE_ADDR"] == "198.51.100.7", split


def test_scheme_and_port_from_x_forwarded_proto_and_port(spindle):
    srv = spindle("sapi", "--trusted-proxies", "private_ranges")
    s = server_vars(srv, {"X-Forwarded-Proto": "https", "X-Forwarded-Port": "8443"},
                    host_header="shop.example")
    assert s["HTTPS"] == "on" and s["REQUEST_SCHEME"] == "https", s
    assert s["SERVER_PORT"] == "8443", s
    # The proxy ended TLS: there is no protocol or cipher of this connection to report.
    assert s["SSL_PROTOCOL"] == "", s
    # Without X-Forwarded-Port, the scheme's port.
    s = server_vars(srv, {"X-Forwarded-Proto": "https"}, host_header="shop.example")
    assert s["SERVER_PORT"] == "443" and s["HTTPS"] == "on", s
    s = server_vars(srv, {"X-Forwarded-Proto": "http"}, host_header="shop.example")
    assert s["SERVER_PORT"] == "80" and s["HTTPS"] == "", s


SPOOFS = {
    "X-Forwarded-For": ("203.0.113.66", lambda s: s["REMOTE_ADDR"] == UNTRUSTED),
    "X-Forwarded-Proto": ("https", lambda s: s["HTTPS"] == "" and s["REQUEST_SCHEME"] == "http"),
    "X-Forwarded-Port": ("443", lambda s: s["SERVER_PORT"] != "443"),
    "X-Forwarded-Host": ("evil.example", lambda s: s["SERVER_NAME"] == "127.0.0.1"
                         and s["HTTP_HOST"].startswith("127.0.0.1:")),
    "Forwarded": ('for="[2001:db8::66]:1";proto=https;host=evil.example',
                  lambda s: s["REMOTE_ADDR"] == UNTRUSTED and s["HTTPS"] == ""
                  and s["SERVER_NAME"] == "127.0.0.1"),
}


@pytest.mark.parametrize("header", sorted(SPOOFS))
def test_an_untrusted_peer_cannot_spoof(spindle, header):
    srv = spindle("sapi", "--trusted-proxies", "127.0.0.1/32")
    value, unchanged = SPOOFS[header]
    s = server_vars(srv, {header: value}, source=UNTRUSTED)
    assert unchanged(s), s
    assert s["REMOTE_ADDR"] == UNTRUSTED, s
    # The same header from the trusted peer does change something, or the check above
    # would pass for a server that ignores the header altogether.
    if header in ("X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Port", "Forwarded"):
        assert not unchanged(server_vars(srv, {header: value})), header


def test_no_trusted_proxies_means_no_header_counts(spindle):
    srv = spindle("sapi")
    s = server_vars(srv, {"X-Forwarded-For": "203.0.113.5", "X-Forwarded-Proto": "https",
                          "Forwarded": "for=203.0.113.6;proto=https"})
    assert s["REMOTE_ADDR"] == TRUSTED and s["HTTPS"] == "", s


def test_rfc7239_forwarded(spindle):
    srv = spindle("sapi", "--trusted-proxies", "127.0.0.1/32")
    s = server_vars(srv, {"Forwarded": 'for="[2001:db8:cafe::17]:4711";proto=https'})
    assert s["REMOTE_ADDR"] == "2001:db8:cafe::17" and s["REMOTE_PORT"] == "4711", s
    assert s["HTTPS"] == "on" and s["REQUEST_SCHEME"] == "https", s
    # An obfuscated identifier (RFC 7239 6.3) names no address: the peer stays.
    hidden = server_vars(srv, {"Forwarded": "for=_gazonk;proto=http"})
    assert hidden["REMOTE_ADDR"] == TRUSTED and hidden["HTTPS"] == "", hidden
    # X-Forwarded-For comes first in client_ip_headers.
    both = server_vars(srv, {"Forwarded": "for=198.51.100.1", "X-Forwarded-For": "198.51.100.2"})
    assert both["REMOTE_ADDR"] == "198.51.100.2", both


def test_access_log_shows_the_client(spindle):
    srv = spindle("sapi", "--trusted-proxies", "127.0.0.1/32", "--access-log")
    server_vars(srv, {"X-Forwarded-For": "203.0.113.5"})
    server_vars(srv, {"X-Forwarded-For": "203.0.113.99"}, source=UNTRUSTED)
    srv.wait_for_log(r'^.*127\.0\.0\.2 "GET /server_vars\.php HTTP/1\.1" 200 ')
    lines = [r.text for r in srv.records() if r.logger == "access" and "server_vars" in r.text]
    assert any(line.startswith('203.0.113.5 "GET /server_vars.php') for line in lines), lines
    assert any(line.startswith('127.0.0.2 "GET /server_vars.php') for line in lines), lines
    assert not any("203.0.113.99" in line for line in lines), lines


def test_threads_view_shows_the_client(spindle):
    srv = spindle("http", "--trusted-proxies", "127.0.0.1/32", "--admin", "127.0.0.1:0")
    conn = Conn(srv.port)
    done = threading.Event()

    def slow():
        try:
            conn.request("GET", "/sleep.php?ms=1500", headers={"X-Forwarded-For": "198.51.100.23"})
        finally:
            done.set()

    thread = threading.Thread(target=slow)
    thread.start()
    try:
        def running():
            threads = srv.admin("GET", "/threads").json()["threads"]
            return [t["request"] for t in threads if t["request"]
                    and t["request"]["uri"].startswith("/sleep.php")]
        wait_until(lambda: running(), message="the slow request running")
        request = running()[0]
        assert request["client"] == "198.51.100.23", request
        assert request["method"] == "GET", request
    finally:
        thread.join(timeout=10)
        conn.close()
    assert done.is_set()


def test_caddyfile_host_and_json_names(spindle_run, mode):
    caddyfile = f"""{{
	servers {{
		trusted_proxies static 10.0.0.0/8 127.0.0.1/32
		trusted_proxies_host
		client_ip_headers X-Real-IP X-Forwarded-For
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
    srv = spindle_run(caddyfile)
    s = server_vars(srv, {"X-Real-IP": "198.51.100.8", "X-Forwarded-For": "198.51.100.9",
                          "X-Forwarded-Host": "www.example.com:8443",
                          "X-Forwarded-Proto": "https"})
    assert s["REMOTE_ADDR"] == "198.51.100.8", s
    assert s["SERVER_NAME"] == "www.example.com" and s["HTTP_HOST"] == "www.example.com:8443", s
    assert s["SERVER_PORT"] == "8443" and s["HTTPS"] == "on", s
    spoofed = server_vars(srv, {"X-Forwarded-Host": "evil.example"}, source=UNTRUSTED)
    assert spoofed["SERVER_NAME"] == "127.0.0.1", spoofed


def test_json_configuration(spindle_run, mode, tmp_path):
    site = {"listen": ["127.0.0.1:0"], "root": str(FIXTURES / "sapi")}
    if mode == "worker":
        site["workers"] = [{"file": str(FIXTURES / "sapi" / "server_vars.php"), "num": 1}]
    document = {
        "http": {"trusted_proxies": {"source": "static", "ranges": ["127.0.0.1/32"]},
                 "trusted_proxies_strict": 1, "client_ip_headers": ["Forwarded"]},
        "sites": [site],
    }
    srv = spindle_run(json.dumps(document), name="spindle.json")
    s = server_vars(srv, {"Forwarded": "for=6.6.6.6, for=203.0.113.5, for=127.0.0.1",
                          "X-Forwarded-For": "198.51.100.1"})
    assert s["REMOTE_ADDR"] == "203.0.113.5", s


@pytest.fixture
def socket_path():
    directory = tempfile.mkdtemp(prefix="spindle-sock-")
    yield os.path.join(directory, "spindle.sock")
    shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.parametrize("trust_unix", [True, False])
def test_a_unix_socket_peer_can_be_trusted(spindle_run, mode, socket_path, trust_unix):
    caddyfile = f"""{{
	servers {{
		trusted_proxies static 192.0.2.0/24
		{'trusted_proxies_unix' if trust_unix else ''}
	}}
}}
http://:0 {{
	bind 127.0.0.1 unix/{socket_path}
	root {FIXTURES / 'sapi'}
	php_server {{
		{worker_line(mode)}
	}}
}}
"""
    srv = spindle_run(caddyfile)
    with Conn(None, unix_path=socket_path) as conn:
        s = conn.request("GET", "/server_vars.php", headers={
            "X-Forwarded-For": "203.0.113.5", "X-Forwarded-Proto": "https"}).json()
    if trust_unix:
        assert s["REMOTE_ADDR"] == "203.0.113.5" and s["HTTPS"] == "on", s
    else:
        assert s["REMOTE_ADDR"] == "127.0.0.1" and s["HTTPS"] == "", s
    # TCP peers on 127.0.0.1 are not in the ranges either way.
    assert server_vars(srv, {"X-Forwarded-For": "203.0.113.5"})["REMOTE_ADDR"] == TRUSTED


@pytest.mark.classic_only
def test_bad_ranges_are_config_errors(spindle_binary, tmp_path):
    flag = subprocess.run([spindle_binary, "php-server", "--trusted-proxies", "10.0.0.0/33",
                           "--admin", "off"], capture_output=True, text=True, timeout=30)
    assert flag.returncode != 0
    assert '"10.0.0.0/33" is not an IP range: the prefix length is above 32' in flag.stderr
    path = tmp_path / "Caddyfile"
    path.write_text("{\n\tservers {\n\t\ttrusted_proxies static 10.0.0.0/8 nonsense\n\t}\n}\n"
                    ":8080 {\n\tphp_server\n}\n")
    adapted = subprocess.run([spindle_binary, "validate", "--config", str(path)],
                             capture_output=True, text=True, timeout=30)
    assert adapted.returncode != 0
    assert re.search(rf"{re.escape(str(path))}:3\b.*\"nonsense\" is not an IP range",
                     adapted.stderr), adapted.stderr

"""Automatic HTTPS against a real ACME CA: pebble (tests/integration/acme_ca.py) on 127.0.0.1
validates Spindle's HTTP-01 and TLS-ALPN-01 answers through its own DNS stub, issues the
certificates, and Spindle serves them without a restart. Covers first issuance by each
challenge, two sites with their own names on one listener (SNI), renewal of a short-lived
certificate while clients keep connecting, the CA down at start (self-signed fallback, then
issuance), a broken account key file, `tls internal`, the redirect that spares the challenge
path, and the expiry gauges on /metrics."""

import json
import re
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path

import pytest

from acme_ca import AcmeCA
from spindle_harness import free_port
from spindle_http import Conn


def caddyfile(ca, http_port, https_port, storage, sites, extra="", admin_port=None):
    admin = f"\tadmin 127.0.0.1:{admin_port}\n" if admin_port else ""
    return (f"{{\n{admin}\thttp_port {http_port}\n\thttps_port {https_port}\n"
            f"\temail ops@example.test\n\tacme_ca {ca.directory}\n"
            f"\tacme_ca_root {ca.tls_root}\n\tstorage file_system {storage}\n{extra}}}\n" +
            "".join(f"{name} {{\n\tbind 127.0.0.1\n\trespond \"site {name}\"\n}}\n"
                    for name in sites))


def handshake(port, name, cafile=None):
    """(peer certificate as a dict or None, DER) of a TLS handshake with SNI `name`; verified
    against `cafile` when given."""
    context = ssl.create_default_context(cafile=str(cafile)) if cafile else \
        ssl._create_unverified_context()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=name) as tls:
            return tls.getpeercert(), tls.getpeercert(binary_form=True)


def https_get(port, name, cafile, path="/"):
    """One request on a new verified connection: the body."""
    context = ssl.create_default_context(cafile=str(cafile))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=name) as tls:
            tls.sendall(f"GET {path} HTTP/1.1\r\nHost: {name}\r\nConnection: close\r\n\r\n"
                        .encode())
            data = b""
            while chunk := tls.recv(65536):
                data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    return body


def wait_for_trusted(port, name, ca, timeout=30):
    """Waits until `name` is served with a certificate pebble issued; returns its DER."""
    root = ca.issuing_root()
    deadline = time.monotonic() + timeout
    while True:
        try:
            return handshake(port, name, root)[1]
        except (ssl.SSLError, OSError) as e:
            assert time.monotonic() < deadline, f"no trusted certificate for {name}: {e}"
            time.sleep(0.2)


def subject_alt_names(port, name, cafile):
    cert, _ = handshake(port, name, cafile)
    return sorted(value for kind, value in cert["subjectAltName"])


@pytest.fixture
def acme(tmp_path):
    """Factory: acme(http_port, https_port, validity=None, port=None) -> a started AcmeCA,
    stopped after the test."""
    started = []

    def start(http_port, https_port, validity=None, port=None, run=True):
        ca = AcmeCA(tmp_path / f"pebble-{len(started)}", http_port, https_port, validity, port)
        started.append(ca)
        return ca.start() if run else ca

    yield start
    for ca in started:
        ca.stop()


def test_http01_issuance_redirect_and_metrics(spindle_run, acme, tmp_path):
    http_port, https_port, admin_port = free_port(), free_port(), free_port()
    ca = acme(http_port, https_port)
    storage = tmp_path / "data"
    server = spindle_run(caddyfile(ca, http_port, https_port, storage, ["a.test"],
                                   admin_port=admin_port), warmup=None)
    wait_for_trusted(https_port, "a.test", ca)
    root = ca.issuing_root()
    assert https_get(https_port, "a.test", root) == b"site a.test"
    assert subject_alt_names(https_port, "a.test", root) == ["a.test"]
    assert "a.test: answering the http-01 challenge" in server.log()
    # Caddy's storage layout: the issuer is the directory URL, ':' and '/' made '-'.
    issuer = f"127.0.0.1-{ca.port}-dir"
    crt = storage / "certificates" / issuer / "a.test" / "a.test.crt"
    key = storage / "certificates" / issuer / "a.test" / "a.test.key"
    assert crt.read_text().count("BEGIN CERTIFICATE") >= 2  # leaf and intermediate
    assert key.stat().st_mode & 0o777 == 0o600
    account = storage / "acme" / issuer / "users" / "ops@example.test" / "ops.key"
    assert account.stat().st_mode & 0o777 == 0o600
    # Plain HTTP redirects to HTTPS; an unknown challenge token is not answered by ACME.
    with Conn(http_port, host_header="a.test") as conn:
        response = conn.request("GET", "/page?x=1")
        assert response.status == 308
        assert response.header("Location") == f"https://a.test:{https_port}/page?x=1"
        assert conn.request("GET", "/.well-known/acme-challenge/unknown").status == 308
    metrics = server.admin("GET", "/metrics").text
    expiry = re.search(r'spindle_tls_certificate_expiry_seconds\{name="a.test"\} (\d+)', metrics)
    assert expiry, metrics
    assert int(expiry.group(1)) > time.time() + 24 * 3600
    assert 'spindle_tls_certificate_fallback{name="a.test"} 0' in metrics


def test_restart_reuses_the_stored_certificate(spindle_run, acme, tmp_path):
    http_port, https_port = free_port(), free_port()
    ca = acme(http_port, https_port)
    storage = tmp_path / "data"
    text = caddyfile(ca, http_port, https_port, storage, ["a.test"])
    server = spindle_run(text, warmup=None)
    first = wait_for_trusted(https_port, "a.test", ca)
    assert server.terminate() == 0
    server = spindle_run(text, warmup=None)
    assert handshake(https_port, "a.test", ca.issuing_root())[1] == first
    assert "a.test: using the stored certificate" in server.log()


def test_tls_alpn01_issuance_for_two_sites_on_one_listener(spindle_run, acme, tmp_path):
    # No redirects: nothing listens on the HTTP port, so only TLS-ALPN-01 can be answered.
    http_port, https_port = free_port(), free_port()
    ca = acme(http_port, https_port)
    server = spindle_run(caddyfile(ca, http_port, https_port, tmp_path / "data",
                                   ["a.test", "b.test"], extra="\tauto_https disable_redirects\n"),
                         warmup=None)
    wait_for_trusted(https_port, "a.test", ca)
    wait_for_trusted(https_port, "b.test", ca)
    root = ca.issuing_root()
    # SNI picks each site's own certificate; Host picks the site.
    assert subject_alt_names(https_port, "a.test", root) == ["a.test"]
    assert subject_alt_names(https_port, "b.test", root) == ["b.test"]
    assert https_get(https_port, "b.test", root) == b"site b.test"
    log = server.log()
    assert "a.test: answering the tls-alpn-01 challenge" in log
    assert "b.test: answering the tls-alpn-01 challenge" in log
    assert "http-01" not in log
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", http_port), timeout=2).close()


def test_renewal_of_a_short_lived_certificate_under_load(spindle_run, acme, tmp_path):
    # 30 s certificates: renewed 10 s before they end, while clients keep making new
    # connections (each a handshake verified against pebble's root) and one wrk run keeps
    # its own; none may fail.
    http_port, https_port = free_port(), free_port()
    ca = acme(http_port, https_port, validity=30)
    server = spindle_run(caddyfile(ca, http_port, https_port, tmp_path / "data", ["a.test"]),
                         warmup=None)
    first = wait_for_trusted(https_port, "a.test", ca)
    root = ca.issuing_root()
    seen, failures, requests = {first}, [], [0]
    stop = threading.Event()

    def client():
        while not stop.is_set():
            try:
                context = ssl.create_default_context(cafile=str(root))
                with socket.create_connection(("127.0.0.1", https_port), timeout=10) as raw:
                    with context.wrap_socket(raw, server_hostname="a.test") as tls:
                        seen.add(tls.getpeercert(binary_form=True))
                        tls.sendall(b"GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
                        data = b""
                        while chunk := tls.recv(65536):
                            data += chunk
                        assert data.startswith(b"HTTP/1.1 200") and data.endswith(b"site a.test")
                        requests[0] += 1
            except Exception as e:  # every failure is reported, none stops the others
                failures.append(repr(e))

    threads = [threading.Thread(target=client) for _ in range(3)]
    for t in threads:
        t.start()
    wrk = subprocess.run(["wrk", "-t1", "-c4", "-d26s", "-H", "Host: a.test",
                          f"https://127.0.0.1:{https_port}/"],
                         capture_output=True, text=True, timeout=60)
    stop.set()
    for t in threads:
        t.join(timeout=15)
    # The figures, for a run with -s.
    print(f"renewal under load: {requests[0]} verified new-connection requests, "
          f"{len(seen)} certificates seen, wrk: "
          + " ".join(line.strip() for line in wrk.stdout.splitlines() if "requests in" in line))
    assert not failures, failures[:5]
    assert requests[0] > 50
    # At least one renewal (26 s of a 30 s certificate renewed at 20 s) reached new handshakes.
    assert len(seen) >= 2, server.log()
    assert "new certificate from" in server.log()
    assert wrk.returncode == 0, wrk.stderr
    assert "Non-2xx" not in wrk.stdout and "Socket errors" not in wrk.stdout, wrk.stdout


def test_ca_down_at_start_serves_a_fallback_then_issues(spindle_run, acme, tmp_path):
    http_port, https_port, admin_port = free_port(), free_port(), free_port()
    ca = acme(http_port, https_port, run=False)
    server = spindle_run(caddyfile(ca, http_port, https_port, tmp_path / "data", ["a.test"],
                                   admin_port=admin_port), warmup=None)
    # At once: a self-signed stand-in for the name, and a warning saying why.
    cert, der = handshake(https_port, "a.test")
    assert der
    metrics = server.admin("GET", "/metrics").text
    assert 'spindle_tls_certificate_fallback{name="a.test"} 1' in metrics
    deadline = time.monotonic() + 10
    while "cannot obtain a certificate (attempt 1)" not in server.log():
        assert time.monotonic() < deadline, server.log()
        time.sleep(0.1)
    assert "serving the self-signed fallback meanwhile" in server.log()
    assert "no certificate from" in server.log()
    # The CA comes back: the next retry (5 s, then 10 s after the first failures) gets it.
    ca.start()
    wait_for_trusted(https_port, "a.test", ca, timeout=40)
    assert 'spindle_tls_certificate_fallback{name="a.test"} 0' in \
        server.admin("GET", "/metrics").text


def test_bad_account_key_file_stops_the_start(spindle_binary, acme, tmp_path):
    http_port, https_port = free_port(), free_port()
    ca = acme(http_port, https_port, run=False)
    storage = tmp_path / "data"
    key = storage / "acme" / f"127.0.0.1-{ca.port}-dir" / "users" / "ops@example.test" / "ops.key"
    key.parent.mkdir(parents=True)
    key.write_text("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
    config = tmp_path / "Caddyfile"
    config.write_text(caddyfile(ca, http_port, https_port, storage, ["a.test"]).replace(
        "{\n", "{\n\tadmin off\n", 1))
    result = subprocess.run([spindle_binary, "run", "--config", str(config)], capture_output=True,
                            text=True, timeout=30)
    assert result.returncode != 0
    assert f"ACME account key {key}: not a PEM private key" in result.stderr, result.stderr
    assert "fix or remove the file" in result.stderr


def test_tls_internal_signs_with_a_stored_local_ca(spindle_run, tmp_path):
    https_port = free_port()
    storage = tmp_path / "data"
    server = spindle_run(f"{{\n\thttps_port {https_port}\n\tauto_https disable_redirects\n"
                         f"\tstorage file_system {storage}\n}}\n"
                         "app.localhost {\n\tbind 127.0.0.1\n\trespond \"local\"\n}\n"
                         "a.test {\n\tbind 127.0.0.1\n\ttls internal\n\trespond \"internal\"\n}\n",
                         warmup=None)
    root = storage / "pki" / "authorities" / "local" / "root.crt"
    assert (storage / "pki" / "authorities" / "local" / "root.key").stat().st_mode & 0o777 == 0o600
    assert https_get(https_port, "app.localhost", root) == b"local"
    assert https_get(https_port, "a.test", root) == b"internal"
    assert subject_alt_names(https_port, "a.test", root) == ["a.test"]
    assert server.is_alive()


def test_json_config_managed_certificates(spindle_run, acme, tmp_path):
    # The JSON equivalents: "acme", "storage" and a site's "tls": {"issuer": ...}.
    http_port, https_port = free_port(), free_port()
    ca = acme(http_port, https_port)
    storage = tmp_path / "data"
    document = {
        "acme": {"ca": ca.directory, "email": "ops@example.test",
                 "trusted_roots_pem_files": [str(ca.tls_root)]},
        "storage": {"module": "file_system", "root": str(storage)},
        "sites": [
            {"listen": [f"https://127.0.0.1:{https_port}"], "hosts": ["a.test"],
             "tls": {"issuer": "acme"}, "redirect_to_https": [f"127.0.0.1:{http_port}"],
             "php": False, "file_server": False, "respond": [{"body": "acme"}]},
            {"listen": [f"https://127.0.0.1:{https_port}"], "hosts": ["b.test"],
             "tls": {"issuer": "internal"}, "php": False, "file_server": False,
             "respond": [{"body": "internal"}]},
        ],
    }
    server = spindle_run(json.dumps(document), name="spindle.json", warmup=None)
    wait_for_trusted(https_port, "a.test", ca)
    assert https_get(https_port, "a.test", ca.issuing_root()) == b"acme"
    local_root = storage / "pki" / "authorities" / "local" / "root.crt"
    assert https_get(https_port, "b.test", local_root) == b"internal"
    assert server.is_alive()

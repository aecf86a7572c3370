"""HTTPS end to end: real TLS handshakes with Python's ssl module, `openssl s_client` and
`curl --cacert` against certificates made here with the openssl CLI. Covers the $_SERVER values
(classic and worker), SNI selection across sites, the HTTP->HTTPS redirect, a plain request on
the HTTPS port, static files over TLS, broken ClientHellos, certificate reloads (SIGHUP and the
admin endpoint), configuration errors and `spindle cert`."""

import json
import os
import re
import signal
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path

import pytest

from spindle_harness import free_port
from spindle_http import Conn, build_request

LISTEN = re.compile(r"listening on (https?)://127\.0\.0\.1:(\d+)")


# --- certificates --------------------------------------------------------------------------


def openssl(*args, cwd):
    result = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout


def make_leaf(directory, name, sans, ca="ca"):
    """A certificate NAME.crt/NAME.key for subjectAltNames `sans`, signed by CA.crt."""
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.crt", "-days", "2", "-subj", f"/CN={name}",
            "-addext", "subjectAltName=" + ",".join(sans),
            "-addext", "basicConstraints=critical,CA:FALSE",
            "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key", cwd=directory)
    return directory / f"{name}.crt", directory / f"{name}.key"


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """A CA and leaves: "local" (127.0.0.1, localhost), "a.test", "wild" (*.b.test)."""
    directory = tmp_path_factory.mktemp("certs")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=Spindle test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", cwd=directory)
    make_leaf(directory, "local", ["IP:127.0.0.1", "DNS:localhost"])
    make_leaf(directory, "a.test", ["DNS:a.test"])
    make_leaf(directory, "wild", ["DNS:*.b.test"])
    return directory


def client_context(certs, maximum=None):
    context = ssl.create_default_context(cafile=str(certs / "ca.crt"))
    if maximum is not None:
        context.maximum_version = maximum
    return context


def tls_connect(port, context, server_hostname="127.0.0.1", timeout=10.0):
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        return context.wrap_socket(raw, server_hostname=server_hostname)
    except Exception:
        raw.close()
        raise


def read_response(sock):
    """One HTTP/1.1 response with Content-Length from a TLS socket: (status, headers, body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed before the response head: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "connection closed inside the body"
        body += chunk
    return status, headers, body[:length]


def https_get(port, context, target="/", host="127.0.0.1"):
    with tls_connect(port, context, host) as sock:
        sock.sendall(build_request("GET", target, host=host, headers={"Connection": "close"}))
        return read_response(sock)


def ports(server, count=1):
    """{"http": [...], "https": [...]}: the ports the server logged it listens on, once it has
    logged at least `count` of them (the server is ready at the first; the others follow)."""
    deadline = time.monotonic() + 5
    while True:
        found = {"http": [], "https": []}
        for scheme, port in LISTEN.findall(server.log()):
            found[scheme].append(int(port))
        if sum(map(len, found.values())) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.02)



def s_client(port, servername, certs):
    """`openssl s_client` handshake: (subject line, verify result line)."""
    result = subprocess.run(
        ["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-servername", servername,
         "-CAfile", str(certs / "ca.crt"), "-verify_hostname", servername],
        input="", capture_output=True, text=True, timeout=20)
    subject = re.search(r"^subject=(.*)$", result.stdout, re.MULTILINE)
    verify = re.search(r"Verify return code: (\d+)", result.stdout)
    assert subject and verify, result.stdout + result.stderr
    return subject.group(1), int(verify.group(1))


def curl(*args):
    result = subprocess.run(["curl", "-sS", "--max-time", "20", *args], capture_output=True,
                            timeout=30)
    return result


# --- php-server --tls-cert -----------------------------------------------------------------


def tls_server(spindle, certs, app="sapi", *flags):
    server = spindle(app, "--tls-cert", str(certs / "local.crt"), "--tls-key",
                     str(certs / "local.key"), *flags)
    assert ports(server)["https"] == [server.port]
    return server


@pytest.mark.parametrize("version", [ssl.TLSVersion.TLSv1_3, ssl.TLSVersion.TLSv1_2])
def test_server_variables_over_tls(spindle, mode, certs, version):
    server = tls_server(spindle, certs)
    with tls_connect(server.port, client_context(certs, version)) as sock:
        sock.sendall(build_request("GET", "/server_vars.php?x=1", host=f"127.0.0.1:{server.port}"))
        status, _, body = read_response(sock)
        assert status == 200
        variables = json.loads(body)
        assert variables["HTTPS"] == "on"
        assert variables["REQUEST_SCHEME"] == "https"
        assert variables["SERVER_PORT"] == str(server.port)
        assert variables["SSL_PROTOCOL"] == sock.version()
        assert sock.version() == {"TLSv1_3": "TLSv1.3", "TLSv1_2": "TLSv1.2"}[version.name]
        assert variables["SSL_CIPHER"] == sock.cipher()[0]
        assert variables["REQUEST_URI"]
        # Keep-alive over TLS: a second request on the same connection.
        sock.sendall(build_request("GET", "/server_vars.php?y=2", host="127.0.0.1"))
        status, _, body = read_response(sock)
        assert status == 200
        assert json.loads(body)["QUERY_STRING"] == "y=2"


def test_plain_http_has_empty_tls_variables(spindle, mode):
    # Defined and empty, as FrankenPHP has them.
    server = spindle("sapi")
    variables = server.get("/server_vars.php").json()
    assert variables["REQUEST_SCHEME"] == "http"
    for name in ("HTTPS", "SSL_PROTOCOL", "SSL_CIPHER"):
        assert variables[name] == "", name


def test_curl_with_the_ca_certificate(spindle, certs):
    server = tls_server(spindle, certs, "http")
    result = curl("--cacert", str(certs / "ca.crt"), f"https://127.0.0.1:{server.port}/")
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"hello from index\n"
    # Without the CA the client refuses the certificate: verification is real.
    result = curl(f"https://127.0.0.1:{server.port}/")
    assert result.returncode == 60, result.stderr


@pytest.mark.filterwarnings("ignore:ssl.TLSVersion.TLSv1_1 is deprecated")
def test_tls_1_1_is_refused(spindle, certs):
    server = tls_server(spindle, certs, "http")
    context = client_context(certs)
    context.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED
    context.maximum_version = ssl.TLSVersion.TLSv1_1
    context.set_ciphers("ALL:@SECLEVEL=0")
    with pytest.raises((ssl.SSLError, ConnectionError)):
        tls_connect(server.port, context).close()
    status, _, body = https_get(server.port, client_context(certs))
    assert (status, body) == (200, b"hello from index\n")


def test_static_files_over_tls(spindle, tmp_root, certs):
    root = tmp_root("http")
    blob = os.urandom(3 * 1024 * 1024 + 17)
    (root / "blob.bin").write_bytes(blob)
    server = tls_server(spindle, certs, root)
    status, headers, body = https_get(server.port, client_context(certs), "/blob.bin")
    assert status == 200
    assert int(headers["content-length"]) == len(blob)
    assert body == blob
    # A range goes through the same read+write path.
    with tls_connect(server.port, client_context(certs)) as sock:
        sock.sendall(build_request("GET", "/blob.bin", host="127.0.0.1",
                                   headers={"Range": "bytes=100000-299999"}))
        status, headers, body = read_response(sock)
        assert status == 206
        assert body == blob[100000:300000]


def test_plain_request_on_the_https_port_is_redirected(spindle, certs):
    server = tls_server(spindle, certs, "http")
    with Conn(server.port) as conn:
        response = conn.request("GET", "/a/b?c=d")
        assert response.status == 308
        assert response.header("Location") == f"https://127.0.0.1:{server.port}/a/b?c=d"
        assert response.header("Connection") == "close"
    with Conn(server.port) as conn:
        conn.send("GET / HTTP/1.0\r\n\r\n")
        response = conn.read_response()
        assert response.status == 400
        assert "https://" in response.text


def test_broken_client_hellos_hurt_no_one_else(spindle, certs):
    server = tls_server(spindle, certs, "http", "--admin", "127.0.0.1:0",
                        "--read-header-timeout", "2s")
    # A stalled handshake (a record header and nothing more) and garbage after a TLS record
    # header, while a good client keeps being served.
    stalled = socket.create_connection(("127.0.0.1", server.port))
    stalled.sendall(b"\x16\x03\x01")
    garbage = []
    for _ in range(20):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        s.sendall(b"\x16\x03\x01\x00\x30" + os.urandom(48))
        garbage.append(s)
    results = []

    def good_client():
        for _ in range(10):
            results.append(https_get(server.port, client_context(certs))[0])

    threads = [threading.Thread(target=good_client) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert results == [200] * 30
    for s in garbage:
        # The server answers a bad ClientHello with an alert or simply closes.
        s.settimeout(5)
        try:
            while s.recv(4096):
                pass
        except ConnectionResetError:
            pass
        s.close()
    # The stalled one is closed by the deadline.
    stalled.settimeout(5)
    assert stalled.recv(10) == b""
    stalled.close()
    metrics = server.admin("GET", "/metrics").text
    failed = re.search(r'spindle_tls_handshakes_total\{result="failed"\} (\d+)', metrics)
    completed = re.search(r'spindle_tls_handshakes_total\{result="completed"\} (\d+)', metrics)
    assert int(failed.group(1)) == 20
    assert int(completed.group(1)) == 30
    # Failed handshakes are not logged at info or above: that would be a log flood.
    assert not re.search(r"(?i)handshake", "".join(
        r.text for r in server.records() if r.level not in ("debug", "trace")))


# --- Caddyfile: SNI across sites, redirects ------------------------------------------------


def sni_caddyfile(certs, http_port, https_port, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "plain").mkdir()
    return f"""{{
\thttp_port {http_port}
\thttps_port {https_port}
}}
a.test {{
\tbind 127.0.0.1
\ttls {certs / "a.test.crt"} {certs / "a.test.key"}
\troot * {tmp_path / "a"}
\trespond "site a"
}}
*.b.test {{
\tbind 127.0.0.1
\ttls {certs / "wild.crt"} {certs / "wild.key"}
\troot * {tmp_path / "b"}
\trespond "site b"
}}
http://plain.test {{
\tbind 127.0.0.1
\troot * {tmp_path / "plain"}
\trespond "plain site"
}}
"""


def test_sni_selects_each_sites_certificate(spindle_run, certs, tmp_path):
    http_port, https_port = free_port(), free_port()
    server = spindle_run(sni_caddyfile(certs, http_port, https_port, tmp_path), warmup=None)
    assert ports(server, 2) == {"http": [http_port], "https": [https_port]}
    assert s_client(https_port, "a.test", certs) == ("CN = a.test", 0)
    assert s_client(https_port, "x.b.test", certs) == ("CN = wild", 0)
    # An unknown name gets the listener's default (the first site's) certificate.
    assert s_client(https_port, "unknown.test", certs)[0] == "CN = a.test"
    for host, body in (("a.test", b"site a"), ("x.b.test", b"site b")):
        result = curl("--cacert", str(certs / "ca.crt"), "--resolve",
                      f"{host}:{https_port}:127.0.0.1", f"https://{host}:{https_port}/p")
        assert result.returncode == 0, result.stderr
        assert result.stdout == body


def test_http_requests_for_https_sites_are_redirected(spindle_run, certs, tmp_path):
    http_port, https_port = free_port(), free_port()
    server = spindle_run(sni_caddyfile(certs, http_port, https_port, tmp_path), warmup=None)
    with Conn(http_port, host_header="a.test") as conn:
        response = conn.request("GET", "/x/y?q=1")
        assert response.status == 308
        assert response.header("Location") == f"https://a.test:{https_port}/x/y?q=1"
        # The redirect keeps the connection: the next request on it is answered too.
        response = conn.request("GET", "/z", headers={"Host": "c.b.test:80"})
        assert response.status == 308
        assert response.header("Location") == f"https://c.b.test:{https_port}/z"
    with Conn(http_port, host_header="plain.test") as conn:
        assert conn.request("GET", "/").text == "plain site"
    with Conn(http_port, host_header="other.test") as conn:
        assert conn.request("GET", "/").status == 404
    # curl follows the redirect onto HTTPS and verifies the certificate there.
    result = curl("-L", "--cacert", str(certs / "ca.crt"), "--resolve",
                  f"a.test:{http_port}:127.0.0.1", "--resolve", f"a.test:{https_port}:127.0.0.1",
                  f"http://a.test:{http_port}/followed")
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"site a"
    assert server.is_alive()


def test_auto_https_disable_redirects(spindle_run, certs, tmp_path):
    https_port = free_port()
    text = f"""{{
\thttps_port {https_port}
\tauto_https disable_redirects
}}
a.test {{
\tbind 127.0.0.1
\ttls {certs / "a.test.crt"} {certs / "a.test.key"}
\trespond "a"
}}
"""
    server = spindle_run(text, warmup=None)
    assert ports(server) == {"http": [], "https": [https_port]}


# --- reload --------------------------------------------------------------------------------


def served_subject(port, certs):
    return s_client(port, "127.0.0.1", certs)[0]


def test_sighup_and_admin_reload_swap_certificates_for_new_handshakes(spindle, certs, tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    make_leaf(certs, "one", ["IP:127.0.0.1"])
    make_leaf(certs, "two", ["IP:127.0.0.1"])
    live_cert, live_key = tmp_path / "live.crt", tmp_path / "live.key"
    live_cert.write_bytes((certs / "one.crt").read_bytes())
    live_key.write_bytes((certs / "one.key").read_bytes())
    server = spindle("http", "--tls-cert", str(live_cert), "--tls-key", str(live_key),
                     "--admin", "127.0.0.1:0")
    assert served_subject(server.port, certs) == "CN = one"
    # A connection made before the reload keeps working after it.
    before = tls_connect(server.port, client_context(certs))
    before.sendall(build_request("GET", "/", host="127.0.0.1"))
    assert read_response(before)[0] == 200

    live_cert.write_bytes((certs / "two.crt").read_bytes())
    live_key.write_bytes((certs / "two.key").read_bytes())
    os.kill(server.pid, signal.SIGHUP)
    # SIGHUP reloads the whole configuration; the address stays, its certificates are new.
    server.wait_for_log(r"signal 1: configuration applied")
    assert served_subject(server.port, certs) == "CN = two"
    before.sendall(build_request("GET", "/", host="127.0.0.1"))
    assert read_response(before)[0] == 200
    before.close()

    # A broken file on reload: the error is reported, the last good certificate stays.
    live_cert.write_text("not a certificate\n")
    server.expect_errors(r"keeps its previous certificates")
    response = server.admin("POST", "/tls/reload")
    assert response.status == 500
    assert "live.crt" in response.json()["errors"][0]
    assert served_subject(server.port, certs) == "CN = two"

    live_cert.write_bytes((certs / "one.crt").read_bytes())
    live_key.write_bytes((certs / "one.key").read_bytes())
    response = server.admin("POST", "/tls/reload")
    assert response.status == 200
    assert response.json() == {"reloaded": True, "errors": []}
    assert served_subject(server.port, certs) == "CN = one"


# --- configuration errors and spindle cert -------------------------------------------------


def run_cli(binary, *args, cwd=None):
    return subprocess.run([binary, *args], cwd=cwd, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("site, message", [
    ("{\n\tauto_https off\n}\nhttps://a.test {\n\trespond hi\n}\n",
     r"Caddyfile:4: site address \"https://a.test\": auto_https is off"),
    ("a.test {\n\ttls me\n}\n", r"Caddyfile:2: tls me: give tls CERT KEY, tls internal or tls EMAIL"),
    ("a.test {\n\ttls /nonexistent/c.pem /nonexistent/k.pem\n\trespond hi\n}\n",
     r"Caddyfile:2: TLS file /nonexistent/c.pem does not exist"),
    ("http://a.test, https://a.test {\n\ttls c k\n}\n",
     r"Caddyfile:1: site address \"http://a.test\": an http:// address cannot share"),
])
def test_tls_configuration_errors_name_file_and_line(spindle_binary, tmp_path, site, message):
    (tmp_path / "Caddyfile").write_text(site)
    result = run_cli(spindle_binary, "validate", "--config", "Caddyfile", cwd=tmp_path)
    assert result.returncode != 0
    assert re.search(message, result.stderr), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_bad_key_stops_the_start_at_its_setting(spindle_binary, certs, tmp_path):
    (tmp_path / "Caddyfile").write_text(
        f"127.0.0.1:0 {{\n\ttls {certs / 'a.test.crt'} {certs / 'wild.key'}\n\trespond hi\n}}\n")
    result = run_cli(spindle_binary, "run", "--config", "Caddyfile", cwd=tmp_path)
    assert result.returncode == 2
    assert re.search(r"Caddyfile:2: private key .*wild.key does not match certificate",
                     result.stderr), result.stderr


def test_php_server_tls_flags_go_together(spindle_binary, certs):
    result = run_cli(spindle_binary, "php-server", "--tls-cert", str(certs / "local.crt"))
    assert result.returncode == 2
    assert "--tls-cert needs --tls-key" in result.stderr
    result = run_cli(spindle_binary, "php-server", "--listen", "https://127.0.0.1:0")
    assert result.returncode == 2
    assert "needs --tls-cert and --tls-key" in result.stderr


def test_spindle_cert_makes_a_usable_local_certificate(spindle_binary, spindle, tmp_path):
    directory = tmp_path / "local-certs"
    result = run_cli(spindle_binary, "cert", "--dir", str(directory), "--host", "127.0.0.1",
                     "--host", "localhost")
    assert result.returncode == 0, result.stderr
    for name in ("ca.crt", "cert.pem", "key.pem"):
        assert str(directory / name) in result.stdout
    assert (directory / "key.pem").stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in directory.iterdir()) == ["ca.crt", "cert.pem", "key.pem"]
    # Never overwritten: a second run fails and leaves the files alone.
    key = (directory / "key.pem").read_bytes()
    again = run_cli(spindle_binary, "cert", "--dir", str(directory))
    assert again.returncode == 1
    assert "File exists" in again.stderr
    assert (directory / "key.pem").read_bytes() == key

    server = spindle("http", "--tls-cert", str(directory / "cert.pem"), "--tls-key",
                     str(directory / "key.pem"))
    for host in ("127.0.0.1", "localhost"):
        result = curl("--cacert", str(directory / "ca.crt"), "--resolve",
                      f"localhost:{server.port}:127.0.0.1", f"https://{host}:{server.port}/")
        assert result.returncode == 0, result.stderr
        assert result.stdout == b"hello from index\n"


@pytest.mark.parametrize("php_mode", ["classic", "worker"])
def test_x_sendfile_hand_off_over_tls(spindle_run, certs, tmp_path, php_mode):
    # sendfile(2) cannot encrypt: a handed-off file goes through the TLS stream in chunks.
    app = Path(__file__).resolve().parent.parent / "fixtures" / "x_sendfile"
    private = tmp_path / "private-files"
    private.mkdir()
    content = os.urandom(300_000)
    (private / "blob.bin").write_bytes(content)
    worker = (f"\t\tworker {{\n\t\t\tfile {app}/send.php\n\t\t\tnum 1\n\t\t}}\n"
              if php_mode == "worker" else "")
    https_port = free_port()
    server = spindle_run(f"""{{
\thttp_port {free_port()}
\thttps_port {https_port}
}}
localhost {{
\tbind 127.0.0.1
\ttls {certs / "local.crt"} {certs / "local.key"}
\troot * {app}
\tphp_server {{
\t\tx_sendfile {private}
{worker}\t}}
}}
""", warmup=None)
    ports(server, 2)
    status, headers, body = https_get(https_port, client_context(certs),
                                      f"/send.php?path={private}/blob.bin", host="localhost")
    assert status == 200, headers
    assert body == content
    assert headers["content-disposition"] == 'attachment; filename="blob.bin"'
    assert "x-sendfile" not in headers

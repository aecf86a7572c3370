"""HTTP/2 end to end (issue 31): h2 over TLS through ALPN and h2c with prior knowledge
on plain listeners as `protocols` chooses, every stream a request for the PHP pool (classic and
worker mode), request bodies across DATA frames, flow-controlled and flushed responses, 103 early
hints, static files and compression, the access log and a graceful stop; then the attacks of
HTTP/2's history, each while an ordinary client keeps being served and with the server's memory
measured before and after: rapid reset (CVE-2023-44487), CONTINUATION flood (CVE-2024-27316 and
kin), HPACK bomb, SETTINGS and PING floods, a zero-window reader, streams beyond
SETTINGS_MAX_CONCURRENT_STREAMS, oversized header lists and a content-length that disagrees with
the DATA frames.

Clients: curl --http2 / --http2-prior-knowledge, nghttp and h2load (nghttp2-client), python3-h2
for requests on many streams and hand-made frames (spindle_h2.py). Fixtures: tests/fixtures/h2/.
"""

import gzip
import hashlib
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path

import h2.settings
import hyperframe.frame as hf
import pytest
import zstandard

from spindle_harness import FIXTURES, executor_fixtures, free_port, rss_bytes
from spindle_h2 import (CANCEL, CONNECTION_SPECIFIC, PREFACE, PROTOCOL_ERROR, REFUSED_STREAM,
                        H2Client, RawH2, request_fields)
from test_tls import make_leaf, openssl

APP = FIXTURES / "h2"
INDEX_BODY = b"hello over h2\n"
STATIC_BODY = (APP / "static.txt").read_bytes()
STYLE = (APP / "style.css").read_bytes()

# What the server's resident memory may grow by across one attack. Every attack here would
# cost tens to hundreds of MiB if the server kept what it is sent (50 MiB of response for the
# zero-window reader, 40 MiB of decoded headers for the HPACK bomb, a million queued acks for the
# floods).
RSS_GROWTH_LIMIT = 24 * 1024 * 1024
# SETTINGS_MAX_CONCURRENT_STREAMS the server announces.
MAX_STREAMS = 128

classic_only = pytest.mark.classic_only
# Tests that read the server's RSS: left out of the sanitizer run (see spindle_harness.py).
measures_rss = pytest.mark.zend_allocator


# --- certificates and servers --------------------------------------------------------------


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """A CA and a leaf for 127.0.0.1 and localhost."""
    directory = tmp_path_factory.mktemp("h2certs")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=Spindle h2 CA",
            "-addext", "basicConstraints=critical,CA:TRUE", cwd=directory)
    make_leaf(directory, "local", ["IP:127.0.0.1", "DNS:localhost"])
    return directory


def client_context(certs):
    return ssl.create_default_context(cafile=str(certs / "ca.crt"))


def tls_server(spindle, certs, *flags, worker_threads=1):
    """php-server on the h2 app over TLS (protocols by default: h1 h2)."""
    return spindle(APP, "--tls-cert", str(certs / "local.crt"), "--tls-key",
                   str(certs / "local.key"), *flags, worker_threads=worker_threads)


def caddyfile(mode, protocols="h1 h2 h2c", servers="", threads=4, worker_threads=1):
    """A Caddyfile serving the h2 app on 127.0.0.1 port 0 (plain HTTP), with `protocols` (None:
    the default), in `mode`: in worker mode every executor-style fixture is a worker on
    `worker_threads` threads (an int, or {fixture name: threads})."""
    workers = ""
    total = threads
    if mode == "worker":
        for path in executor_fixtures(APP):
            num = (worker_threads.get(path.name, 1) if isinstance(worker_threads, dict)
                   else worker_threads)
            total += num
            workers += f"\t\tworker {{\n\t\t\tfile {path}\n\t\t\tnum {num}\n\t\t}}\n"
    if protocols is not None:
        servers = f"\t\tprotocols {protocols}\n" + servers
    servers_block = f"\tservers {{\n{servers}\t}}\n" if servers else ""
    return f"""{{
{servers_block}\tfrankenphp {{
\t\tnum_threads {total}
\t}}
}}
:0 {{
\tbind 127.0.0.1
\troot * {APP}
\tphp_server {{
{workers}\t}}
}}
"""


def h2c_server(spindle_run, mode, **kwargs):
    return spindle_run(caddyfile(mode, **kwargs), warmup="/index.php")


def curl(*args, timeout=30):
    return subprocess.run(["curl", "-sS", "--max-time", "20", *args], capture_output=True,
                          timeout=timeout)


def wait_until(predicate, timeout=10.0, message="the condition"):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {message}")
        time.sleep(0.02)


def lines_in(path):
    try:
        return len(Path(path).read_text().splitlines())
    except FileNotFoundError:
        return 0


def wait_stable(path, quiet=1.0, timeout=20.0):
    """The number of lines of `path` once it stopped growing for `quiet` seconds (or the
    timeout ran out: then the figure it reached)."""
    deadline = time.monotonic() + timeout
    last, since = lines_in(path), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.1)
        now = lines_in(path)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            break
    return last


class Bystander:
    """An ordinary client that keeps being served while an attack runs: a thread sending one
    request after another on fresh connections, alternately HTTP/2 (h2c, or TLS with ALPN h2
    when given a context) for the PHP index and HTTP/1.1 for a static file. check() waits for at
    least `minimum` answers and fails on any wrong one."""

    def __init__(self, server, tls_context=None):
        self.server = server
        self.tls_context = tls_context
        self.ok = 0
        self.failures = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(30)

    def run(self):
        n = 0
        while not self.stop.is_set():
            n += 1
            try:
                if n % 2:
                    with H2Client(self.server.port, self.tls_context, timeout=15) as client:
                        r = client.get("/index.php")
                        good = r.status == 200 and r.body == INDEX_BODY
                else:
                    r = self.server.get("/static.txt", timeout=15)
                    good = r.status == 200 and r.body == STATIC_BODY
                if good:
                    self.ok += 1
                else:
                    self.failures.append(repr(r))
            except Exception as e:  # every failure of an ordinary client is the finding
                self.failures.append(repr(e))
            time.sleep(0.05)

    def check(self, minimum=4, timeout=20.0):
        deadline = time.monotonic() + timeout
        while self.ok < minimum and not self.failures and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not self.failures, f"an ordinary client was not served: {self.failures[:3]}"
        assert self.ok >= minimum, f"an ordinary client got {self.ok} answers in {timeout}s"


def cpu_seconds(pid):
    """utime + stime of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def assert_healthy(server, rss_before, tls_context=None):
    """After an attack: alive, not spinning (CPU while nothing is asked of it), served over
    HTTP/2 and HTTP/1.1, memory grown within bounds."""
    assert server.is_alive(), f"the server died\n{server.log_tail()}"
    cpu = cpu_seconds(server.pid)
    time.sleep(0.5)
    spent = cpu_seconds(server.pid) - cpu
    assert spent < 0.15, f"the server burnt {spent:.2f} s of CPU in 0.5 s with nothing to do"
    with H2Client(server.port, tls_context) as client:
        r = client.get("/index.php")
        assert (r.status, r.body) == (200, INDEX_BODY), r
    if tls_context is None:
        r = server.get("/index.php")
        assert (r.status, r.body) == (200, INDEX_BODY), r
    grown = rss_bytes(server.pid) - rss_before
    # Shown with pytest -s: the figures behind the bound.
    print(f"RSS {rss_before / 2**20:.1f} MiB before, grown by {grown / 2**20:.1f} MiB")
    assert grown < RSS_GROWTH_LIMIT, (
        f"the server's RSS grew by {grown / 2**20:.1f} MiB (limit "
        f"{RSS_GROWTH_LIMIT / 2**20:.0f} MiB)")


def settled_rss(server):
    """RSS once the server has served a few HTTP/2 requests (its buffers and PHP warmed)."""
    with H2Client(server.port) as client:
        for _ in range(5):
            assert client.get("/index.php").status == 200
    return rss_bytes(server.pid)


def handshake(raw):
    """Reads the server's SETTINGS and acknowledges them, as a client does."""
    raw.read_frames(5, until=lambda f: isinstance(f, hf.SettingsFrame) and "ACK" not in f.flags)
    settings = [f for f in raw.frames if isinstance(f, hf.SettingsFrame) and "ACK" not in f.flags]
    assert settings, f"no SETTINGS from the server: {raw.frames}"
    raw.ack_settings()
    return settings[0].settings


# --- negotiation ----------------------------------------------------------------------------


def requests_counted(server, code):
    text = server.admin("GET", "/metrics").text
    match = re.search(r'^spindle_http_requests_total\{code="%s"\} (\d+)' % code, text, re.M)
    return int(match.group(1)) if match else 0


def test_curl_negotiates_h2_over_tls_counted_and_logged_as_http2(spindle, mode, certs):
    server = tls_server(spindle, certs, "--access-log", "--admin", "127.0.0.1:0")
    ok_before, missing_before = requests_counted(server, "2xx"), requests_counted(server, "4xx")
    url = f"https://127.0.0.1:{server.port}/request.php?via=curl"
    result = curl("--http2", "--cacert", str(certs / "ca.crt"), "-w", "\n%{http_version}", url)
    assert result.returncode == 0, result.stderr
    body, _, version = result.stdout.rpartition(b"\n")
    assert version == b"2", result.stdout
    seen = json.loads(body)
    assert seen["protocol"] == "HTTP/2.0"
    assert seen["https"] == "on"
    assert seen["scheme"] == "https"
    assert seen["get"] == {"via": "curl"}
    assert seen["host"] == f"127.0.0.1:{server.port}"
    # Python's ssl module offering both: the server picks h2.
    context = client_context(certs)
    context.set_alpn_protocols(["h2", "http/1.1"])
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as sock:
            assert sock.selected_alpn_protocol() == "h2"
    # A client offering only http/1.1 still gets it.
    result = curl("--http1.1", "--cacert", str(certs / "ca.crt"), "-w", "\n%{http_version}",
                  f"https://127.0.0.1:{server.port}/index.php")
    assert result.returncode == 0, result.stderr
    assert result.stdout == INDEX_BODY + b"\n1.1"
    # /metrics counts HTTP/2 responses as all others: 3 + 1 over h2 (curl's included), 1 over
    # HTTP/1.1.
    with H2Client(server.port, client_context(certs)) as client:
        assert client.get("/index.php").status == 200
        assert client.get("/static.txt").status == 200
        r = client.get("/status.php?code=404")
        assert (r.status, r.body) == (404, b"status 404\n"), r
    wait_until(lambda: requests_counted(server, "2xx") == ok_before + 4, 5,
               f"4 more 2xx responses counted (now {requests_counted(server, '2xx')}, "
               f"before {ok_before})")
    assert requests_counted(server, "4xx") == missing_before + 1
    # The access log line names the protocol as HTTP/2.0.
    server.wait_for_log(r'"GET /request\.php\?via=curl HTTP/2\.0" 200')
    server.wait_for_log(r'"GET /status\.php\?code=404 HTTP/2\.0" 404')


def test_h2c_with_prior_knowledge(spindle_run, mode):
    server = h2c_server(spindle_run, mode)
    result = curl("--http2-prior-knowledge", "-w", "\n%{http_version}",
                  server.url("/request.php?via=h2c"))
    assert result.returncode == 0, result.stderr
    body, _, version = result.stdout.rpartition(b"\n")
    assert version == b"2", result.stdout
    seen = json.loads(body)
    assert seen["protocol"] == "HTTP/2.0"
    assert seen["https"] == ""
    assert seen["scheme"] == "http"
    # nghttp without -u starts with the connection preface too.
    result = subprocess.run(["nghttp", "-s", server.url("/index.php")], capture_output=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr
    # The same listener still speaks HTTP/1.1.
    r = server.get("/index.php")
    assert (r.status, r.version, r.body) == (200, "HTTP/1.1", INDEX_BODY), r


@classic_only
@pytest.mark.parametrize("protocols", [None, "h1 h2"])
def test_h2c_is_refused_unless_protocols_has_it(spindle_run, mode, protocols):
    # Default protocols (h1 h2) and an explicit list without h2c: a plain listener speaks
    # HTTP/1.1 only, and the HTTP/2 preface gets no HTTP/2 answer.
    server = h2c_server(spindle_run, mode, protocols=protocols)
    result = curl("--http2-prior-knowledge", server.url("/index.php"))
    assert result.returncode != 0, result.stdout
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(PREFACE + hf.SettingsFrame(0).serialize())
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except (socket.timeout, ConnectionResetError):
            pass
    # An HTTP/1.1 error (505 from today's parser) or nothing, never the server's SETTINGS.
    assert answer == b"" or re.match(rb"HTTP/1\.1 [45]\d\d ", answer), answer[:200]
    r = server.get("/index.php")
    assert (r.status, r.body) == (200, INDEX_BODY), r


@classic_only
def test_protocols_h1_only_makes_alpn_choose_http11(spindle_run, mode, certs):
    https_port = free_port()
    server = spindle_run(f"""{{
\thttp_port {free_port()}
\thttps_port {https_port}
\tservers {{
\t\tprotocols h1
\t}}
}}
localhost {{
\tbind 127.0.0.1
\ttls {certs / "local.crt"} {certs / "local.key"}
\troot * {APP}
\tphp_server
}}
""", warmup=None)
    wait_until(lambda: f"https://127.0.0.1:{https_port}" in server.log(), 5,
               "the HTTPS listener")
    context = client_context(certs)
    context.set_alpn_protocols(["h2", "http/1.1"])
    with socket.create_connection(("127.0.0.1", https_port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as sock:
            assert sock.selected_alpn_protocol() in ("http/1.1", None)
    result = curl("--http2", "--cacert", str(certs / "ca.crt"), "--resolve",
                  f"localhost:{https_port}:127.0.0.1", "-w", "\n%{http_version}",
                  f"https://localhost:{https_port}/index.php")
    assert result.returncode == 0, result.stderr
    assert result.stdout == INDEX_BODY + b"\n1.1"


# --- requests and responses -----------------------------------------------------------------


def test_request_line_query_cookies_and_bodies_reach_php(spindle, mode, certs):
    server = tls_server(spindle, certs)
    with H2Client(server.port, client_context(certs)) as client:
        r = client.get("/request.php?a=1&b=two%20words&c[]=x&c[]=y",
                       headers=[("cookie", "first=1"), ("cookie", "second=2; third=3"),
                                ("x-custom", "yes")])
        assert r.status == 200, r
        seen = r.json()
        assert seen["protocol"] == "HTTP/2.0"
        assert seen["https"] == "on"
        assert seen["method"] == "GET"
        assert seen["uri"] == "/request.php?a=1&b=two%20words&c[]=x&c[]=y"
        assert seen["query"] == "a=1&b=two%20words&c[]=x&c[]=y"
        assert seen["get"] == {"a": "1", "b": "two words", "c": ["x", "y"]}
        # RFC 9113 8.2.3: cookie fields are joined with "; " before they reach the application.
        assert seen["cookie_header"] == "first=1; second=2; third=3", seen
        assert seen["cookies"] == {"first": "1", "second": "2", "third": "3"}
        assert seen["headers"]["HTTP_X_CUSTOM"] == "yes"
        assert seen["host"] == f"127.0.0.1:{server.port}"
        assert seen["input_length"] == 0

        # A form of several MB, across many DATA frames and window updates.
        big = os.urandom(3 * 1024 * 1024 // 2).hex()  # 3 MiB of hex digits
        form = f"small=value&big={big}".encode()
        # Bodies of megabytes take 10 s under the ASan build (HTTP/1.1 as much): a minute each.
        r = client.request("POST", "/request.php",
                           headers=[("content-type", "application/x-www-form-urlencoded")],
                           body=form, timeout=60)
        assert r.status == 200, r
        seen = r.json()
        assert seen["method"] == "POST"
        assert seen["content_length"] == str(len(form))
        assert seen["post"]["small"] == {"length": 5, "md5": hashlib.md5(b"value").hexdigest()}
        assert seen["post"]["big"] == {"length": len(big),
                                       "md5": hashlib.md5(big.encode()).hexdigest()}

        # A binary body through php://input.
        blob = os.urandom(6 * 1024 * 1024 + 123)
        r = client.request("PUT", "/request.php",
                           headers=[("content-type", "application/octet-stream")], body=blob,
                           timeout=60)
        assert r.status == 200, r
        seen = r.json()
        assert seen["method"] == "PUT"
        assert seen["input_length"] == len(blob)
        assert seen["input_md5"] == hashlib.md5(blob).hexdigest()
        assert seen["content_length"] == str(len(blob))


def test_response_headers_are_lower_case_without_connection_fields(spindle, mode, certs):
    server = tls_server(spindle, certs)
    with H2Client(server.port, client_context(certs)) as client:
        for path in ("/response_headers.php", "/stream_flush.php", "/static.txt",
                     "/big.php?mb=1"):
            r = client.get(path)
            assert r.status == 200, (path, r)
            names = [name for name, _ in r.headers]
            assert names == [n.lower() for n in names], (path, r.headers)
            assert not CONNECTION_SPECIFIC & set(names), (path, r.headers)
            assert names[0] == ":status", (path, r.headers)
        r = client.get("/response_headers.php")
        assert r.header("x-mixed-case-header") == "Value", r
        assert r.header_all("set-cookie") == ["a=1", "b=2"], r
        assert r.body == b"headers set\n"


def test_many_concurrent_streams_each_get_their_own_answer(spindle_run, mode):
    server = h2c_server(spindle_run, mode, worker_threads=4)
    with H2Client(server.port) as client:
        streams = [client.send_request("GET", f"/echo_id.php?id=stream-{n}") for n in range(100)]
        # A static file and the index between them.
        static = client.send_request("GET", "/static.txt")
        for n, stream in enumerate(streams):
            r = client.response(stream, timeout=30)
            assert r.status == 200, r
            assert r.body == f"stream-{n}\n".encode() * 50, r
        assert client.response(static).body == STATIC_BODY
        assert client.goaway is None
    # h2load: 400 requests on one connection, 50 streams at a time.
    result = subprocess.run(["h2load", "-n", "400", "-c", "1", "-m", "50",
                             server.url("/index.php")], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"requests: 400 total, 400 started, 400 done, 400 succeeded, 0 failed",
                     result.stdout), result.stdout
    assert "status codes: 400 2xx" in result.stdout, result.stdout


def test_static_files_ranges_validators_and_compression(spindle, mode, certs):
    server = tls_server(spindle, certs)
    with H2Client(server.port, client_context(certs)) as client:
        r = client.get("/style.css")
        assert r.status == 200, r
        assert r.body == STYLE
        etag = r.header("etag")
        assert etag, r
        r = client.get("/style.css", headers=[("range", "bytes=1000-5999")])
        assert r.status == 206, r
        assert r.header("content-range") == f"bytes 1000-5999/{len(STYLE)}"
        assert r.body == STYLE[1000:6000]
        r = client.get("/style.css", headers=[("if-none-match", etag)])
        assert r.status == 304, r
        assert r.body == b""
        for coding, decode in (("gzip", gzip.decompress),
                               ("zstd", lambda b: zstandard.ZstdDecompressor()
                                .decompressobj().decompress(b))):
            r = client.get("/style.css", headers=[("accept-encoding", coding)])
            assert r.status == 200, r
            assert r.header("content-encoding") == coding, r
            assert len(r.body) < len(STYLE) / 3
            assert decode(r.body) == STYLE
            # PHP output too.
            r = client.get("/big.php?mb=1", headers=[("accept-encoding", coding)])
            assert r.status == 200, r
            assert r.header("content-encoding") == coding, r
            body = decode(r.body)
            assert len(body) == 1024 * 1024
            assert body.startswith(b"000000000000000\n000000000000001\n")
            assert body.endswith(b"%015d\n" % (65536 - 1))


def test_flush_streams_data_before_the_script_ends(spindle_run, mode, tmp_path):
    server = h2c_server(spindle_run, mode)
    release = tmp_path / "release"
    with H2Client(server.port) as client:
        stream = client.send_request("GET", f"/stream_flush.php?release={release}")
        # The first part arrives while the script waits for the release file, which only
        # this client creates, after it has the first part: ordering, not timing.
        client.wait_for(lambda: stream.body == b"first part\n", 10,
                        what="the flushed first part")
        assert not stream.done, stream
        assert stream.status == 200
        release.write_text("go")
        r = client.response(stream)
        assert r.body == b"first part\nsecond part\n", r
        assert r.header("content-length") is None


def test_early_hints_come_before_the_final_headers(spindle_run, mode):
    server = h2c_server(spindle_run, mode)
    with H2Client(server.port) as client:
        r = client.get("/early_hints.php")
        assert r.status == 200, r
        assert r.body == b"final body\n"
        assert r.header("x-final") == "yes"
        assert len(r.interim) == 1, r.interim
        hints = dict(r.interim[0])
        assert hints[":status"] == "103"
        assert hints["link"] == "</style.css>; rel=preload; as=style"
        kinds = [kind for kind, sid in client.events if sid == r.stream_id]
        assert kinds.index("InformationalResponseReceived") < kinds.index("ResponseReceived"), \
            kinds


CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")


@classic_only
def test_chromium_preloads_from_103_early_hints_over_h2(spindle, mode, certs, tmp_path):
    # scripts/install-deps.sh installs the browser: missing, the set-up is broken.
    assert CHROMIUM and CHROMEDRIVER, "needs Debian's chromium and chromium-driver"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    server = tls_server(spindle, certs)
    # Chromium trusts the server's certificate by its key (the CA is not in its store).
    spki = subprocess.run(
        "openssl x509 -in local.crt -pubkey -noout | openssl pkey -pubin -outform der"
        " | openssl dgst -sha256 -binary | base64", shell=True, cwd=certs, capture_output=True,
        text=True, check=True).stdout.strip()
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-extensions", "--no-first-run",
                     f"--ignore-certificate-errors-spki-list={spki}",
                     f"--user-data-dir={tmp_path / 'chromium'}"):
        options.add_argument(argument)
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(30)
        driver.get(f"https://127.0.0.1:{server.port}/hints_page.php")
        assert driver.find_element("id", "done").text == "page over h2"
        timing = driver.execute_script("""
            const nav = performance.getEntriesByType('navigation')[0];
            const css = performance.getEntriesByType('resource')
                .find(e => e.name.endsWith('/style.css'));
            return {nav: nav.toJSON(), css: css ? css.toJSON() : null};""")
    finally:
        driver.quit()
    nav, css = timing["nav"], timing["css"]
    assert nav["nextHopProtocol"] == "h2", nav
    assert nav["firstInterimResponseStart"] > 0, "Chromium saw no 103"
    assert css is not None, "the page's stylesheet was not loaded"
    # Fetched because of the 103 (Chromium names that initiator only for an early hint's
    # preload; its timings are those of the page's use of it, so they prove nothing more).
    assert css["initiatorType"] == "early-hints", css
    assert css["nextHopProtocol"] == "h2", css
    assert css["responseStatus"] == 200 and css["decodedBodySize"] == len(STYLE), css


def test_graceful_stop_finishes_the_open_stream_and_sends_goaway(spindle, mode, certs,
                                                                   tmp_path):
    # Frames read raw: python3-h2 refuses DATA after a GOAWAY, which is what a graceful stop
    # sends while the stream is still running.
    server = tls_server(spindle, certs)
    started = tmp_path / "started.log"
    with RawH2(server.port, client_context(certs)) as raw:
        handshake(raw)
        raw.send_frames(raw.headers_frame(1, request_fields(f"/slow.php?ms=1500&log={started}",
                                                            scheme="https")))
        wait_until(lambda: lines_in(started) == 1, 10, "the script to start")
        stopper = threading.Thread(target=server.terminate)
        stopper.start()
        raw.read_frames(15, until=lambda f: f.stream_id == 1 and (
            "END_STREAM" in f.flags or isinstance(f, hf.RstStreamFrame)))
        assert raw.statuses().get(1) == 200, raw.frames
        assert raw.data_of(1) == b"slept 1500 ms\n"
        assert 1 not in raw.resets()
        assert raw.wait_closed(10), "the connection stayed open after its last stream"
        goaway = raw.goaway()
        assert goaway is not None, f"the connection closed without a GOAWAY: {raw.frames}"
        assert goaway.error_code == 0, goaway
        stopper.join(15)
    assert server.exit_code == 0


@classic_only
def test_idle_connection_gets_goaway_and_is_closed(spindle_run, mode):
    server = spindle_run(caddyfile(mode, servers="\t\ttimeouts {\n\t\t\tidle 1s\n\t\t}\n"),
                         warmup="/index.php")
    with RawH2(server.port) as raw:
        handshake(raw)
        raw.send_frames(raw.headers_frame(1, request_fields("/index.php")))
        raw.read_frames(5, until=lambda f: f.stream_id == 1 and "END_STREAM" in f.flags)
        assert raw.statuses().get(1) == 200
        assert raw.wait_closed(6), "an idle HTTP/2 connection outlived the 1 s idle timeout"
        goaway = raw.goaway()
        assert goaway is not None, f"closed without a GOAWAY: {raw.frames}"
        assert goaway.error_code == 0 and goaway.last_stream_id == 1, goaway


# --- abuse ----------------------------------------------------------------------------------


@measures_rss
def test_rapid_reset_keeps_php_work_bounded(spindle_run, mode, tmp_path):
    # CVE-2023-44487: streams opened and reset at once. Each one's request may reach PHP; what
    # the server owes is that one connection never has more than MAX_STREAMS of them queued or
    # running, so the PHP work the attack causes is bounded by that, not by its frame count.
    server = h2c_server(spindle_run, mode, worker_threads={"slow.php": 4})
    started = tmp_path / "started.log"
    rss_before = settled_rss(server)
    attack_streams = 5000
    with Bystander(server) as bystander, RawH2(server.port) as raw:
        handshake(raw)
        target = request_fields(f"/slow.php?ms=50&log={started}")
        sent = 0
        stopped = None
        try:
            for batch in range(0, attack_streams, 100):
                frames = []
                for sid in range(2 * batch + 1, 2 * (batch + 100) + 1, 2):
                    frames += [raw.headers_frame(sid, target), raw.rst_frame(sid, CANCEL)]
                raw.send_frames(*frames)
                sent += 100
        except (BrokenPipeError, ConnectionResetError) as e:
            stopped = e
        except socket.timeout as e:
            stopped = e
        raw.read_frames(2)
        bystander.check()
        ran = wait_stable(started)
        print(f"rapid reset: {sent} streams opened and reset, {ran} PHP requests ran, "
              f"{len(raw.resets())} resets from the server, GOAWAY {raw.goaway()}, "
              f"stopped by {stopped!r}")
        assert ran <= MAX_STREAMS + 64, (
            f"{ran} PHP requests ran for {sent} streams opened and reset on one connection "
            f"(at most {MAX_STREAMS} may be held at once)")
        # The connection is told to go away (or refused the streams beyond the limit).
        refused = [c for c in raw.resets().values() if c == REFUSED_STREAM]
        assert raw.goaway() is not None or refused or stopped or raw.closed, (
            f"{sent} streams opened and reset without a GOAWAY, a refused stream or a close")
    assert_healthy(server, rss_before)


@measures_rss
def test_continuation_flood_closes_the_connection(spindle_run, mode, tmp_path):
    server = h2c_server(spindle_run, mode)
    marker = tmp_path / "marker"
    rss_before = settled_rss(server)
    with Bystander(server) as bystander, RawH2(server.port) as raw:
        handshake(raw)
        raw.send_frames(raw.headers_frame(1, request_fields(f"/marker.php?marker={marker}"),
                                          end_stream=True, end_headers=False))
        # Endless CONTINUATION frames, each with one more 1000-byte header field.
        block = b"".join(
            hf.ContinuationFrame(1, data=raw.encoder.encode([(f"x-flood-{i}", "v" * 1000)]))
            .serialize() for i in range(64))
        sent, how = raw.flood(block, 64 * 1024 * 1024, seconds=8)
        # Nothing is queued for this client to read: the close can be at once.
        closed = how == "closed" or raw.wait_closed(5)
        print(f"CONTINUATION flood: {sent} bytes sent, {how}, GOAWAY {raw.goaway()}")
        assert closed or raw.goaway() is not None, (
            f"{sent} bytes of CONTINUATION frames: the connection is still open ({how}) "
            f"without GOAWAY")
        bystander.check()
    assert not marker.exists(), "a request whose header block never ended reached PHP"
    assert_healthy(server, rss_before)


@measures_rss
def test_hpack_bomb_is_refused(spindle_run, mode, tmp_path):
    server = h2c_server(spindle_run, mode)
    marker = tmp_path / "marker"
    rss_before = settled_rss(server)
    with Bystander(server) as bystander, RawH2(server.port) as raw:
        handshake(raw)
        # One 4000-byte value enters the dynamic table, then 10,000 one-byte references to it:
        # 40 MB of header list from a 10 KB block.
        value = "b" * 4000
        fields = request_fields(f"/marker.php?marker={marker}") + [("x-bomb", value)] * 10000
        frame = raw.headers_frame(1, fields)
        assert len(frame.data) < 16384
        raw.send_frames(frame)
        raw.read_frames(5, until=lambda f: f.stream_id == 1 and (
            isinstance(f, hf.RstStreamFrame) or "END_STREAM" in f.flags)
            or isinstance(f, hf.GoAwayFrame))
        status = raw.statuses().get(1)
        print(f"HPACK bomb: status {status}, resets {raw.resets()}, GOAWAY {raw.goaway()}")
        assert (status == 431 or 1 in raw.resets() or raw.goaway() is not None
                or raw.closed), f"an HPACK bomb was answered {status}: {raw.frames}"
        bystander.check()
    assert not marker.exists(), "a 40 MB header list reached PHP"
    assert_healthy(server, rss_before)


@classic_only
@measures_rss
@pytest.mark.parametrize("kind", ["settings", "ping"])
def test_control_frame_flood_closes_the_connection(spindle_run, mode, kind):
    # A million SETTINGS or PING frames, their acks never read: the server must not queue a
    # million acks. No request is ever made, so worker mode would add nothing.
    server = h2c_server(spindle_run, mode)
    rss_before = settled_rss(server)
    if kind == "settings":
        frame = hf.SettingsFrame(0, settings={h2.settings.SettingCodes.HEADER_TABLE_SIZE: 4096})
    else:
        frame = hf.PingFrame(0, opaque_data=b"flooding")
    with Bystander(server) as bystander, RawH2(server.port) as raw:
        handshake(raw)
        began = time.monotonic()
        sent, how = raw.flood(frame.serialize() * 4096, 1_000_000 * len(frame.serialize()),
                              seconds=8)
        closed = how == "closed" or raw.wait_closed(15)
        print(f"{kind} flood: {sent} bytes sent, {how}, closed {closed} after "
              f"{time.monotonic() - began:.1f} s")
        assert closed, f"{sent} bytes of {kind} frames, acks unread: the connection is {how}"
        bystander.check()
    assert_healthy(server, rss_before)


@measures_rss
def test_zero_window_reader_holds_a_bounded_buffer(spindle_run, mode, tmp_path):
    server = h2c_server(spindle_run, mode)
    rss_before = settled_rss(server)
    megabytes = 50
    done = tmp_path / "done"
    with RawH2(server.port, settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0}) as raw:
        handshake(raw)
        target = f"/big.php?mb={megabytes}&done={done}"
        raw.send_frames(raw.headers_frame(1, request_fields(target)))
        # The answer's HEADERS may come; no DATA can. PHP writes it all (the server buffers
        # response_memory_size, then spills to a file).
        wait_until(done.exists, 30, f"PHP to finish its {megabytes} MB answer to a reader "
                                    "with a zero window")
        raw.read_frames(0.5)
        assert not raw.data_of(1)
        with Bystander(server) as bystander:
            bystander.check(minimum=6)
        assert_healthy(server, rss_before)
        # Open the windows: the whole answer arrives intact.
        window = 2**31 - 1
        raw.send_frames(hf.SettingsFrame(0, settings={
            h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window}),
            hf.WindowUpdateFrame(0, window_increment=window - 65535))
        raw.read_frames(60, until=lambda f: f.stream_id == 1 and (
            "END_STREAM" in f.flags or isinstance(f, hf.RstStreamFrame)))
        body = raw.data_of(1)
        assert raw.statuses().get(1) == 200, raw.headers
        assert len(body) == megabytes * 2**20, len(body)
        assert body[:32] == b"000000000000000\n000000000000001\n"
        assert body[-16:] == b"%015d\n" % (megabytes * 65536 - 1)
        assert body[2**24:2**24 + 16] == b"%015d\n" % (2**20)


@measures_rss
def test_streams_beyond_max_concurrent_streams_are_refused(spindle_run, mode, tmp_path):
    # A client in a hurry sends its requests right after the preface, before it acknowledged
    # the server's SETTINGS: the streams over the limit are refused one by one (RFC 9113
    # 5.1.2: a stream error), never reach PHP, and the connection goes on.
    server = h2c_server(spindle_run, mode, worker_threads={"slow.php": 4})
    started = tmp_path / "started.log"
    extra = 12
    rss_before = settled_rss(server)
    with Bystander(server) as bystander, RawH2(server.port) as raw:
        target = request_fields(f"/slow.php?ms=20&log={started}")
        sids = list(range(1, 2 * (MAX_STREAMS + extra), 2))
        raw.send_frames(*[raw.headers_frame(sid, target) for sid in sids])
        raw.read_frames(30, until=lambda f: isinstance(f, hf.GoAwayFrame) or len(
            raw.ended_streams() | set(raw.resets())) >= len(sids))
        settings = [f for f in raw.frames if isinstance(f, hf.SettingsFrame)
                    and "ACK" not in f.flags]
        assert settings and settings[0].settings.get(
            h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS) == MAX_STREAMS, settings
        assert raw.goaway() is None, (
            f"{len(sids)} streams at once: the connection got {raw.goaway()}, not "
            f"{extra} streams refused")
        resets = raw.resets()
        answered = raw.statuses()
        assert sorted(answered) == sids[:MAX_STREAMS], (len(answered), resets)
        assert set(answered.values()) == {200}
        assert resets == {sid: REFUSED_STREAM for sid in sids[MAX_STREAMS:]}, resets
        # The refused ones never reached PHP; the connection goes on.
        assert wait_stable(started, quiet=0.5) == MAX_STREAMS
        raw.ack_settings()
        sid = sids[-1] + 2
        raw.send_frames(raw.headers_frame(sid, request_fields("/index.php")))
        raw.read_frames(10, until=lambda f: f.stream_id == sid and "END_STREAM" in f.flags)
        assert raw.statuses().get(sid) == 200 and raw.data_of(sid) == INDEX_BODY
        bystander.check()
    assert_healthy(server, rss_before)


@measures_rss
def test_a_client_that_breaks_an_acknowledged_stream_limit_loses_its_connection(
        spindle_run, mode, tmp_path):
    # After acknowledging the limit, opening more is the client's protocol error: nghttp2 ends
    # the connection with GOAWAY PROTOCOL_ERROR (as Apache httpd's mod_http2 does), and no
    # more than the limit's worth of PHP requests ever ran; everyone else is served.
    server = h2c_server(spindle_run, mode, worker_threads={"slow.php": 4})
    started = tmp_path / "started.log"
    rss_before = settled_rss(server)
    with Bystander(server) as bystander, RawH2(server.port) as raw:
        handshake(raw)
        target = request_fields(f"/slow.php?ms=20&log={started}")
        sids = list(range(1, 2 * (MAX_STREAMS + 12), 2))
        raw.send_frames(*[raw.headers_frame(sid, target) for sid in sids])
        raw.read_frames(30, until=lambda f: isinstance(f, hf.GoAwayFrame))
        goaway = raw.goaway()
        assert goaway is not None and goaway.error_code == PROTOCOL_ERROR, goaway
        assert wait_stable(started, quiet=0.5) <= MAX_STREAMS
        bystander.check()
    assert_healthy(server, rss_before)


@measures_rss
def test_oversized_header_list_is_refused_and_the_server_lives(spindle_run, mode, tmp_path):
    server = h2c_server(spindle_run, mode)
    marker = tmp_path / "marker"
    rss_before = settled_rss(server)
    with Bystander(server) as bystander, RawH2(server.port) as raw:
        settings = handshake(raw)
        assert settings.get(h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE) == 64 * 1024, settings
        # Under the limit (40 KB): served, every field reaches PHP.
        fields = [(f"x-field-{i}", f"{i:04d}" * 500) for i in range(20)]
        raw.send_frames(*raw.headers_frames(1, request_fields("/request.php", extra=fields)))
        raw.read_frames(10, until=lambda f: f.stream_id == 1 and "END_STREAM" in f.flags)
        assert raw.statuses().get(1) == 200, raw.frames
        seen = json.loads(raw.data_of(1))
        assert seen["headers"]["HTTP_X_FIELD_19"] == "0019" * 500
        # Over it (120 KB, in CONTINUATION frames): 431 or a reset, and PHP never runs.
        fields = [(f"x-field-{i}", "o" * 2000) for i in range(60)]
        raw.send_frames(*raw.headers_frames(
            3, request_fields(f"/marker.php?marker={marker}") + fields))
        raw.read_frames(10, until=lambda f: f.stream_id == 3 and (
            "END_STREAM" in f.flags or isinstance(f, hf.RstStreamFrame))
            or isinstance(f, hf.GoAwayFrame))
        status = raw.statuses().get(3)
        print(f"120 KB header list: status {status}, resets {raw.resets()}, GOAWAY {raw.goaway()}")
        assert status == 431 or 3 in raw.resets() or raw.goaway() is not None, (
            f"a 120 KB header list was answered {status}: {raw.frames[-5:]}")
        bystander.check()
    assert not marker.exists(), "a request over max_header_size reached PHP"
    assert_healthy(server, rss_before)


@measures_rss
def test_content_length_disagreeing_with_data_never_reaches_php(spindle_run, mode, tmp_path):
    server = h2c_server(spindle_run, mode)
    markers = [tmp_path / f"marker-{n}" for n in range(4)]
    rss_before = settled_rss(server)
    with Bystander(server) as bystander, RawH2(server.port) as raw:
        handshake(raw)

        def post(sid, marker, length):
            fields = request_fields(f"/marker.php?marker={marker}", method="POST",
                                    extra=[("content-length", length)])
            return raw.headers_frame(sid, fields, end_stream=False)

        # More DATA than announced, and less.
        raw.send_frames(post(1, markers[0], "10"), raw.data_frame(1, b"x" * 20, end_stream=True))
        raw.send_frames(post(3, markers[1], "100"), raw.data_frame(3, b"x" * 10, end_stream=True))
        # Less, with a pause before the end: a server that hands a body to PHP while it
        # arrives would have started the script by then.
        raw.send_frames(post(5, markers[2], "100"), raw.data_frame(5, b"x" * 10))
        time.sleep(0.5)
        raw.send_frames(raw.data_frame(5, b"", end_stream=True))
        raw.read_frames(5, until=lambda f: {1, 3, 5} <= set(raw.resets()))
        resets = raw.resets()
        assert {sid: resets.get(sid) for sid in (1, 3, 5)} == dict.fromkeys(
            (1, 3, 5), PROTOCOL_ERROR), (resets, raw.statuses(), raw.goaway())
        assert not {1, 3, 5} & set(raw.statuses()), raw.statuses()
        # An honest one on the same connection runs: the marker works.
        raw.send_frames(post(7, markers[3], "15"), raw.data_frame(7, b"y" * 15, end_stream=True))
        raw.read_frames(10, until=lambda f: f.stream_id == 7 and "END_STREAM" in f.flags)
        assert raw.statuses().get(7) == 200
        assert raw.data_of(7) == b"got 15 bytes\n"
        bystander.check()
    assert markers[3].read_text() == "ran with 15 bytes\n"
    time.sleep(0.3)
    for marker in markers[:3]:
        assert not marker.exists(), f"{marker.name}: {marker.read_text()}"
    assert_healthy(server, rss_before)

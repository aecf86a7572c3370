"""X-Sendfile / X-Accel-Redirect (php_server { x_sendfile ... }, docs/caddyfile.md): a PHP
response that names a file is answered with that file by the server, the PHP thread free as
soon as the script ends; the file goes out with Range, 304 and its Content-Type, and never from
outside the configured directories. Every scenario runs with the fixtures classic and as
workers."""

import os
import re
import time
import urllib.parse

import pytest

from spindle_harness import FIXTURES, executor_fixtures
from spindle_http import Conn

APP = FIXTURES / "x_sendfile"
PHP_MODES = ["classic", "worker"]
CONTENT = b"".join(b"line %04d of the private report\n" % i for i in range(2000))
# What an escape attempt must never return.
SECRET = b"the secret outside the allowed directories\n"
GIB = 1 << 30


@pytest.fixture
def private(tmp_path):
    """The allowed directory, with a report, a symlink out of it and a subdirectory; and a
    secret beside it."""
    files = tmp_path / "private-files"
    files.mkdir()
    (files / "report.txt").write_bytes(CONTENT)
    (files / "sub").mkdir()
    (files / "sub" / "data.json").write_bytes(b'{"ok": true}')
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(SECRET)
    (files / "escape.txt").symlink_to(outside / "secret.txt")
    (files / "escape-dir").symlink_to(outside)
    return files


def start(spindle_run, php_mode, private, num_threads=4, admin=False, x_sendfile=True):
    """A server for the fixtures in `php_mode` ("worker": each on a worker thread of its own)
    with X-Sendfile allowed from `private` and X-Accel-Redirect's /private-files/ mapped there."""
    workers = ""
    if php_mode == "worker":
        for path in executor_fixtures(APP):
            workers += f"\t\tworker {{\n\t\t\tfile {path}\n\t\t\tnum 1\n\t\t}}\n"
        num_threads += len(executor_fixtures(APP))
    block = (
        f"\t\tx_sendfile {{\n\t\t\troot {private}\n"
        f"\t\t\taccel_redirect /private-files/ {private}\n\t\t}}\n"
        if x_sendfile else ""
    )
    global_admin = "\tadmin 127.0.0.1:0\n" if admin else ""
    return spindle_run(f"""{{
{global_admin}	frankenphp {{
		num_threads {num_threads}
	}}
}}
:0 {{
	bind 127.0.0.1
	root * {APP}
	php_server {{
{block}{workers}	}}
}}
""", warmup="/hello.php")


def quoted(path):
    return urllib.parse.quote(str(path), safe="/")


@pytest.mark.parametrize("php_mode", PHP_MODES)
def test_x_sendfile_sends_the_file_with_the_scripts_headers(spindle_run, private, php_mode):
    srv = start(spindle_run, php_mode, private)
    r = srv.get(f"/send.php?path={quoted(private / 'report.txt')}")
    assert r.status == 200, r
    assert r.body == CONTENT
    assert r.header("Content-Length") == str(len(CONTENT))
    # By extension: the script left PHP's text/html default.
    assert r.header("Content-Type").startswith("text/plain"), r
    assert r.header("Content-Disposition") == 'attachment; filename="report.txt"'
    assert r.header("Cache-Control") == "private, max-age=60"
    assert r.header("Accept-Ranges") == "bytes"
    assert re.fullmatch(r'"[0-9a-f]+-[0-9a-f]+"', r.header("ETag")), r
    assert r.has_header("Last-Modified")
    assert not r.has_header("X-Sendfile"), r

    # The script's own Content-Type wins over the extension.
    r = srv.get(f"/send.php?path={quoted(private / 'report.txt')}&type=application/x-report")
    assert (r.status, r.header("Content-Type"), r.body) == (200, "application/x-report", CONTENT)

    # HEAD: the file's head, no body.
    r = srv.request("HEAD", f"/send.php?path={quoted(private / 'report.txt')}")
    assert (r.status, r.header("Content-Length"), r.body) == (200, str(len(CONTENT)), b"")

    # A download after a form POST: the file, whole (validators and ranges are GET's).
    r = srv.post(f"/send.php?path={quoted(private / 'report.txt')}", "agree=1",
                 headers={"Range": "bytes=0-9"})
    assert (r.status, r.body) == (200, CONTENT), r


@pytest.mark.parametrize("php_mode", PHP_MODES)
def test_range_and_conditional_requests_reach_the_file(spindle_run, private, php_mode):
    srv = start(spindle_run, php_mode, private)
    target = f"/send.php?path={quoted(private / 'report.txt')}"
    etag = srv.get(target).header("ETag")

    r = srv.get(target, headers=[("Range", "bytes=100-199")])
    assert r.status == 206, r
    assert r.body == CONTENT[100:200]
    assert r.header("Content-Range") == f"bytes 100-199/{len(CONTENT)}"

    r = srv.get(target, headers=[("Range", "bytes=-10")])
    assert (r.status, r.body) == (206, CONTENT[-10:])

    r = srv.get(target, headers=[("Range", f"bytes={len(CONTENT)}-")])
    assert r.status == 416, r
    assert r.header("Content-Range") == f"bytes */{len(CONTENT)}"

    r = srv.get(target, headers=[("If-None-Match", etag)])
    assert (r.status, r.body, r.header("ETag")) == (304, b"", etag), r

    # Keep-alive goes on after each kind of answer.
    with srv.connect() as conn:
        for headers, status in (([], 200), ([("Range", "bytes=0-9")], 206),
                                ([("If-None-Match", etag)], 304), ([], 200)):
            r = conn.request("GET", target, headers=headers)
            assert r.status == status, r


@pytest.mark.parametrize("php_mode", PHP_MODES)
def test_x_accel_redirect_maps_its_prefix_to_the_directory(spindle_run, private, php_mode):
    srv = start(spindle_run, php_mode, private)
    r = srv.get("/accel.php?path=/private-files/report.txt")
    assert (r.status, r.body) == (200, CONTENT), r
    assert not r.has_header("X-Accel-Redirect")
    r = srv.get("/accel.php?path=/private-files/sub/data.json")
    assert (r.status, r.header("Content-Type"), r.body) == (
        200, "application/json", b'{"ok": true}'), r


@pytest.mark.parametrize("php_mode", PHP_MODES)
def test_escape_attempts_get_403_or_404_and_never_the_file(spindle_run, private, php_mode):
    srv = start(spindle_run, php_mode, private)
    outside = private.parent / "outside" / "secret.txt"
    attempts = [
        # X-Sendfile: outside every root, by name, by "..", by a symlink in the root.
        (f"/send.php?path={quoted(outside)}", 403),
        (f"/send.php?path={quoted(private)}/../outside/secret.txt", 403),
        (f"/send.php?path={quoted(private / 'escape.txt')}", 403),
        (f"/send.php?path={quoted(private / 'escape-dir' / 'secret.txt')}", 403),
        ("/send.php?path=/etc/passwd", 403),
        # The root itself and a directory in it are no files.
        (f"/send.php?path={quoted(private)}", 403),
        (f"/send.php?path={quoted(private / 'sub')}", 403),
        (f"/send.php?path={quoted(private / 'missing.txt')}", 404),
        ("/send.php?path=report.txt", 404),
        # X-Accel-Redirect: an unknown prefix, "..", a symlink out.
        ("/accel.php?path=/other/report.txt", 404),
        ("/accel.php?path=/private-files/../outside/secret.txt", 403),
        ("/accel.php?path=/private-files/escape.txt", 403),
        ("/accel.php?path=/private-files/missing.txt", 404),
    ]
    for target, status in attempts:
        r = srv.get(target)
        assert r.status == status, (target, r)
        assert SECRET not in r.body and b"PHP body" not in r.body, (target, r)
        assert not r.has_header("X-Sendfile") and not r.has_header("X-Accel-Redirect"), r
    # Each refusal is logged; the last line may reach the log just after its response.
    def refused():
        return [r for r in srv.records() if "refused" in r.text and "x_sendfile" in r.text]

    deadline = time.monotonic() + 5
    while len(refused()) < len(attempts) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(refused()) == len(attempts), srv.log_tail()


@pytest.mark.parametrize("php_mode", PHP_MODES)
def test_a_script_that_fails_after_naming_a_file_answers_500(spindle_run, private, php_mode):
    srv = start(spindle_run, php_mode, private)
    r = srv.get(f"/fails_after_naming.php?path={quoted(private / 'report.txt')}")
    assert r.status == 500, r
    assert CONTENT[:20] not in r.body
    assert not r.has_header("X-Sendfile"), r
    srv.expect_errors(r"failed after naming the file")


@pytest.mark.parametrize("php_mode", PHP_MODES)
def test_the_app_is_told_the_sendfile_type_and_a_client_cannot_spoof_it(spindle_run, private,
                                                                        php_mode):
    srv = start(spindle_run, php_mode, private)
    r = srv.get("/request_headers.php",
                headers=[("X-Sendfile-Type", "X-Spoofed"), ("X-Accel-Mapping", "/=/")])
    assert r.json() == {"type": "X-Sendfile", "mapping": f"{private}/=/private-files/"}, r


@pytest.mark.parametrize("php_mode", PHP_MODES)
def test_without_x_sendfile_the_headers_pass_through(spindle_run, private, php_mode):
    # As FrankenPHP without `intercept`: the app's own response, headers and body.
    srv = start(spindle_run, php_mode, private, x_sendfile=False)
    r = srv.get(f"/send.php?path={quoted(private / 'report.txt')}")
    assert r.status == 200, r
    assert r.body == b"the PHP body, which the file replaces"
    assert r.header("X-Sendfile") == str(private / "report.txt")
    r = srv.get("/request_headers.php", headers=[("X-Sendfile-Type", "X-Sendfile")])
    assert r.json() == {"type": "X-Sendfile", "mapping": None}, r


@pytest.mark.parametrize("php_mode", PHP_MODES)
def test_symfony_logic_hands_off_through_the_type_header(spindle_run, private, php_mode):
    srv = start(spindle_run, php_mode, private)
    r = srv.get(f"/symfony_logic.php?path={quoted(private / 'report.txt')}",
                headers=[("Range", "bytes=0-99")])
    assert (r.status, r.body) == (206, CONTENT[:100]), r
    assert r.header("Content-Type") == "application/octet-stream"
    r = srv.get(f"/symfony_logic.php?path={quoted(private / 'report.txt')}")
    assert (r.status, r.header("Content-Length"), r.body) == (200, str(len(CONTENT)), CONTENT)


@pytest.mark.parametrize("php_mode", PHP_MODES)
def test_symfony_binary_file_response_is_sent_by_the_server(spindle_run, private, php_mode):
    srv = start(spindle_run, php_mode, private)
    target = f"/symfony_binary_file_response.php?path={quoted(private / 'report.txt')}"
    r = srv.get(target)
    assert r.status == 200, r
    assert r.body == CONTENT
    assert r.header("Content-Type") == "application/pdf"
    assert r.header("Content-Disposition") == 'attachment; filename=report.pdf'
    assert not r.has_header("X-Sendfile")
    r = srv.get(target, headers=[("Range", "bytes=10-19")])
    assert (r.status, r.body) == (206, CONTENT[10:20]), r


def busy_threads(srv, php_mode):
    """Threads serving a request: frankenphp_busy_threads in classic mode; in worker mode that
    family counts every running worker script, busy or waiting (as FrankenPHP's does), so
    spindle_busy_threads, which counts the ones serving a request."""
    r = srv.admin("GET", "/metrics")
    assert r.status == 200, r
    figures = {}
    for name in ("frankenphp_busy_threads", "spindle_busy_threads"):
        match = re.search(rf"^{name} (\d+)$", r.text, re.M)
        assert match, r.text[:2000]
        figures[name] = int(match.group(1))
    if php_mode == "classic":
        assert figures["frankenphp_busy_threads"] == figures["spindle_busy_threads"], figures
    return figures["spindle_busy_threads"]


@pytest.mark.parametrize("php_mode", PHP_MODES)
def test_a_large_download_holds_no_php_thread(spindle_run, private, php_mode):
    # FrankenPHP #1796: BinaryFileResponse downloads starved the threads. A 1 GiB file (sparse:
    # no disk used) read slowly by one client; the only PHP thread answers others meanwhile.
    big = private / "big.iso"
    with open(big, "wb") as f:
        f.truncate(GIB)
    srv = start(spindle_run, php_mode, private, num_threads=1, admin=True)
    download = Conn(srv.port, timeout=10)
    srv.conns.append(download)
    download.send_request("GET", f"/symfony_logic.php?path={quoted(big)}")
    head = download.read_head()
    assert head.status == 200, head
    assert head.header("Content-Length") == str(GIB)
    received = len(download.buffer)
    download.buffer = b""
    for _ in range(3):
        received += len(download.sock.recv(65536))
    # The download is under way and far from done; PHP is idle and answers.
    assert received < GIB
    deadline = time.monotonic() + 5
    while busy_threads(srv, php_mode) != 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert busy_threads(srv, php_mode) == 0
    # The thread that handed the download off (the same worker thread, in worker mode) and
    # the server's only classic thread answer.
    for _ in range(3):
        r = srv.get(f"/symfony_logic.php?path={quoted(private / 'report.txt')}", timeout=5)
        assert (r.status, r.body) == (200, CONTENT), r
        r = srv.get("/hello.php", timeout=5)
        assert (r.status, r.body) == (200, b"hello from PHP"), r
    # A thread counts as busy until it asks for its next request, a moment after its response
    # went out.
    deadline = time.monotonic() + 5
    while busy_threads(srv, php_mode) != 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert busy_threads(srv, php_mode) == 0
    # The download is still open: read some more, then leave halfway.
    received += len(download.sock.recv(65536))
    assert 0 < received < GIB
    download.close()
    r = srv.get("/hello.php", timeout=5)
    assert r.status == 200, r
    os.unlink(big)

"""The HTTP/1.x front end: versions, keep-alive, pipelining, request bodies, HEAD, request
validation, and streamed and large responses."""

import hashlib
import json
import os
import time

import pytest

from spindle_http import Conn, ConnectionClosed, build_request, chunked

INDEX_BODY = b"hello from index\n"

# The tests marked classic_only check the HTTP front end alone (versions, connection handling,
# request validation); the others also run with the app's PHP files as workers, as the way a
# response body or request body crosses between HTTP and PHP differs there.
classic_only = pytest.mark.classic_only


def big_response_body():
    return b"".join(b"%015d\n" % i for i in range(512 * 1024))


# --- versions and connections ---------------------------------------------------------------


@classic_only
def test_http11_get(spindle):
    srv = spindle("http")
    r = srv.get("/")
    assert r.status == 200, r
    assert r.version == "HTTP/1.1"
    assert r.body == INDEX_BODY
    assert r.header("Content-Length") == str(len(INDEX_BODY))
    assert r.header("Date")


@classic_only
def test_http10_get_closes_connection(spindle):
    srv = spindle("http")
    with srv.connect() as conn:
        r = conn.request("GET", "/", version="1.0", host=False)
        assert r.status == 200, r
        assert r.body == INDEX_BODY
        assert conn.wait_closed(3), "an HTTP/1.0 connection without keep-alive must be closed"


@classic_only
def test_http10_keep_alive(spindle):
    srv = spindle("http")
    with srv.connect() as conn:
        for _ in range(3):
            r = conn.request("GET", "/", headers={"Connection": "keep-alive"}, version="1.0",
                             host=False)
            assert r.status == 200, r
            assert r.body == INDEX_BODY
            assert (r.header("Connection") or "").lower() == "keep-alive"


def test_keep_alive_several_requests_on_one_connection(spindle):
    srv = spindle("http")
    with srv.connect() as conn:
        for i in range(5):
            r = conn.request("GET", f"/echo_id.php?id=ka{i}")
            assert r.status == 200, r
            assert r.body == f"ka{i}\n".encode() * 50
            r = conn.request("GET", "/static.txt")
            assert r.status == 200, r
            assert r.body == b"a static file of the http app\n"
        r = conn.request("POST", "/echo_body.php", body=b"last one")
        assert r.json()["md5"] == hashlib.md5(b"last one").hexdigest()


@classic_only
def test_connection_close_header_closes(spindle):
    srv = spindle("http")
    with srv.connect() as conn:
        r = conn.request("GET", "/", headers={"Connection": "close"})
        assert r.status == 200, r
        assert (r.header("Connection") or "").lower() == "close"
        assert conn.wait_closed(3)


def test_pipelined_requests_answered_in_order(spindle):
    srv = spindle("http")
    with srv.connect() as conn:
        conn.send(
            build_request("GET", "/sleep.php?ms=300")
            + build_request("POST", "/echo_body.php", body=b"pipelined body")
            + build_request("GET", "/echo_id.php?id=third")
        )
        first = conn.read_response()
        second = conn.read_response()
        third = conn.read_response()
    assert first.status == 200 and first.body == b"slept 300 ms\n", first
    assert second.status == 200, second
    assert second.json()["head"] == "pipelined body"
    assert third.status == 200 and third.body == b"third\n" * 50, third


def test_response_beyond_the_client_window_arrives_whole(spindle):
    # A complete response goes out from the PHP thread in one send() when the socket takes it
    # all; on a narrow connection whose client reads late the socket takes part of it, and the
    # I/O thread must finish the rest, with nothing lost, repeated or reordered.
    srv = spindle("http")
    expected = b"".join(b"%07d\n" % i for i in range(7000))
    with Conn(srv.port, narrow=True) as conn:
        for _ in range(2):
            conn.send(build_request("GET", "/sized.php?lines=7000"))
            time.sleep(0.3)
            r = conn.read_response()
            assert r.status == 200 and r.header("content-length") == str(len(expected)), r
            assert r.body == expected
        assert conn.request("GET", "/echo_id.php?id=after").body == b"after\n" * 50


def test_pipelined_static_and_php(spindle):
    srv = spindle("http")
    with srv.connect() as conn:
        conn.send(b"".join(build_request("GET", p) for p in ["/static.txt", "/", "/static.txt"]))
        bodies = [conn.read_response().body for _ in range(3)]
    assert bodies == [b"a static file of the http app\n", INDEX_BODY,
                      b"a static file of the http app\n"]


# --- request bodies -------------------------------------------------------------------------


def test_content_length_body_reaches_php_input(spindle):
    srv = spindle("http")
    body = os.urandom(1 << 20)
    r = srv.post("/echo_body.php", body, content_type="application/octet-stream")
    assert r.status == 200, r
    data = r.json()
    assert data["length"] == len(body)
    assert data["md5"] == hashlib.md5(body).hexdigest()
    assert data["content_length"] == str(len(body))


@pytest.mark.parametrize("parts", [
    [b"hello ", b"chunked ", b"world"],
    [os.urandom(50_000) for _ in range(6)],  # beyond what the server keeps in memory
], ids=["small", "300KB"])
def test_chunked_body_reaches_php_input(spindle, parts):
    srv = spindle("http")
    body = b"".join(parts)
    r = srv.request("POST", "/echo_body.php",
                    headers={"Transfer-Encoding": "chunked",
                             "Content-Type": "application/octet-stream"},
                    body=chunked(parts))
    assert r.status == 200, r
    data = r.json()
    assert data["length"] == len(body)
    assert data["md5"] == hashlib.md5(body).hexdigest()


def test_expect_100_continue(spindle):
    srv = spindle("http")
    body = b"x" * 5000
    with srv.connect(timeout=5) as conn:
        conn.send(build_request("POST", "/echo_body.php",
                                headers={"Content-Length": str(len(body)),
                                         "Expect": "100-continue"}))
        # The body is held back until the server asks for it.
        status_line = conn.read_line()
        assert status_line == b"HTTP/1.1 100 Continue", status_line
        while conn.read_line() != b"":
            pass
        conn.send(body)
        r = conn.read_response()
    assert r.status == 200, r
    assert r.json()["md5"] == hashlib.md5(body).hexdigest()


# --- HEAD -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/static.txt", "/echo_id.php?id=head"])
def test_head_has_no_body_and_same_length_as_get(spindle, path):
    srv = spindle("http")
    get = srv.get(path)
    assert get.status == 200, get
    with srv.connect() as conn:
        head = conn.request("HEAD", path)
        assert head.status == 200, head
        assert head.header("Content-Length") == str(len(get.body))
        # A body sent after the HEAD response would show up as garbage before this answer.
        after = conn.request("GET", "/")
        assert after.status == 200 and after.body == INDEX_BODY, after


# --- request validation ---------------------------------------------------------------------


@classic_only
def test_header_block_too_large_431(spindle):
    srv = spindle("http", "--max-header-size", "4KiB")
    r = srv.raw(build_request("GET", "/", headers={"X-Big": "a" * 8000}))
    assert r.status == 431, r
    # A header block under the limit is fine.
    assert srv.get("/", headers={"X-Small": "a" * 1000}).status == 200


@classic_only
def test_request_target_too_long_414(spindle):
    srv = spindle("http", "--max-header-size", "4KiB")
    r = srv.raw(build_request("GET", "/?q=" + "a" * 8000))
    assert r.status == 414, r
    assert b"request target too long" in r.body, r
    assert srv.get("/?q=" + "a" * 1000).status == 200


@classic_only
@pytest.mark.parametrize("version", [b"HTTP/2.0", b"HTTP/1.2", b"HTTP/0.9"])
def test_other_http_versions_505(spindle, version):
    srv = spindle("http")
    r = srv.raw(b"GET / " + version + b"\r\nHost: t\r\nConnection: close\r\n\r\n")
    assert r.status == 505, r


@classic_only
@pytest.mark.parametrize("version", [b"HTTP/1.x", b"HTTP/11", b"HTTQ/1.1", b"HTTP/1.1 x"])
def test_garbled_http_version_400(spindle, version):
    srv = spindle("http")
    r = srv.raw(b"GET / " + version + b"\r\nHost: t\r\nConnection: close\r\n\r\n")
    assert r.status == 400, r


@classic_only
def test_many_headers_too_large_431(spindle):
    srv = spindle("http", "--max-header-size", "4KiB")
    headers = [(f"X-H{i}", "v" * 100) for i in range(100)]
    r = srv.raw(build_request("GET", "/", headers=headers))
    assert r.status == 431, r


@classic_only
def test_body_over_limit_content_length_413(spindle):
    srv = spindle("http", "--max-body-size", "1KiB")
    r = srv.raw(build_request("POST", "/echo_body.php", body=b"x" * 2048))
    assert r.status == 413, r
    ok = srv.post("/echo_body.php", b"y" * 1024)
    assert ok.status == 200, ok
    assert ok.json()["length"] == 1024


@classic_only
def test_body_over_limit_chunked_413(spindle):
    srv = spindle("http", "--max-body-size", "1KiB")
    r = srv.raw(build_request("POST", "/echo_body.php",
                              headers={"Transfer-Encoding": "chunked"},
                              body=chunked([b"x" * 600, b"y" * 600, b"z" * 600])))
    assert r.status == 413, r


@classic_only
@pytest.mark.parametrize("value", ["abc", "-5", "12abc", "1 2"])
def test_invalid_content_length_400(spindle, value):
    srv = spindle("http")
    r = srv.raw(build_request("POST", "/echo_body.php",
                              headers={"Content-Length": value}, body=b"12"))
    assert r.status == 400, r


@classic_only
@pytest.mark.parametrize("order", ["cl_first", "te_first"])
def test_content_length_and_transfer_encoding_400(spindle, order):
    srv = spindle("http")
    headers = [("Content-Length", "5"), ("Transfer-Encoding", "chunked")]
    if order == "te_first":
        headers.reverse()
    r = srv.raw(build_request("POST", "/echo_body.php", headers=headers,
                              body=chunked([b"hello"])))
    assert r.status == 400, r


@classic_only
@pytest.mark.parametrize("target", ["/index.php%00.txt", "/%00", "/static.txt%00"])
def test_nul_in_path_400(spindle, target):
    srv = spindle("http")
    r = srv.raw(build_request("GET", target))
    assert r.status == 400, r


@classic_only
@pytest.mark.parametrize("target", ["/bad%zzpath", "/bad%2", "/bad%", "/%g0/index.php"])
def test_malformed_percent_escape_400(spindle, target):
    srv = spindle("http")
    r = srv.raw(build_request("GET", target))
    assert r.status == 400, r


@classic_only
def test_missing_host_in_http11_400(spindle):
    srv = spindle("http")
    r = srv.raw(b"GET / HTTP/1.1\r\nUser-Agent: test\r\n\r\n")
    assert r.status == 400, r


def test_header_names_with_underscore_do_not_reach_php(spindle):
    srv = spindle("http")
    r = srv.get("/request_headers.php",
                headers=[("X_Foo", "underscore-value"), ("X-Foo", "dash-value"),
                         ("X_Only_Underscore", "only")])
    assert r.status == 200, r
    data = r.json()
    assert data["server"].get("HTTP_X_FOO") == "dash-value"
    assert "HTTP_X_ONLY_UNDERSCORE" not in data["server"]
    assert "underscore-value" not in json.dumps(data)
    assert "X_Foo" not in data["getallheaders"]
    assert "X_Only_Underscore" not in data["getallheaders"]
    assert data["getallheaders"].get("X-Foo") == "dash-value"


# --- responses ------------------------------------------------------------------------------


def test_streamed_response_arrives_before_script_ends(spindle):
    srv = spindle("http")
    with srv.connect() as conn:
        start = time.monotonic()
        conn.send_request("GET", "/stream_flush.php?ms=1500")
        head = conn.read_head()
        assert head.status == 200, head
        assert (head.header("Transfer-Encoding") or "").lower() == "chunked", head
        first = conn.read_chunk()
        first_at = time.monotonic() - start
        rest = b""
        while True:
            data = conn.read_chunk()
            if not data:
                break
            rest += data
        end_at = time.monotonic() - start
    assert first.startswith(b"first part\n"), first
    assert first_at < 1.0, f"first part arrived after {first_at:.2f}s, not before the sleep"
    assert end_at >= 1.4
    assert first + rest == b"first part\nsecond part\n"


def test_8mb_response_complete(spindle):
    srv = spindle("http")
    r = srv.get("/big_response.php", timeout=30)
    assert r.status == 200, r
    expected = big_response_body()
    assert len(r.body) == len(expected) == 8 * 1024 * 1024
    assert hashlib.sha256(r.body).digest() == hashlib.sha256(expected).digest()


def test_8mb_response_then_keep_alive(spindle):
    srv = spindle("http")
    with srv.connect(timeout=30) as conn:
        r = conn.request("GET", "/big_response.php")
        assert len(r.body) == 8 * 1024 * 1024
        r = conn.request("GET", "/")
        assert r.body == INDEX_BODY


def test_unknown_method_on_php(spindle):
    srv = spindle("http")
    r = srv.request("PATCH", "/echo_body.php", body=b"patched")
    assert r.status == 200, r
    assert r.json()["method"] == "PATCH"


@classic_only
def test_server_survives_garbage(spindle):
    srv = spindle("http")
    with srv.connect(timeout=5) as conn:
        conn.send(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n")
        try:
            data = conn.read_until_close()
        except ConnectionClosed:
            data = b""
        assert not data or data.startswith(b"HTTP/1.1 400")
    assert srv.get("/").status == 200

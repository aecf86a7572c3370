"""What PHP scripts see of the request ($_SERVER, superglobals, uploads, php://input) and how
what they set (headers, status, cookies, sessions) reaches the client."""

import base64
import hashlib
import json
import os
import re
import time

import pytest

from spindle_harness import FIXTURES
from spindle_http import build_request, multipart


# --- $_SERVER -------------------------------------------------------------------------------


def test_server_variables(spindle):
    srv = spindle("sapi")
    root = os.path.realpath(srv.root)
    with srv.connect() as conn:
        client_port = conn.sock.getsockname()[1]
        before = time.time()
        r = conn.request("GET", "/server_vars.php/extra/path?x=1&y=%41",
                         headers={"X-Custom": "custom value", "User-Agent": "spindle-tests"})
        after = time.time()
    assert r.status == 200, r
    s = r.json()
    assert s["REQUEST_METHOD"] == "GET"
    assert s["REQUEST_URI"] == "/server_vars.php/extra/path?x=1&y=%41"
    assert s["QUERY_STRING"] == "x=1&y=%41"
    assert s["SCRIPT_NAME"] == "/server_vars.php"
    assert s["SCRIPT_FILENAME"] == os.path.join(root, "server_vars.php")
    assert s["PATH_INFO"] == "/extra/path"
    assert s["PATH_TRANSLATED"] == root + "/extra/path"
    assert s["PHP_SELF"] == "/server_vars.php/extra/path"
    assert s["DOCUMENT_ROOT"] == root
    assert s["DOCUMENT_URI"] == "/server_vars.php"
    assert s["SERVER_NAME"] == "127.0.0.1"
    assert s["SERVER_PORT"] == str(srv.port)
    assert s["SERVER_PROTOCOL"] == "HTTP/1.1"
    assert s["SERVER_SOFTWARE"].startswith("Spindle")
    assert s["GATEWAY_INTERFACE"] == "CGI/1.1"
    assert s["REMOTE_ADDR"] == "127.0.0.1"
    assert s["REMOTE_PORT"] == str(client_port)
    assert s["REQUEST_SCHEME"] == "http"
    # Defined and empty on plain HTTP, as FrankenPHP has them.
    assert (s["HTTPS"], s["SSL_PROTOCOL"], s["SSL_CIPHER"]) == ("", "", "")
    assert (s["AUTH_TYPE"], s["REMOTE_IDENT"]) == ("", "")
    assert s["HTTP_HOST"] == f"127.0.0.1:{srv.port}"
    assert s["HTTP_X_CUSTOM"] == "custom value"
    assert s["HTTP_USER_AGENT"] == "spindle-tests"
    assert isinstance(s["REQUEST_TIME"], int)
    assert int(before) - 1 <= s["REQUEST_TIME"] <= after + 1
    assert isinstance(s["REQUEST_TIME_FLOAT"], float)
    assert before - 1 <= s["REQUEST_TIME_FLOAT"] <= after + 1
    # Only a worker's boot $_SERVER has it, as in FrankenPHP (test_worker.py).
    assert "FRANKENPHP_WORKER" not in s


def test_scripts_run_in_their_own_directory(spindle):
    # As under php-fpm: getcwd() is the script's directory (symlinks resolved), not the
    # server's (the root here), and relative paths start there, on every request of a thread.
    srv = spindle("sapi")
    directory = os.path.realpath(FIXTURES / "sapi" / "nested")
    for _ in range(3):
        r = srv.get("/nested/working_directory.php")
        assert r.status == 200, r
        assert r.body.decode() == f"{directory}\nread through a relative path\n"
        assert srv.get("/teapot.php").status == 418


def test_realpath_answers_as_php_fpm_does(spindle):
    # Spindle's realpath() leaves out the ZTS build's second access(2) of each answer
    # (sapi/realpath_function.cpp): what a script gets must not change, on every request of
    # a thread (the realpath cache warm from the one before).
    srv = spindle("sapi")
    for _ in range(3):
        r = srv.get("/realpath.php")
        assert r.status == 200, r
        assert r.json() == {"rounds": [[True] * 6] * 2, "deleted": [True, True],
                            "open_basedir": True}


def test_shutdown_functions_and_destructors_stay_in_the_scripts_directory(spindle):
    # A classic script's working directory lasts until its request ends: what runs after its
    # last line resolves relative paths as the script did.
    srv = spindle("sapi")
    directory = os.path.realpath(FIXTURES / "sapi" / "nested")
    for _ in range(3):
        r = srv.get("/nested/shutdown_directory.php")
        assert r.status == 200, r
        assert r.body.decode() == (
            f"script: {directory}\nshutdown: {directory}\ndestructor: {directory}\n"
        ), r
    # The next request on the thread starts afresh.
    r = srv.get("/nested/working_directory.php")
    assert r.body.decode().startswith(f"{directory}\n"), r


def test_server_name_is_host_without_port(spindle):
    srv = spindle("sapi")
    s = srv.get("/server_vars.php", host="example.test:8080").json()
    assert s["SERVER_NAME"] == "example.test"
    assert s["HTTP_HOST"] == "example.test:8080"
    s = srv.get("/server_vars.php", host="example.test").json()
    assert s["SERVER_NAME"] == "example.test"


def test_server_protocol_http10(spindle):
    srv = spindle("sapi")
    s = srv.get("/server_vars.php", version="1.0", host=False).json()
    assert s["SERVER_PROTOCOL"] == "HTTP/1.0"


def test_content_type_and_length(spindle):
    srv = spindle("sapi")
    s = srv.post("/server_vars.php", b"some text body", content_type="text/plain").json()
    assert s["REQUEST_METHOD"] == "POST"
    assert s["CONTENT_TYPE"] == "text/plain"
    assert s["CONTENT_LENGTH"] == "14"
    assert "HTTP_CONTENT_TYPE" not in s
    assert "HTTP_CONTENT_LENGTH" not in s


def test_basic_auth(spindle):
    srv = spindle("sapi")
    token = base64.b64encode(b"alice:s3cr:et").decode()
    s = srv.get("/server_vars.php", headers={"Authorization": f"Basic {token}"}).json()
    assert s["PHP_AUTH_USER"] == "alice"
    assert s["PHP_AUTH_PW"] == "s3cr:et"
    # Empty as FrankenPHP sets it: the server did not authenticate anyone.
    assert s.get("AUTH_TYPE") == ""
    # The user, as nginx's fastcgi_params and FrankenPHP pass it on.
    assert s.get("REMOTE_USER") == "alice"
    assert "REMOTE_USER" not in srv.get("/server_vars.php").json()


def test_raw_request_uri_and_query(spindle):
    srv = spindle("sapi")
    r = srv.get("/a%20b.php?x=%41&y=a+b&z=%2F")
    assert r.status == 200, r
    data = r.json()
    s = data["server"]
    assert s["REQUEST_URI"] == "/a%20b.php?x=%41&y=a+b&z=%2F"
    assert s["QUERY_STRING"] == "x=%41&y=a+b&z=%2F"
    assert s["SCRIPT_NAME"] == "/a b.php"
    assert data["get"] == {"x": "A", "y": "a b", "z": "/"}


# --- superglobals ---------------------------------------------------------------------------


def test_get_arrays(spindle):
    srv = spindle("sapi")
    data = srv.get("/superglobals.php?a=1&list[]=x&list[]=y&map[k]=v&empty=").json()
    assert data["get"] == {"a": "1", "list": ["x", "y"], "map": {"k": "v"}, "empty": ""}


def test_post_urlencoded(spindle):
    srv = spindle("sapi")
    data = srv.post("/superglobals.php", "name=J%C3%B6rg&list[]=a&list[]=b&plus=a+b").json()
    assert data["post"] == {"name": "J\u00f6rg", "list": ["a", "b"], "plus": "a b"}


def test_post_multipart_fields(spindle):
    srv = spindle("sapi")
    content_type, body = multipart({"first": "one", "second": "two words"}, {})
    data = srv.post("/superglobals.php", body, content_type=content_type).json()
    assert data["post"] == {"first": "one", "second": "two words"}


def test_cookies(spindle):
    srv = spindle("sapi")
    data = srv.get("/superglobals.php", headers={"Cookie": "a=1; b=two; c=%20x"}).json()
    assert data["cookie"] == {"a": "1", "b": "two", "c": " x"}


def test_cookies_in_several_headers(spindle):
    srv = spindle("sapi")
    data = srv.get("/superglobals.php", headers=[("Cookie", "a=1; b=2"), ("Cookie", "c=3")]).json()
    assert data["cookie"] == {"a": "1", "b": "2", "c": "3"}


def test_request_merges_get_and_post_without_cookies(spindle):
    srv = spindle("sapi")
    data = srv.post("/superglobals.php?g=get&both=from-get", "p=post&both=from-post",
                    headers={"Cookie": "c=cookie; both=from-cookie"}).json()
    assert data["request"] == {"g": "get", "p": "post", "both": "from-post"}, data
    assert data["cookie"] == {"c": "cookie", "both": "from-cookie"}, data


@pytest.mark.parametrize("size", [1000, 300_000], ids=["small", "300KB"])
def test_file_upload(spindle, size):
    srv = spindle("sapi")
    content = os.urandom(size)
    content_type, body = multipart({"note": "with a file"},
                                   {"upload": ("report.bin", "application/octet-stream", content)})
    r = srv.post("/upload.php", body, content_type=content_type)
    assert r.status == 200, r
    data = r.json()
    assert data["post"] == {"note": "with a file"}
    f = data["files"]["upload"]
    assert f["name"] == "report.bin"
    assert f["type"] == "application/octet-stream"
    assert f["size"] == size
    assert f["error"] == 0
    assert f["is_uploaded_file"] is True
    assert f["md5"] == hashlib.md5(content).hexdigest()
    # The temporary file goes away with the request.
    deadline = time.monotonic() + 3
    while os.path.exists(f["tmp_name"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(f["tmp_name"]), f"upload temp file {f['tmp_name']} was left behind"


def test_php_input_json(spindle):
    srv = spindle("sapi")
    payload = {"name": "spindle", "list": [1, 2, 3], "nested": {"ok": True}, "text": "h\u00e9"}
    r = srv.post("/json_input.php", json.dumps(payload), content_type="application/json")
    assert r.status == 200, r
    data = r.json()
    assert data["decoded"] == payload
    assert data["reread_same"] is True
    assert data["content_type"] == "application/json"
    assert data["post"] == []


# --- what scripts send ----------------------------------------------------------------------


def test_header_functions_and_response_code(spindle):
    srv = spindle("sapi")
    r = srv.get("/response_headers.php")
    assert r.status == 201, r
    assert r.header("X-Kept") == "kept-value"
    assert r.header("X-Removed") is None
    assert r.header_all("X-Multi") == ["first", "second"]
    assert r.header_all("X-Replaced") == ["new"]
    assert r.body == b"created\n"


def test_default_content_type_is_spelt_content_type(spindle):
    srv = spindle("sapi")
    r = srv.raw(b"GET /teapot.php HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    assert r.status == 418, r
    names = [name for name, _ in r.headers]
    assert "Content-Type" in names and "Content-type" not in names, r
    assert r.header("Content-Type") == "text/html; charset=UTF-8", r


def test_not_modified_carries_no_content_type(spindle):
    srv = spindle("sapi")
    fresh = srv.get("/not_modified.php")
    assert fresh.status == 200 and fresh.header("Content-Type") == "application/json", fresh
    r = srv.get("/not_modified.php", headers={"If-None-Match": '"v1"'})
    assert r.status == 304, r
    assert r.header("ETag") == '"v1"', r
    assert r.header("Content-Type") is None, r
    assert r.body == b"", r


def test_header_lines_without_a_field_name_are_dropped(spindle):
    srv = spindle("sapi")
    r = srv.raw(b"GET /header_names.php HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    assert r.status == 200 and r.body == b"ok\n", r
    names = [name for name, _ in r.headers]
    assert r.header("Valid-Name") == "1" and r.header("No-Space") == "after-colon", r
    for name in names:
        assert name == name.strip() and " " not in name and "(" not in name, r
    assert "Invalid" not in names, r
    srv.wait_for_log(r'without a valid field name dropped: "  Leading-Space: folded"')


@pytest.mark.parametrize("code, interim", [(102, [102]), (103, [103]), (101, [])])
def test_informational_status_left_at_output_becomes_interim_then_200(spindle, code, interim):
    srv = spindle("sapi")
    r = srv.get(f"/interim_status.php?code={code}")
    assert [i.status for i in r.interim] == interim, r
    assert r.status == 200 and r.body == b"body\n", r


def test_date_header_is_sent_once(spindle):
    srv = spindle("sapi")
    own = srv.get("/date_header.php")
    assert own.status == 200, own
    assert len(own.header_all("Date")) == 1
    assert own.header("Date").endswith(" GMT")
    # The script's Date is the only one, as under Go's net/http (FrankenPHP).
    dated = srv.get("/date_header.php?date=Sun,%2006%20Nov%201994%2008:49:37%20GMT")
    assert dated.header_all("Date") == ["Sun, 06 Nov 1994 08:49:37 GMT"], dated
    assert dated.body == b"dated\n"


def test_status_line_with_reason_phrase(spindle):
    srv = spindle("sapi")
    r = srv.get("/teapot.php")
    assert r.status == 418, r
    assert r.reason == "I'm a teapot"
    assert r.body == b"short and stout\n"


def test_status_header_sets_the_status_as_behind_php_fpm(spindle):
    # Scripts written for php-fpm set the status with header("Status: ..."), which nginx turns
    # into the status line; it never goes out as a field.
    srv = spindle("sapi")
    r = srv.get("/cgi_status.php?case=reason")
    assert (r.status, r.reason) == (404, "Nothing Here"), r
    assert r.header("Status") is None and r.body == b"status 404\n", r
    r = srv.get("/cgi_status.php?case=code")
    assert (r.status, r.reason) == (503, "Service Unavailable"), r
    assert r.header("Retry-After") == "120" and r.header("Status") is None, r
    r = srv.get("/cgi_status.php?case=redirect")
    assert (r.status, r.reason) == (301, "Moved Permanently"), r
    assert r.header("Location") == "/elsewhere" and r.body == b"status 301\n", r
    r = srv.get("/cgi_status.php?case=over_status_line")
    assert (r.status, r.reason) == (410, "Gone"), r
    r = srv.get("/cgi_status.php?case=not_modified")
    assert r.status == 304 and r.body == b"", r
    # Not a status: dropped, and the status stays the script's.
    r = srv.get("/cgi_status.php?case=invalid")
    assert r.status == 202 and r.header("Status") is None and r.body == b"status 202\n", r
    assert srv.wait_for_log(re.escape('header("Status: soon") is no status code'))
    # The next request on the same thread starts from 200 again.
    r = srv.get("/cgi_status.php")
    assert r.status == 200 and r.body == b"status 200\n", r


def test_several_set_cookie_headers(spindle):
    srv = spindle("sapi")
    r = srv.get("/set_cookies.php")
    assert r.status == 200, r
    cookies = r.header_all("Set-Cookie")
    assert len(cookies) == 3, r
    assert [c.split("=", 1)[0] for c in cookies] == ["first", "second", "third"]
    assert "HttpOnly" in cookies[1]


def test_session_across_requests(spindle, tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    srv = spindle("sapi", "--php-ini-set", f"session.save_path={sessions}")
    r = srv.get("/session_counter.php")
    assert r.body == b"count=1\n", r
    cookie = next(c for c in r.header_all("Set-Cookie") if c.startswith("PHPSESSID="))
    session_cookie = cookie.split(";", 1)[0]
    for expected in (2, 3):
        r = srv.get("/session_counter.php", headers={"Cookie": session_cookie})
        assert r.body == f"count={expected}\n".encode(), r
    # Without the cookie a new session starts.
    assert srv.get("/session_counter.php").body == b"count=1\n"
    assert any(p.name.startswith("sess_") for p in sessions.iterdir())


def test_session_save_handler_registered_once_serves_later_requests(spindle, tmp_path, mode):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    srv = spindle("sapi", "--php-ini-set", f"session.save_path={sessions}", warmup=None)
    first = srv.get("/session_handler.php")
    assert first.status == 200 and first.json() == {"count": 1, "opened": 1}, first
    cookie = next(c for c in first.header_all("Set-Cookie") if c.startswith("PHPSESSID="))
    for expected in (2, 3):
        r = srv.get("/session_handler.php", headers={"Cookie": cookie.split(";", 1)[0]})
        assert r.status == 200, r
        # A worker registered the handler once and opens every session with it; a classic
        # request registers its own.
        assert r.json() == {"count": expected, "opened": expected if mode == "worker" else 1}, r
    assert "User session functions are not defined" not in srv.log(), srv.log_tail()


def test_getallheaders(spindle):
    srv = spindle("sapi")
    r = srv.get("/getallheaders.php",
                headers=[("X-Custom-One", "1"), ("Accept", "text/plain"), ("X-Mixed-Case", "v")])
    assert r.status == 200, r
    data = r.json()
    for name in ("getallheaders", "apache_request_headers"):
        headers = data[name]
        assert headers["X-Custom-One"] == "1", headers
        assert headers["Accept"] == "text/plain"
        assert headers["X-Mixed-Case"] == "v"
        assert headers["Host"] == f"127.0.0.1:{srv.port}"
    assert data["getallheaders"] == data["apache_request_headers"]


def test_getallheaders_names_are_canonical_whatever_case_was_sent(spindle):
    # As php-fpm and FrankenPHP give them; HTTP/2 proxies forward every name in lower case.
    srv = spindle("sapi")
    r = srv.get("/getallheaders.php", headers=[("authorization", "Bearer t"),
                                               ("x-custom-THING", "1"), ("ACCEPT-language", "en"),
                                               ("x-custom-thing", "2"), ("Cookie", "a=1"),
                                               ("cookie", "b=2")])
    assert r.status == 200, r
    headers = r.json()["getallheaders"]
    assert headers["Authorization"] == "Bearer t", headers
    assert headers["X-Custom-Thing"] == "1, 2", headers
    assert headers["Cookie"] == "a=1; b=2", headers  # joined as HTTP_COOKIE is
    assert headers["Accept-Language"] == "en", headers
    assert not any(name != "-".join(w.capitalize() for w in name.split("-")) for name in headers)


def test_head_runs_php_without_body(spindle):
    srv = spindle("sapi")
    with srv.connect() as conn:
        r = conn.request("HEAD", "/teapot.php")
        assert r.status == 418
        assert r.header("Content-Length") == str(len(b"short and stout\n"))
        r = conn.request("GET", "/")
        assert r.body == b"sapi index\n"


def test_pipelined_requests_get_their_own_superglobals(spindle):
    srv = spindle("sapi")
    with srv.connect() as conn:
        conn.send(build_request("POST", "/superglobals.php?n=1",
                                headers={"Content-Type": "application/x-www-form-urlencoded",
                                         "Cookie": "c=1"}, body=b"p=1")
                  + build_request("GET", "/superglobals.php?n=2"))
        first = conn.read_response().json()
        second = conn.read_response().json()
    assert first["get"] == {"n": "1"}
    assert first["post"] == {"p": "1"}
    assert first["cookie"] == {"c": "1"}
    assert second["get"] == {"n": "2"}
    assert second["post"] == []
    assert second["cookie"] == []


def php_log_lines(srv, tag):
    """The JSON log objects of the "php" logger that mention `tag`."""
    lines = [json.loads(line) for line in srv.log().splitlines() if line.startswith("{")]
    return [line for line in lines if line["logger"] == "php" and tag in line["msg"]]


def test_frankenphp_log_writes_levels_and_context_as_json_fields(spindle):
    srv = spindle("sapi", "--log-format", "json", "--log-level", "debug")
    srv.expect_errors(r"error t1")
    assert srv.get("/frankenphp_log.php?tag=t1").body == b"logged\n"
    # The lines are written in order; the reader thread may lag behind the response.
    deadline = time.monotonic() + 5
    while len(lines := php_log_lines(srv, "t1")) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(lines) == 5, lines
    by_level = {line["msg"].split("] ", 1)[1]: line for line in lines}
    assert by_level["debug t1"]["level"] == "debug"
    assert by_level["info t1"]["level"] == "info"
    warn = by_level["warn t1"]
    assert warn["level"] == "warning" and warn["usage"] == 1048576 and warn["ok"] is True
    error = by_level["error t1"]
    assert error["level"] == "error"
    assert error["text"] == "quote \" slash / line\nbreak"
    assert error["list"] == ["a", 2, None] and error["map"] == {"k": 1.5}
    assert error["7"] == "int key"
    # The line carries the request's slot and id, like error_log()'s.
    assert re.match(r"\[slot \d+ req \d+\] error t1$", error["msg"]), error
    assert by_level["error_log t1"]["level"] in {"info", "error", "warning"}
    assert "usage" not in by_level["error_log t1"]


def test_frankenphp_log_fields_follow_the_message_in_console_lines(spindle):
    srv = spindle("sapi", "--log-level", "info")
    srv.expect_errors(r"error t2")
    assert srv.get("/frankenphp_log.php?tag=t2").status == 200
    record = srv.wait_for_log(r"warn t2")
    assert record.level == "warning" and record.logger == "php"
    assert record.text.endswith('warn t2 {"usage":1048576,"ok":true}'), record
    # Below the server's level nothing is written.
    assert not any("debug t2" in r.text for r in srv.records())

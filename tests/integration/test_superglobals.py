"""$_SERVER and $_ENV as the one-pass builder makes them (sapi/server_variables.cpp,
sapi/server_keys.cpp, sapi/env_arrays.cpp; docs/environment.md): variables_order,
filter.default, the prepared keys of common headers and the per-thread cache of the others,
repeated headers, and that nothing a request adds or changes reaches the next one. Runs in
classic and worker mode; fixtures: tests/fixtures/superglobals/."""

import random
import re
import string
import time
import urllib.parse

import pytest

from conftest import FIXTURES, HERE

APP = FIXTURES / "superglobals"
SERVER_KEYS_SOURCE = HERE.parent.parent / "sapi" / "server_keys.cpp"

# Headers of the common list that are not sent as plain fields here: they are CONTENT_TYPE /
# CONTENT_LENGTH (tested in test_sapi.py), never HTTP_PROXY (httpoxy), or they change how the
# request is framed or handled (Host is sent anyway, Transfer-Encoding frames the body, Expect
# asks for 100 Continue, Upgrade and HTTP2-Settings ask for another protocol, Connection and
# Keep-Alive steer the connection).
NOT_SENT = {"content-type", "content-length", "proxy", "host", "transfer-encoding", "expect",
            "upgrade", "http2-settings", "connection", "keep-alive"}


def common_header_names():
    """The common header list, read from the source so that a name added there is tested."""
    text = SERVER_KEYS_SOURCE.read_text()
    block = text[text.index("common_header_names[] = {"):]
    block = block[:block.index("};")]
    names = re.findall(r'"([A-Za-z0-9-]+)"', block)
    assert len(names) > 90, names
    return names


def http_key(name):
    return "HTTP_" + name.upper().replace("-", "_")


def dump(conn_or_srv, name="", headers=None):
    target = "/dump.php" + ("?name=" + urllib.parse.quote(name) if name else "")
    r = conn_or_srv.request("GET", target, headers=headers)
    assert r.status == 200, r
    return r.json()


def one_thread(mode):
    """Flags that make every request of the test run on the same PHP thread."""
    return ["--threads", "1"] if mode == "classic" else []


# --- variables_order ------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["EGPCS", "GPCS"])
def test_variables_order_decides_env(spindle, order):
    srv = spindle(APP, "--php-ini-set", f"variables_order={order}",
                  env={"SG_ENV_VAR": "from-env"})
    seen = dump(srv, "SG_ENV_VAR")
    assert seen["variables_order"] == order
    # $_SERVER always carries the environment and the request, as under php-fpm.
    assert seen["server"]["SG_ENV_VAR"] == "from-env"
    assert seen["server"]["REQUEST_METHOD"] == "GET"
    assert seen["getenv"] == "from-env"
    if "E" in order:
        assert seen["env"]["SG_ENV_VAR"] == "from-env"
    else:
        assert seen["env"] == []


@pytest.mark.classic_only
@pytest.mark.parametrize("worker", [False, True], ids=["classic", "worker"])
def test_variables_order_without_s_leaves_server_empty_but_getenv_works(spindle, worker):
    # PHP builds an empty $_SERVER without 'S' (php_auto_globals_create_server); php-fpm's
    # getenv() still answers from its FastCGI parameters, and so does Spindle's. The executor
    # fixtures find out that they are workers through $_SERVER, so the worker variant runs a
    # plain worker loop.
    flags = ["--php-ini-set", "variables_order=GPC"]
    target = "/dump.php"
    if worker:
        flags += ["--worker", f"{APP / 'gpc_worker.php'},1", "--threads", "2"]
        target = "/gpc_worker.php"
    srv = spindle(APP, *flags, env={"SG_ENV_VAR": "from-env"}, warmup="/index.php")
    for _ in range(3):  # a worker's first request and the ones that reuse its arrays
        for name, expected in (("REQUEST_METHOD", "GET"), ("SG_ENV_VAR", "from-env"),
                               ("HTTP_X_ASKED", "yes")):
            r = srv.get(f"{target}?name={name}", headers={"X-Asked": "yes"})
            assert r.status == 200, r
            seen = r.json()
            assert seen["variables_order"] == "GPC"
            assert seen["server"] == [], seen["server"]
            assert seen["env"] == []
            assert seen["getenv"] == expected, (name, seen["getenv"])


# --- filter.default -------------------------------------------------------------------------


def test_filter_default_filters_server_values(spindle):
    srv = spindle(APP, "--php-ini-set", "filter.default=special_chars")
    for _ in range(2):
        seen = dump(srv, "HTTP_X_T", headers={"X-T": "<b>"})
        assert seen["server"]["HTTP_X_T"] == "&#60;b&#62;"
        # filter_input() reads the raw values the filter kept.
        assert seen["filter_input"] == "<b>"
        assert seen["filter_input_special"] == "&#60;b&#62;"
        assert seen["server"]["REQUEST_METHOD"] == "GET"


def test_without_filter_default_values_are_raw_and_filter_input_sees_none(spindle):
    # Documented (docs/environment.md): as in FrankenPHP and php-fpm (bug #49184),
    # filter_input(INPUT_SERVER) only sees values when filter.default is set.
    srv = spindle(APP)
    seen = dump(srv, "HTTP_X_T", headers={"X-T": "<b>"})
    assert seen["server"]["HTTP_X_T"] == "<b>"
    assert seen["filter_input"] is None


# --- header names ---------------------------------------------------------------------------


def common_request(names, case):
    headers = []
    for name in names:
        if name.lower() in NOT_SENT:
            continue
        value = "Basic dXNlcjpwYXNz" if name == "Authorization" else f"v-{name.lower()}"
        headers.append((case(name), value))
    return headers


def test_every_common_header_maps_to_its_key_on_the_same_thread(spindle, mode):
    srv = spindle(APP, *one_thread(mode))
    names = common_header_names()
    with srv.connect() as conn:
        # Twice as listed, then in lower and upper case: the same keys every time.
        for case in (str, str, str.lower, str.upper):
            headers = common_request(names, case)
            seen = dump(conn, headers=headers)["server"]
            for name, value in headers:
                assert seen.get(http_key(name)) == value, (name, seen.get(http_key(name)))
            assert seen["HTTP_HOST"] == f"127.0.0.1:{srv.port}"
            assert "HTTP_PROXY" not in seen
            assert "HTTP_CONTENT_TYPE" not in seen and "HTTP_CONTENT_LENGTH" not in seen


def test_uncommon_names_never_leak_into_another_request(spindle, mode):
    # The per-thread cache converts X-Foo once; a later request without it must not see it.
    srv = spindle(APP, *one_thread(mode))
    with srv.connect() as conn:
        for _ in range(2):
            first = dump(conn, headers={"X-Foo": "foo"})["server"]
            second = dump(conn, headers={"X-Bar": "bar"})["server"]
            third = dump(conn, headers={"x-foo": "lower"})["server"]
            assert first["HTTP_X_FOO"] == "foo" and "HTTP_X_BAR" not in first
            assert second["HTTP_X_BAR"] == "bar" and "HTTP_X_FOO" not in second
            assert third["HTTP_X_FOO"] == "lower" and "HTTP_X_BAR" not in third


def test_server_keys_come_in_the_order_of_a_fresh_build_whatever_came_before(spindle, mode):
    # A worker thread reuses its $_SERVER and keeps the buckets of keys that come again at the
    # same place (sapi/server_variables.cpp): whatever the previous request sent, the order
    # must be the one a fresh build gives. Header keys in the order sent, after the CGI ones;
    # PHP's own last.
    srv = spindle(APP, *one_thread(mode), env={"HTTP_X_TWO": "env-value"})
    requests = {
        "three": ("/dump.php", [("X-One", "1"), ("Accept", "a"), ("X-Two", "2")]),
        "swapped": ("/dump.php", [("X-Two", "2"), ("X-One", "1")]),
        "auth": ("/dump.php/extra", [("Accept", "a"), ("Authorization", "Basic dTpw")]),
        "none": ("/dump.php", []),
    }

    def keys_and_values(name):
        target, headers = requests[name]
        r = conn.request("GET", target, headers=headers)
        assert r.status == 200, r
        server = r.json()["server"]
        # HTTP_X_TWO keeps the environment's place, the request's value or not.
        sent = ["HTTP_HOST"] + [http_key(header) for header, _ in headers if header != "X-Two"]
        request_keys = [key for key in server if key.startswith("HTTP_") and key != "HTTP_X_TWO"]
        assert request_keys == sent, (name, list(server))
        tail = ["REQUEST_TIME_FLOAT", "REQUEST_TIME"]
        if name == "auth":
            tail = ["PHP_AUTH_USER", "PHP_AUTH_PW"] + tail
            assert server["PATH_INFO"] == "/extra" and "PATH_TRANSLATED" in server
        else:
            assert "PATH_TRANSLATED" not in server and "PHP_AUTH_USER" not in server
            assert "REMOTE_USER" not in server
        assert list(server)[-len(tail):] == tail, (name, list(server))
        # The environment's value is back once a request stops shadowing it.
        assert server["HTTP_X_TWO"] == ("2" if "X-Two" in dict(headers) else "env-value")
        changing = ("REQUEST_TIME_FLOAT", "REQUEST_TIME", "REMOTE_PORT")
        return [(key, None if key in changing else value) for key, value in server.items()]

    with srv.connect() as conn:
        first = {name: keys_and_values(name) for name in requests}
        for order in (["swapped", "three", "none", "auth", "three", "auth", "swapped"],
                      ["three", "three", "none", "none", "swapped", "swapped"]):
            for name in order:
                assert keys_and_values(name) == first[name], name


def test_repeated_headers_are_joined(spindle):
    srv = spindle(APP)
    seen = dump(srv, headers=[("X-Multi", "a"), ("Accept", "text/html"), ("x-multi", "b"),
                              ("Cookie", "a=1"), ("X-MULTI", "c"), ("Accept", "*/*"),
                              ("Cookie", "b=2")])["server"]
    assert seen["HTTP_X_MULTI"] == "a, b, c"
    assert seen["HTTP_ACCEPT"] == "text/html, */*"
    assert seen["HTTP_COOKIE"] == "a=1; b=2"


def test_a_nul_byte_never_reaches_a_key(spindle):
    srv = spindle(APP)
    # The HTTP parser refuses such a name outright...
    with srv.connect() as conn:
        conn.send(f"GET /header_keys.php HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A\0B: v\r\n\r\n")
        r = conn.read_response()
    assert 400 <= r.status < 500, r
    # ... and no key of a normal request, environment included, holds one.
    r = srv.get("/header_keys.php", headers={"X-Odd-Name-9": "v\tv", "X-Empty": ""})
    assert r.status == 200, r
    assert r.json()["nul_in_key"] is False


def random_names(rng, count, length=1000):
    alphabet = string.ascii_letters + string.digits
    return ["X-Rnd-" + "".join(rng.choice(alphabet) for _ in range(length)) for _ in range(count)]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def send_names(srv, names, per_request=50):
    with srv.connect(timeout=30) as conn:
        for i in range(0, len(names), per_request):
            batch = names[i:i + per_request]
            r = conn.request("GET", "/header_keys.php",
                             headers=[(name, "v") for name in batch])
            assert r.status == 200, r
            assert r.json() == {"count": len(batch), "nul_in_key": False}


@pytest.mark.zend_allocator
def test_random_header_names_do_not_grow_memory(spindle, mode):
    # Names of 1,000 characters: 2,700 more distinct ones would keep about 5 MiB if every
    # conversion were kept; the cache holds 256 per thread.
    srv = spindle(APP, *one_thread(mode))
    rng = random.Random(4)
    send_names(srv, random_names(rng, 300))
    time.sleep(0.2)
    after_300 = rss_kib(srv.pid)
    send_names(srv, random_names(rng, 2700))
    time.sleep(0.2)
    after_3000 = rss_kib(srv.pid)
    assert after_3000 - after_300 < 2048, (after_300, after_3000)


# --- nothing outlives its request -----------------------------------------------------------


def test_what_a_request_changes_never_reaches_the_next(spindle, mode):
    # Classic requests borrow the thread's copy of the environment for $_SERVER and $_ENV, a
    # worker keeps its $_SERVER: both must hand the next request exactly the environment. All
    # requests run on one thread (one script: one worker thread).
    srv = spindle(APP, *one_thread(mode),
                  env={"SG_ENV_VAR": "from-env", "HTTP_SHADOWED": "env-value"})
    with srv.connect() as conn:
        baseline = list(dump(conn)["server"])
        for _ in range(3):
            r = conn.request("GET", "/dump.php?write=1", headers={"Shadowed": "request-value"})
            assert r.status == 200, r
            assert r.json() == {"server_wrote": "server", "env_wrote": "env"}
            seen = dump(conn)
            server, env = seen["server"], seen["env"]
            assert "APP_WROTE" not in server
            assert server["REQUEST_METHOD"] == "GET"
            assert server["SERVER_SOFTWARE"].startswith("Spindle/")
            assert server["SG_ENV_VAR"] == "from-env"
            assert server["HTTP_SHADOWED"] == "env-value"
            assert env["HTTP_SHADOWED"] == "env-value"
            if mode == "classic":
                assert "APP_WROTE" not in env and env["SG_ENV_VAR"] == "from-env"
            else:
                # A worker builds $_ENV once per script run (docs/worker-mode.md).
                assert env["APP_WROTE"] == "env" and "SG_ENV_VAR" not in env
            # Not even the order ksort() gave the script's copy.
            assert list(server) == baseline
            shadowed = dump(conn, headers={"Shadowed": "request-value"})["server"]
            assert shadowed["HTTP_SHADOWED"] == "request-value"


def test_a_server_array_the_script_holds_is_never_reused_under_it(spindle, mode):
    # A worker keeps two $_SERVER arrays and reuses one only once the script let it go
    # (sapi/worker_request.cpp): a copy the script still holds from an earlier request must
    # read as it did then, and every request must get exactly its own variables, in the order
    # of a fresh build, however many copies the script holds.
    srv = spindle(APP, *one_thread(mode), env={"HTTP_SHADOWED": "env-value"})
    # What changes by itself, or carries the request's number (checked apart).
    changing = ("REQUEST_TIME_FLOAT", "REQUEST_TIME", "REMOTE_PORT", "HTTP_X_REQUEST",
                "QUERY_STRING", "REQUEST_URI", "HTTP_SHADOWED")

    def shape(server):
        return [(key, None if key in changing else value) for key, value in server.items()]

    answered = {}
    with srv.connect() as conn:
        keeps = [1, 1, 1, 2, 3, 3, 0, 1, 0, 0, 2, 1, 1, 4, 4, 4, 1, 0, 1, 1]
        for number, keep in enumerate(keeps, start=100):
            path = "/held.php/extra" if number % 3 == 0 else "/held.php"
            headers = [("X-Request", str(number))]
            if number % 2:
                headers.append(("Shadowed", f"request-{number}"))
            r = conn.request("GET", f"{path}?keep={keep}&n={number}", headers=headers)
            assert r.status == 200, r
            body = r.json()
            server = body["server"]
            assert server["HTTP_X_REQUEST"] == str(number)
            assert server["QUERY_STRING"] == f"keep={keep}&n={number}"
            assert server["REQUEST_URI"] == f"{path}?keep={keep}&n={number}"
            assert server["PATH_INFO"] == ("/extra" if number % 3 == 0 else "")
            assert server["HTTP_SHADOWED"] == (f"request-{number}" if number % 2 else "env-value")
            # The same request shape always gives the same array, keys in the same order.
            kind = (number % 2, number % 3 == 0)
            answered.setdefault(kind, shape(server))
            assert shape(server) == answered[kind], number
            if mode == "classic":
                assert body["held"] == []
                continue
            held_numbers = [int(copy["HTTP_X_REQUEST"]) for copy in body["held"]]
            assert held_numbers == sorted(held_numbers) and all(n < number for n in held_numbers)
            for copy in body["held"]:
                earlier = int(copy["HTTP_X_REQUEST"])
                assert copy["QUERY_STRING"].endswith(f"&n={earlier}"), (number, copy)
                assert copy["PATH_INFO"] == ("/extra" if earlier % 3 == 0 else "")
                assert copy["HTTP_SHADOWED"] == (
                    f"request-{earlier}" if earlier % 2 else "env-value")
                assert shape(copy) == answered[(earlier % 2, earlier % 3 == 0)]


def test_a_fatal_error_inside_a_walk_of_the_arrays_leaves_no_mark(spindle, mode):
    srv = spindle(APP, *one_thread(mode), env={"SG_ENV_VAR": "from-env"})
    srv.expect_errors(r"fatal inside var_dump", r"Cannot use output buffering in output buffering")
    with srv.connect() as conn:
        for _ in range(2):
            r = conn.request("GET", "/fatal_in_dump.php")
            assert r.status == 500, r
    r = srv.get("/fatal_in_dump.php?dump=1")
    assert r.status == 200, r
    assert b"*RECURSION*" not in r.body
    assert b'["SG_ENV_VAR"]=>' in r.body and b'["REQUEST_METHOD"]=>' in r.body

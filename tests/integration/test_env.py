"""The environment (docs/environment.md): the process environment, the server's --env layer
over it, and putenv() as a per-thread overlay that never changes the process environment.
Runs in classic and worker mode; fixtures: tests/fixtures/env/."""

import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import FIXTURES

APP = FIXTURES / "env"


def show(srv, name):
    r = srv.get("/show.php?name=" + urllib.parse.quote(name))
    assert r.status == 200, r
    return r.json()


def test_env_flag_is_seen_everywhere_and_wins_over_the_process(spindle):
    srv = spindle(APP, "--env", "SITE_VAR=site", "--env", "ONLY_SITE=x",
                  env={"SITE_VAR": "from-process", "ONLY_PROCESS": "p"})
    for name, value in (("SITE_VAR", "site"), ("ONLY_SITE", "x"), ("ONLY_PROCESS", "p")):
        seen = show(srv, name)
        assert seen == {"getenv": value, "getenv_local": value, "server": value, "env": value,
                        "in_all": True}, (name, seen)
    assert show(srv, "NOT_SET_ANYWHERE") == {"getenv": False, "getenv_local": False,
                                             "server": None, "env": None, "in_all": False}


def test_empty_values_and_odd_characters_round_trip(spindle):
    odd = 'a b;c=d "q" \\ é\t$HOME'
    srv = spindle(APP, "--env", "EMPTY_VAR=", "--env", f"ODD_VAR={odd}",
                  env={"ODD.NAME-1": "dotted"})
    assert show(srv, "EMPTY_VAR")["getenv"] == ""
    assert show(srv, "EMPTY_VAR")["server"] == ""
    assert show(srv, "ODD_VAR")["getenv"] == odd
    assert show(srv, "ODD_VAR")["server"] == odd
    assert show(srv, "ODD.NAME-1")["getenv"] == "dotted"


def test_getenv_sees_the_requests_cgi_variables_like_php_fpm(spindle):
    srv = spindle(APP)
    seen = show(srv, "REQUEST_METHOD")
    assert seen["getenv"] == "GET" and seen["server"] == "GET", seen
    # local_only asks for the environment alone.
    assert seen["getenv_local"] is False, seen


@pytest.mark.classic_only
@pytest.mark.parametrize("flags", [["--threads", "4"],
                                   ["--worker", f"{APP / 'putenv.php'},2", "--threads", "3"]],
                         ids=["classic", "worker"])
def test_putenv_is_per_thread_under_parallel_requests(spindle, flags):
    # Two threads run the fixture at once: a classic pool, or two threads of one worker.
    srv = spindle(APP, *flags)

    def one(value, ms):
        q = urllib.parse.urlencode({"name": "SHARED_PUT", "set": f"SHARED_PUT={value}", "ms": ms})
        return srv.get("/putenv.php?" + q, timeout=10).json()

    with ThreadPoolExecutor(max_workers=2) as pool:
        slow = pool.submit(one, "slow", 600)
        time.sleep(0.2)
        fast = pool.submit(one, "fast", 0)
        fast_result, slow_result = fast.result(timeout=10), slow.result(timeout=10)
    assert fast_result["after"] == "fast", fast_result
    assert slow_result["after"] == "slow", slow_result
    assert slow_result["before"] is False and fast_result["before"] is False


def test_putenv_lasts_one_classic_request(spindle, mode):
    srv = spindle(APP, "--threads", "1") if mode == "classic" else spindle(APP)
    first = srv.get("/putenv.php?" + urllib.parse.urlencode(
        {"name": "ONE_REQ", "set": "ONE_REQ=1"})).json()
    assert first == {"before": False, "after": "1"}, first
    second = srv.get("/putenv.php?name=ONE_REQ").json()
    if mode == "classic":
        assert second["before"] is False, second
    else:
        # A worker keeps its putenv() across requests until its script ends (documented).
        assert second["before"] == "1", second


def test_putenv_unset_hides_a_variable_for_this_thread_only(spindle, mode):
    srv = spindle(APP, "--env", "HIDE_ME=visible")
    r = srv.get("/putenv.php?" + urllib.parse.urlencode(
        {"name": "HIDE_ME", "unset": "HIDE_ME"})).json()
    assert r == {"before": "visible", "after": False}, r
    if mode == "classic":
        assert show(srv, "HIDE_ME")["getenv"] == "visible"


def test_putenv_rejects_invalid_assignments(spindle):
    srv = spindle(APP)
    r = srv.get("/putenv_invalid.php")
    assert r.status == 200, r
    # As PHP's own putenv(): the NUL ends the assignment, which then unsets NUL_CUT.
    assert r.json() == ["ValueError", "ValueError", "accepted", False, False], r.body
    assert show(srv, "NUL_CUT")["getenv"] is False


@pytest.mark.classic_only
def test_worker_server_array_is_exact_for_every_request(spindle):
    # A worker reuses its $_SERVER between requests; what one request added must vanish and
    # an environment value a request header had shadowed must come back.
    srv = spindle(APP, "--worker", f"{APP / 'show.php'},1", "--threads", "2",
                  env={"HTTP_SHADOWED": "from-env"})

    def server_value(name, headers=None, write=None):
        q = {"name": name}
        if write:
            q["write"] = write
        r = srv.get("/show.php?" + urllib.parse.urlencode(q), headers=headers)
        assert r.status == 200, r
        return r.json()["server"]

    assert server_value("HTTP_SHADOWED") == "from-env"
    assert server_value("HTTP_SHADOWED", headers={"Shadowed": "from-request"}) == "from-request"
    assert server_value("HTTP_SHADOWED") == "from-env"
    assert server_value("HTTP_ONLY_ONCE", headers={"Only-Once": "1"}) == "1"
    assert server_value("HTTP_ONLY_ONCE") is None
    assert server_value("APP_KEY", write="APP_KEY") == "written by the app"
    assert server_value("APP_KEY") is None
    for _ in range(3):
        assert server_value("REQUEST_METHOD") == "GET"

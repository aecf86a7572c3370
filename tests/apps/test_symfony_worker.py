"""A Symfony app assembled from Debian's packages (HttpKernel, HttpFoundation, Routing,
EventDispatcher, ErrorHandler, Twig, Security CSRF; tests/apps/symfony) in worker mode, its
index.php looping on frankenphp_handle_request() as Symfony Runtime's FrankenPHP runner does:
routes, Twig autoescaping, a session + CSRF form with redirect and flash, JSON, 404/405, state
kept by the worker between requests and none leaking between clients."""

import json
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from html import unescape
from pathlib import Path

import pytest

from http_client import Client

APP = Path(__file__).resolve().parent / "symfony"
WORKERS = 2


@pytest.fixture
def app(spindle_run, tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    return spindle_run(f"""{{
	frankenphp {{
		num_threads {WORKERS + 1}
	}}
}}
http://127.0.0.1:0 {{
	bind 127.0.0.1
	root * {APP}/public
	php_server {{
		env APP_SESSION_DIR {sessions}
		worker {{
			file {APP}/public/index.php
			num {WORKERS}
		}}
	}}
}}
""", warmup="/")


def csrf_token(page):
    match = re.search(r'name="_token" value="([^"]+)"', page.text)
    assert match, page
    return unescape(match.group(1))


def test_routes_with_parameters_and_formats(app):
    with Client(app.port) as client:
        home = client.get("/")
        assert home.status == 200
        assert home.header("Content-Type") == "text/html; charset=UTF-8"
        assert "<h1>Home</h1>" in home.text

        post = client.get("/posts/42.json")
        assert post.status == 200
        assert post.header("Content-Type") == "application/json"
        assert post.json() == {"id": 42, "title": "Post 42", "tags": ["spindle", "worker"]}
        html = client.get("/posts/7.html")
        assert "<h1>Post 7</h1><ul><li>spindle</li><li>worker</li></ul>" in html.text

        # Path parameters arrive decoded, query parameters too.
        hello = client.get("/hello/J%C3%BCrgen%20K?greeting=Servus")
        assert "<h1>Servus, Jürgen K!</h1>" in hello.text
        assert '<a href="/hello/J%C3%BCrgen%20K">' in hello.text


def test_twig_escapes_what_the_client_sends(app):
    with Client(app.port) as client:
        page = client.get("/hello/%3Cscript%3Ealert(1)%3C%2Fscript%3E?greeting=%22%3E%3Cb%3E")
        assert page.status == 200
        assert "<script>" not in page.text and "<b>" not in page.text
        assert ("<h1>&quot;&gt;&lt;b&gt;, &lt;script&gt;alert(1)&lt;/script&gt;!</h1>"
                in page.text)


def test_not_found_and_method_not_allowed(app):
    with Client(app.port) as client:
        missing = client.get("/no/such/page")
        assert missing.status == 404
        assert "<h1>404 Not Found</h1><p>/no/such/page</p>" in missing.text
        # A requirement that does not match is a 404 too.
        assert client.get("/posts/abc.json").status == 404
        wrong = client.request("DELETE", "/api/notes")
        assert wrong.status == 405
        assert wrong.header("Allow") == "GET, POST"
        assert "405 Method Not Allowed" in wrong.text
        assert client.get("/logout").status == 405
        # The worker is still fine after the exceptions.
        assert client.get("/posts/1.json").json()["id"] == 1


def test_csrf_form_redirects_and_flashes_once(app):
    with Client(app.port) as client:
        form = client.get("/form")
        assert form.status == 200
        token = csrf_token(form)
        session = client.cookie("PHPSESSID")
        assert session, form.headers
        cookie = form.header("Set-Cookie")
        assert "httponly" in cookie.lower() and "samesite=lax" in cookie.lower(), cookie

        saved = client.post_form("/form", {"_token": token, "note": "first <note>"})
        assert saved.status == 303
        assert saved.header("Location") == "/form"
        shown = client.get(saved.header("Location"))
        assert '<p class="flash">Saved: first &lt;note&gt;</p>' in shown.text
        assert '<li class="note">first &lt;note&gt;</li>' in shown.text
        # The flash is gone on the next view, the note stays.
        again = client.get("/form")
        assert "flash" not in again.text
        assert '<li class="note">first &lt;note&gt;</li>' in again.text
        assert client.cookie("PHPSESSID") == session

        # A wrong token, or none, is refused and stores nothing.
        forged = client.post_form("/form", {"_token": "forged", "note": "evil"})
        assert forged.status == 403
        assert "Invalid CSRF token." in forged.text
        assert client.post_form("/form", {"note": "evil"}).status == 403
        # A token from another session is worth nothing in this one.
        with Client(app.port) as other:
            foreign = csrf_token(other.get("/form"))
            assert foreign != token
        assert client.post_form("/form", {"_token": foreign, "note": "evil"}).status == 403
        assert "evil" not in client.get("/form").text

        # Logging out drops the session; the next one starts empty under a new id.
        assert client.request("POST", "/logout").status == 303
        fresh = client.get("/form")
        assert "note" not in re.sub(r'<input name="note">', "", fresh.text.split("<ul>")[-1])
        assert client.cookie("PHPSESSID") not in (None, session)


def test_worker_keeps_application_state(app):
    # Sequential requests from one client and no other traffic: each one is counted by
    # exactly one of the workers, so each worker's counts run on without gaps.
    seen = {}
    with Client(app.port) as client:
        for _ in range(40):
            state = client.get("/api/counter").json()
            seen.setdefault(state["boot"], []).append(state["handled"])
    assert 1 <= len(seen) <= WORKERS, seen
    for counts in seen.values():
        assert counts == list(range(counts[0], counts[0] + len(counts))), seen
    assert sum(len(c) for c in seen.values()) == 40


def test_sessions_never_leak_between_clients(app):
    # Each client keeps its own notes in its session; requests of many clients interleave on
    # the same two workers. A client without a cookie must never be handed another's session.
    clients = 8
    rounds = 6
    barrier = threading.Barrier(clients, timeout=30)

    def one(index):
        notes = []
        with Client(app.port) as client:
            anonymous = client.get("/api/notes")
            assert anonymous.json()["notes"] == [], anonymous
            barrier.wait()
            for round_number in range(rounds):
                note = f"client-{index}-note-{round_number}"
                added = client.post_json("/api/notes", {"note": note})
                assert added.status == 201, added
                notes.append(note)
                assert added.json()["notes"] == notes, (index, added)
                listed = client.get("/api/notes").json()
                assert listed == {"notes": notes, "session_id_matches_cookie": True}, index
                # A request without cookies in between: always a fresh, empty session.
                with Client(app.port) as stranger:
                    assert stranger.get("/api/notes").json()["notes"] == []
            return client.cookie("PHPSESSID")

    with ThreadPoolExecutor(max_workers=clients) as pool:
        sessions = list(pool.map(one, range(clients)))
    assert len(set(sessions)) == clients, sessions

"""A Symfony app assembled from Debian's packages (HttpKernel, HttpFoundation, Routing,
EventDispatcher, ErrorHandler, Twig, Security CSRF; tests/apps/symfony) in worker mode, its
index.php looping on frankenphp_handle_request() as Symfony Runtime's FrankenPHP runner does:
routes, Twig autoescaping, a session + CSRF form with redirect and flash, JSON, 404/405, state
kept by the worker between requests and none leaking between clients; then on real services
(tests/integration/services.py): sessions in Redis under 16 concurrent clients, and a PostgreSQL
connection each worker keeps across its requests and across a restart of the database."""

import hashlib
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from html import unescape
from pathlib import Path
from urllib.parse import quote

import pytest

from http_client import Client
from services import postgres_server, redis_server  # noqa: F401 (fixtures)

APP = Path(__file__).resolve().parent / "symfony"
WORKERS = 2


def caddyfile(sessions, workers=WORKERS, worker_env="", php_ini=""):
    return f"""{{
	frankenphp {{
		num_threads {workers + 1}
		{php_ini}
	}}
}}
http://127.0.0.1:0 {{
	bind 127.0.0.1
	root * {APP}/public
	php_server {{
		env APP_SESSION_DIR {sessions}
		worker {{
			file {APP}/public/index.php
			num {workers}
			{worker_env}
		}}
	}}
}}
"""


@pytest.fixture
def sessions(tmp_path):
    path = tmp_path / "sessions"
    path.mkdir()
    return path


@pytest.fixture
def app(spindle_run, sessions):
    return spindle_run(caddyfile(sessions), warmup="/")


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


def test_request_as_symfony_sees_it(app):
    # Request::createFromGlobals() from the $_SERVER the worker gets: base URL and path info
    # through the front controller fallback and through /index.php/..., host, port, client.
    base = f"http://127.0.0.1:{app.port}"
    with Client(app.port) as client:
        plain = client.get("/whoami?a=1&b[]=2")
        assert plain.json() == {
            "uri": f"{base}/whoami?a=1&b%5B0%5D=2", "base_url": "", "path_info": "/whoami",
            "scheme_and_host": base, "port": app.port, "client_ip": "127.0.0.1",
            "secure": False, "method": "GET", "query": {"a": "1", "b": ["2"]}}
        # One Date header: Symfony's Response sets its own.
        assert len(plain.header_all("Date")) == 1, plain.headers
        front = client.get("/index.php/whoami").json()
        assert (front["base_url"], front["path_info"]) == ("/index.php", "/whoami")
        assert front["query"] == []
        head = client.request("HEAD", "/whoami")
        assert head.status == 200 and head.body == b""
        # The length the body would have (its "method" says HEAD), without the body.
        assert int(head.header("Content-Length")) == len(client.get("/whoami").body) + 1


def test_streamed_response_is_sent_in_chunks(app):
    with app.connect() as conn:
        response = conn.request("GET", "/stream/3")
        assert response.status == 200
        assert response.chunked
        assert response.body == b"part 1\npart 2\npart 3\n"


def test_uploads_belong_to_their_request(app, sessions):
    # UploadedFile::move() is move_uploaded_file(): it works on this request's upload, and the
    # temporary file never outlives the request, in a worker as in a classic script.
    with Client(app.port) as client:
        temporaries = []
        for index, data in enumerate((b"first upload\x00\xff" * 1000, b"second" * 50_000)):
            uploaded = client.post_multipart("/upload", {"note": f"n{index}"},
                                             {"file": (f"f{index}.bin", "application/octet-stream",
                                                       data)})
            assert uploaded.status == 201, uploaded
            result = uploaded.json()
            assert result["client_name"] == f"f{index}.bin"
            assert result["size"] == len(data)
            assert result["sha1"] == hashlib.sha1(data).hexdigest()
            assert result["note"] == f"n{index}"
            assert Path(result["stored"]).read_bytes() == data
            assert result["stored"].startswith(str(sessions))
            temporaries.append(result["temporary"])
        assert temporaries[0] != temporaries[1]
        for temporary in temporaries:
            check = client.get(f"/upload/check?path={quote(temporary)}").json()
            assert check == {"uploaded": False, "exists": False}, temporary
        # Another request cannot claim a file it did not receive.
        assert client.get(f"/upload/check?path={quote(str(APP / 'src/autoload.php'))}").json() == {
            "uploaded": False, "exists": True}
        missing = client.post_multipart("/upload", {"note": "x"}, {})
        assert missing.status == 400


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


def assert_sessions_never_mix(port, clients):
    """Each client keeps its own notes in its session; requests of many clients interleave on
    the same workers. A client without a cookie must never be handed another's session.
    Returns the session ids."""
    rounds = 6
    barrier = threading.Barrier(clients, timeout=30)

    def one(index):
        notes = []
        with Client(port) as client:
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
                with Client(port) as stranger:
                    assert stranger.get("/api/notes").json()["notes"] == []
            return client.cookie("PHPSESSID")

    with ThreadPoolExecutor(max_workers=clients) as pool:
        sessions = list(pool.map(one, range(clients)))
    assert len(set(sessions)) == clients, sessions
    return sessions


def test_sessions_never_leak_between_clients(app):
    assert_sessions_never_mix(app.port, 8)


def with_services(sessions, redis, postgres, workers=WORKERS):
    """The app's Caddyfile with sessions in Redis and the PostgreSQL connection configured."""
    return caddyfile(sessions, workers=workers, php_ini="php_ini extension redis",
                     worker_env=f'env APP_REDIS_PORT {redis.port}\n'
                                f'\t\t\tenv APP_DATABASE_DSN "{postgres.dsn()}"')


def test_sessions_in_redis_never_mix_under_16_clients(spindle_run, sessions, redis_server,
                                                      postgres_server):
    server = spindle_run(with_services(sessions, redis_server, postgres_server))
    ids = assert_sessions_never_mix(server.port, 16)
    # They were kept in Redis (Symfony's RedisSessionHandler, one connection per worker), not
    # in files.
    for session_id in ids:
        assert "client-" in redis_server.query("GET", f"sf_s{session_id}"), session_id
    assert list(sessions.iterdir()) == []
    server.kept_fds = WORKERS


def test_database_connection_kept_by_each_worker_survives_a_restart(
        spindle_run, sessions, redis_server, postgres_server):
    workers = 3
    server = spindle_run(with_services(sessions, redis_server, postgres_server, workers))
    server.kept_fds = 2 * workers  # each worker's Redis and PostgreSQL connections

    def visit_all(prefix, count=60):
        def one(index):
            with Client(server.port) as client:
                response = client.get(f"/db/visit?tag={prefix}{index}")
                assert response.status == 200, response
                return response.json()

        with ThreadPoolExecutor(max_workers=8) as pool:
            visits = list(pool.map(one, range(count)))
        assert [v["tag"] for v in visits] == [f"{prefix}{i}" for i in range(count)]
        return visits

    with Client(server.port) as client:
        assert client.get("/db/visit?setup=1&tag=setup").status == 200
    before = visit_all("before")
    connections = {v["pid"] for v in before}
    assert 1 <= len(connections) <= workers, "each worker keeps one connection"
    assert not any(v["reconnected"] for v in before)

    postgres_server.restart()
    after = visit_all("after")
    # Each worker's first request after the restart found its connection gone and opened a new
    # one before using it; no request failed.
    assert 1 <= sum(v["reconnected"] for v in after) <= workers
    assert not {v["pid"] for v in after} & connections
    later = visit_all("later")
    assert not any(v["reconnected"] for v in later)
    assert len({v["pid"] for v in later}) <= workers


def test_worker_script_that_ends_is_started_again(spindle_run, sessions):
    # Symfony Runtime's FRANKENPHP_LOOP_MAX: the script returns after 5 requests and the
    # server boots it again; clients see no gap and their sessions carry on.
    server = spindle_run(caddyfile(sessions, workers=1, worker_env="env FRANKENPHP_LOOP_MAX 5"),
                         warmup=None)
    boots = []
    with Client(server.port) as client:
        for round_number in range(12):
            added = client.post_json("/api/notes", {"note": f"n{round_number}"})
            assert added.status == 201, added
            assert len(added.json()["notes"]) == round_number + 1
            state = client.get("/api/counter").json()
            if not boots or boots[-1][0] != state["boot"]:
                boots.append((state["boot"], state["handled"]))
    # 24 requests, 5 per boot: the script ran 5 times, each boot counting from the start.
    assert len(boots) == 5, boots
    assert len({boot for boot, _ in boots}) == 5
    assert all(handled <= 2 for _, handled in boots), boots


def test_the_same_app_in_classic_mode_with_a_twig_cache(spindle_run, sessions, tmp_path):
    # public/classic.php builds the kernel for every request (what php-fpm runs in
    # bench/real_apps.py); compiled templates go to APP_TWIG_CACHE and are read back.
    twig_cache = tmp_path / "twig"
    twig_cache.mkdir()
    server = spindle_run(f"""
http://127.0.0.1:0 {{
	bind 127.0.0.1
	root * {APP}/public
	php_server {{
		index classic.php
		env APP_SESSION_DIR {sessions}
		env APP_TWIG_CACHE {twig_cache}
	}}
}}
""", warmup=None)
    with Client(server.port) as client:
        for _ in range(3):
            hello = client.get("/hello/J%C3%BCrgen%20%3Cb%3E?greeting=Servus")
            assert hello.status == 200, hello
            assert "<h1>Servus, Jürgen &lt;b&gt;!</h1>" in hello.text
            assert '<a href="/hello/J%C3%BCrgen%20%3Cb%3E">' in hello.text
        assert client.get("/posts/7.json").json()["title"] == "Post 7"
        assert client.get("/no/such/route").status == 404
    assert list(twig_cache.rglob("*.php")), "Twig compiled nothing into its cache"

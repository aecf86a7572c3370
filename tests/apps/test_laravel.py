"""A Laravel 8 app assembled from Debian's php-laravel-framework (tests/apps/laravel: the
laravel/laravel skeleton's front controller, kernel and configuration, cut to what its routes
use), served by `spindle run` in classic mode: the framework boots for every request, as under
php-fpm. Routing and URL generation from the request, Blade, a file session with CSRF,
validation errors and flashed data, method spoofing, encrypted cookies, JSON in and out,
uploads, BinaryFileResponse downloads with ranges, streamed responses, and Laravel's own error
pages."""

import base64
import hashlib
import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from html import unescape
from pathlib import Path

import pytest

from app_client import Client

APP = Path(__file__).resolve().parent / "laravel"
FRAMEWORK = Path("/usr/share/php/Illuminate/Foundation/Application.php")

# A missing package fails the run rather than skipping its flows.
if not FRAMEWORK.is_file():
    raise AssertionError("needs Debian's php-laravel-framework: run scripts/install-deps.sh apps")


@pytest.fixture(scope="module")
def laravel(app_server, tmp_path_factory):
    base = tmp_path_factory.mktemp("laravel")
    storage = base / "storage"
    for sub in ("app", "logs", "framework/sessions", "framework/views", "framework/cache"):
        (storage / sub).mkdir(parents=True)
    key = "base64:" + base64.b64encode(os.urandom(32)).decode()
    server = app_server(f"""
:0 {{
    bind 127.0.0.1
    root * {APP}/public
    php_server {{
        env APP_KEY {key}
        env APP_STORAGE {storage}
        env APP_SERVICES_CACHE {storage}/framework/cache/services.php
        env APP_PACKAGES_CACHE {storage}/framework/cache/packages.php
        x_sendfile {storage}/app
    }}
}}
""", base)
    server.storage = storage
    return server


def token_of(page):
    match = re.search(r'name="_token" value="([^"]+)"', page.text)
    assert match, page
    return unescape(match.group(1))


def notes_of(page):
    return [unescape(n) for n in re.findall(r'<li><a href="[^"]+">([^<]*)</a></li>', page.text)]


def test_pages_and_urls_built_from_the_request(laravel):
    client = Client(laravel.url())
    home = client.get("/")
    assert home.status == 200, home
    assert home.header("Content-Type") == "text/html; charset=UTF-8"
    assert "<title>Spindle Laravel</title>" in home.text
    assert '<li class="empty">No notes yet.</li>' in home.text
    # Laravel builds absolute URLs from Host, the port and SCRIPT_NAME: a wrong SCRIPT_NAME or
    # PHP_SELF would put /index.php or a directory into every link.
    assert f'action="http://127.0.0.1:{laravel.port}/notes"' in home.text
    assert set(client.cookies) == {"XSRF-TOKEN", "laravel_session"}

    details = client.get("/request?a=1&b[]=x&b[]=y").json()
    origin = f"http://127.0.0.1:{laravel.port}"
    assert details == {
        "url": f"{origin}/request",
        "full_url": f"{origin}/request?a=1&b%5B0%5D=x&b%5B1%5D=y",
        "path": "request",
        "root": origin,
        "secure": False,
        "ip": "127.0.0.1",
        "query": {"a": "1", "b": ["x", "y"]},
        "route": f"{origin}/notes/7",
        "asset": f"{origin}/css/app.css",
    }


def test_form_validation_flash_and_method_spoofing(laravel):
    client = Client(laravel.url())
    home = client.get("/")

    # An empty title: redirected back to the form with the error, nothing stored.
    empty = client.post("/notes", {"_token": token_of(home), "title": ""})
    assert [r.status for r in empty.history] == [302], empty
    # Back to the form's page: an absolute URL built from the request (Laravel writes the
    # root without its slash).
    assert empty.history[0].header("Location") == f"http://127.0.0.1:{laravel.port}"
    assert '<p class="error">The title field is required.</p>' in empty.text
    assert notes_of(empty) == []

    # Too long: the error, and the old input put back into the field (flashed in the session).
    long_title = "x" * 41
    too_long = client.post("/notes", {"_token": token_of(home), "title": long_title})
    assert "must not be greater than 40 characters" in too_long.text
    assert f'<input name="title" value="{long_title}">' in too_long.text

    saved = client.post("/notes", {"_token": token_of(home), "title": "  Café & <b>crème</b> "})
    assert [r.status for r in saved.history] == [302]
    # TrimStrings trimmed it, Blade escaped it.
    assert "<p class=\"status\">Saved &quot;Café &amp; &lt;b&gt;crème&lt;/b&gt;&quot;</p>" \
        in saved.text
    assert notes_of(saved) == ["Café & <b>crème</b>"]
    client.post("/notes", {"_token": token_of(home), "title": "second"})

    again = client.get("/")
    assert 'class="status"' not in again.text, "flashed data lasts one request"
    assert notes_of(again) == ["Café & <b>crème</b>", "second"]
    assert client.get("/notes/1").json() == {"id": 1, "title": "second"}
    assert client.get("/notes/5").status == 404

    # A form's _method=DELETE routes the POST to the DELETE route.
    cleared = client.post("/notes", {"_token": token_of(again), "_method": "DELETE"})
    assert [r.status for r in cleared.history] == [302]
    assert notes_of(cleared) == []


def test_a_post_without_the_csrf_token_is_refused(laravel):
    client = Client(laravel.url())
    home = client.get("/")
    refused = client.post("/notes", {"title": "forged"})
    assert refused.status == 419, refused
    forged = client.post("/notes", {"_token": "not-the-token", "title": "forged"})
    assert forged.status == 419
    assert notes_of(client.get("/")) == []
    # Another visitor's token is no good either.
    other = Client(laravel.url())
    assert other.post("/notes", {"_token": token_of(home), "title": "x"}).status == 419


def test_concurrent_visitors_keep_their_own_sessions(laravel):
    def visit(n):
        client = Client(laravel.url())
        titles = [f"visitor {n} note {i}" for i in range(4)]
        for title in titles:
            page = client.get("/")
            client.post("/notes", {"_token": token_of(page), "title": title})
        return titles, notes_of(client.get("/"))

    with ThreadPoolExecutor(max_workers=6) as pool:
        for wanted, seen in pool.map(visit, range(6)):
            assert seen == wanted


def test_json_in_and_out(laravel):
    client = Client(laravel.url())
    document = {"name": "Zoë", "tags": ["a", "b"], "nested": {"n": 1.5, "ok": True}}
    echoed = client.request("POST", "/api/echo", body=json.dumps(document).encode(),
                            headers={"Content-Type": "application/json",
                                     "User-Agent": "laravel-test/1"})
    assert echoed.status == 201, echoed
    assert echoed.header("Content-Type") == "application/json"
    assert echoed.header("X-Echo") == "yes"
    assert echoed.json() == {"method": "POST", "json": document,
                             "content_type": "application/json", "agent": "laravel-test/1"}


def test_upload_is_stored_whole(laravel):
    client = Client(laravel.url())
    data = os.urandom(300_000)
    stored = client.post("/api/upload", {"label": "Ünïcode label"},
                         files={"doc": ("photo.bin", data, "application/octet-stream")})
    assert stored.status == 200, stored
    assert stored.json() == {"name": "photo.bin", "size": len(data),
                             "sha1": hashlib.sha1(data).hexdigest(), "label": "Ünïcode label"}
    assert client.post("/api/upload", {"label": "no file"}).status == 422


def test_cookies_are_encrypted_and_read_back(laravel):
    client = Client(laravel.url())
    assert client.get("/cookie/get").text == "(none)"
    set_response = client.get("/cookie/set")
    line = next(v for v in set_response.header_all("Set-Cookie") if v.startswith("flavour="))
    assert "oat" not in line, "EncryptCookies sent the value encrypted"
    assert "Max-Age=600" in line
    assert client.get("/cookie/get").text == "oat & honey"


def test_download_whole_and_by_range(laravel):
    client = Client(laravel.url())
    whole = client.get("/download")
    assert whole.status == 200, whole
    assert whole.header("Content-Disposition") == "attachment; filename=report.txt"
    assert whole.header("Content-Length") == "5000"
    assert whole.text.startswith("line 0001\nline 0002\n") and whole.text.endswith("line 0500\n")

    part = client.get("/download", headers={"Range": "bytes=10-19"})
    assert part.status == 206, part
    assert part.header("Content-Range") == "bytes 10-19/5000"
    assert part.body == b"line 0002\n"


def test_download_handed_to_the_server_with_x_sendfile(laravel):
    # response()->download() with BinaryFileResponse::trustXSendfileTypeHeader(): the app
    # sends headers only; the file, its validators and ranges come from Spindle.
    client = Client(laravel.url())
    whole = client.get("/download-sendfile")
    assert whole.status == 200, whole
    assert whole.header("Content-Disposition") == "attachment; filename=report.txt"
    assert whole.header("Content-Length") == "5000"
    assert whole.text.startswith("line 0001\n") and whole.text.endswith("line 0500\n")
    assert whole.header("X-Sendfile") is None
    # Laravel sets no ETag: this one is the static file server's.
    etag = whole.header("ETag")
    assert etag and re.fullmatch(r'"[0-9a-f]+-[0-9a-f]+"', etag), whole
    part = client.get("/download-sendfile", headers={"Range": "bytes=10-19"})
    assert (part.status, part.body) == (206, b"line 0002\n"), part


def test_streamed_response(laravel):
    streamed = Client(laravel.url()).get("/stream")
    assert streamed.status == 200
    assert streamed.body == b"one\ntwo\nthree\n"


def test_laravel_error_pages(laravel):
    client = Client(laravel.url())
    missing = client.get("/no/such/page")
    assert missing.status == 404
    assert "Not Found" in missing.text
    assert client.get("/forbidden").status == 403
    assert client.request("PUT", "/notes").status == 405

    laravel.expect_errors(r"secret detail that must not reach the client")
    failed = client.get("/boom")
    assert failed.status == 500
    assert "Server Error" in failed.text
    assert "secret detail" not in failed.text
    # The exception was reported through Laravel's errorlog channel into Spindle's log.
    laravel.wait_for_log(r"RuntimeException.*secret detail")


def artisan(php_cli, storage, *args, stdin=None):
    """`spindle php-cli artisan ARGS` in the app's directory, with the server's environment."""
    env = dict(os.environ, APP_KEY="base64:" + base64.b64encode(b"k" * 32).decode(),
               APP_STORAGE=str(storage),
               APP_SERVICES_CACHE=f"{storage}/framework/cache/cli-services.php",
               APP_PACKAGES_CACHE=f"{storage}/framework/cache/cli-packages.php")
    return subprocess.run([*php_cli, "artisan", *args], input=stdin, capture_output=True,
                          text=True, cwd=APP, env=env, timeout=120,
                          stdin=None if stdin is not None else subprocess.DEVNULL)


def test_artisan_runs_on_spindle_php_cli(laravel, php_cli):
    storage = laravel.storage
    version = artisan(php_cli, storage, "--version")
    assert version.returncode == 0, version
    assert version.stdout.startswith("Laravel Framework 8.")

    # Laravel knows it runs in a console (PHP_SAPI is cli) and options reach the command.
    shout = artisan(php_cli, storage, "greet", "Ada", "--shout")
    assert (shout.returncode, shout.stdout.strip()) == (0, "HELLO, ADA, FROM CLI (CONSOLE)")
    # Symfony's QuestionHelper reads the answer from the STDIN constant.
    asked = artisan(php_cli, storage, "greet", stdin="Bob\n")
    assert asked.returncode == 0, asked
    assert "Who is there?" in asked.stdout and "Hello, Bob, from cli" in asked.stdout
    # A command's own status is the process's.
    assert artisan(php_cli, storage, "greet", stdin="\n").returncode == 3

    routes = json.loads(artisan(php_cli, storage, "route:list", "--json").stdout)
    assert {"uri": "notes/{id}", "name": "notes.show"}.items() <= \
        next(r for r in routes if r["name"] == "notes.show").items()

    key = artisan(php_cli, storage, "key:generate", "--show")
    assert key.returncode == 0
    assert len(base64.b64decode(key.stdout.strip().removeprefix("base64:"))) == 32

    unknown = artisan(php_cli, storage, "nosuchcommand")
    assert unknown.returncode == 1
    assert 'Command "nosuchcommand" is not defined' in unknown.stdout

"""Routing with php_server semantics: scripts and PATH_INFO, the front controller, directory
redirects, static files and their validators and ranges, and everything that must never be
served: dotfiles, PHP source, and anything outside the document root."""

import email.utils
import os

import pytest

from spindle_http import build_request

# Which file a path resolves to is decided before PHP runs: classic mode covers it (routes to a
# worker script are in test_worker.py).
pytestmark = pytest.mark.classic_only

SECRETS = {
    ".env": "SECRET_dotenv_4711",
    ".git/config": "SECRET_gitconfig_4711",
    ".hidden/x.txt": "SECRET_hidden_4711",
}
OUTSIDE_SECRET = "SECRET_outside_root_4711"
SOURCE_MARKERS = ["SOURCE_MARKER_app_php", "SOURCE_MARKER_php_bak", "SOURCE_MARKER_phps"]


@pytest.fixture
def routing_root(tmp_root, tmp_path):
    """A copy of the routing app plus dotfiles, a secret next to the root, and symlinks that
    lead out of the root (made at run time: git cannot hold .git/ or such links)."""
    root = tmp_root("routing")
    for name, secret in SECRETS.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{secret}\n")
    (tmp_path / "secret").write_text(f"{OUTSIDE_SECRET}\n")
    outside_dir = tmp_path / "outside_dir"
    outside_dir.mkdir()
    (outside_dir / "secret.txt").write_text(f"{OUTSIDE_SECRET}\n")
    (outside_dir / "index.php").write_text(f"<?php echo '{OUTSIDE_SECRET}';\n")
    (root / "link_out.txt").symlink_to(tmp_path / "secret")
    (root / "linkdir").symlink_to(outside_dir)
    (root / "link_to_source.txt").symlink_to(root / "app.php")
    return root


def leaked(response, secret):
    everything = response.body + repr(response.headers).encode()
    return secret.encode() in everything


# --- PHP scripts ------------------------------------------------------------------------


def test_root_runs_index_php(spindle, routing_root):
    srv = spindle(routing_root)
    r = srv.get("/")
    assert r.status == 200, r
    data = r.json()
    assert data["script"] == "index.php"
    assert data["SCRIPT_NAME"] == "/index.php"
    assert data["REQUEST_URI"] == "/"


def test_path_info_after_script(spindle, routing_root):
    srv = spindle(routing_root)
    r = srv.get("/sub/app.php/extra/path?q=1")
    assert r.status == 200, r
    data = r.json()
    assert data["script"] == "sub/app.php"
    assert data["SCRIPT_NAME"] == "/sub/app.php"
    assert data["PATH_INFO"] == "/extra/path"
    assert data["PHP_SELF"] == "/sub/app.php/extra/path"
    assert data["REQUEST_URI"] == "/sub/app.php/extra/path?q=1"
    assert data["SCRIPT_FILENAME"] == os.path.realpath(routing_root / "sub" / "app.php")


def test_script_without_path_info(spindle, routing_root):
    srv = spindle(routing_root)
    data = srv.get("/sub/app.php").json()
    assert data["SCRIPT_NAME"] == "/sub/app.php"
    assert data["PATH_INFO"] in (None, "")
    assert data["PHP_SELF"] == "/sub/app.php"


@pytest.mark.parametrize("target", [
    "/some/unknown/path?x=1",
    "/unknown.php",
    "/sub/missing.php/more",
    "/sub",
    "/sub/",
])
def test_unknown_paths_fall_back_to_front_controller(spindle, routing_root, target):
    srv = spindle(routing_root)
    r = srv.get(target)
    assert r.status == 200, r
    data = r.json()
    assert data["script"] == "index.php"
    assert data["SCRIPT_NAME"] == "/index.php"
    assert data["REQUEST_URI"] == target


def test_directory_with_index_redirects_to_trailing_slash(spindle, routing_root):
    srv = spindle(routing_root)
    r = srv.get("/dir?a=1&b=%20")
    assert r.status == 308, r
    assert r.header("Location") == "/dir/?a=1&b=%20"
    r = srv.get("/dir")
    assert r.status == 308, r
    assert r.header("Location") == "/dir/"
    r = srv.get("/dir/?a=1")
    assert r.status == 200, r
    assert r.body == b"dir index, query=a=1\n"


def test_php_source_is_executed_not_served(spindle, routing_root):
    srv = spindle(routing_root)
    r = srv.get("/app.php")
    assert r.status == 200, r
    assert r.body == b"executed app.php\n"


@pytest.mark.parametrize("target", [
    "/file.php.bak",
    "/x.phps",
    "/link_to_source.txt",
    "/app.php%00",
    "/APP.PHP",
    "/app.php.",
])
def test_php_source_never_served(spindle, routing_root, target):
    srv = spindle(routing_root)
    r = srv.raw(build_request("GET", target))
    for marker in SOURCE_MARKERS:
        assert not leaked(r, marker), f"{target} leaked PHP source: {r!r}"
    if target in ("/file.php.bak", "/x.phps"):
        assert r.status in (403, 404), r


# --- static files ---------------------------------------------------------------------------


@pytest.mark.parametrize("name,content_type", [
    ("style.css", "text/css"),
    ("data.txt", "text/plain"),
    ("page.html", "text/html"),
    ("data.json", "application/json"),
])
def test_static_file_headers(spindle, routing_root, name, content_type):
    srv = spindle(routing_root)
    path = routing_root / name
    r = srv.get("/" + name)
    assert r.status == 200, r
    assert r.body == path.read_bytes()
    assert r.header("Content-Type", "").split(";")[0].strip() == content_type
    assert r.header("Content-Length") == str(path.stat().st_size)
    assert r.header("Last-Modified") == email.utils.formatdate(path.stat().st_mtime, usegmt=True)
    assert r.header("ETag"), r


def test_static_file_conditional_requests(spindle, routing_root):
    srv = spindle(routing_root)
    r = srv.get("/data.txt")
    etag, last_modified = r.header("ETag"), r.header("Last-Modified")
    with srv.connect() as conn:
        r = conn.request("GET", "/data.txt", headers={"If-None-Match": etag})
        assert r.status == 304, r
        assert r.body == b""
        assert r.header("ETag") == etag
        r = conn.request("GET", "/data.txt", headers={"If-None-Match": '"other", ' + etag})
        assert r.status == 304, r
        r = conn.request("GET", "/data.txt", headers={"If-None-Match": '"something-else"'})
        assert r.status == 200, r
        r = conn.request("GET", "/data.txt", headers={"If-Modified-Since": last_modified})
        assert r.status == 304, r
        r = conn.request("GET", "/data.txt",
                         headers={"If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"})
        assert r.status == 200, r
        assert r.body == (routing_root / "data.txt").read_bytes()


def test_static_file_range(spindle, routing_root):
    srv = spindle(routing_root)
    content = (routing_root / "data.txt").read_bytes()
    size = len(content)
    with srv.connect() as conn:
        r = conn.request("GET", "/data.txt", headers={"Range": "bytes=0-4"})
        assert r.status == 206, r
        assert r.body == content[:5]
        assert r.header("Content-Range") == f"bytes 0-4/{size}"
        assert r.header("Content-Length") == "5"
        r = conn.request("GET", "/data.txt", headers={"Range": "bytes=10-"})
        assert r.status == 206, r
        assert r.body == content[10:]
        assert r.header("Content-Range") == f"bytes 10-{size - 1}/{size}"
        r = conn.request("GET", "/data.txt", headers={"Range": "bytes=-6"})
        assert r.status == 206, r
        assert r.body == content[-6:]


def test_static_file_unsatisfiable_range_416(spindle, routing_root):
    srv = spindle(routing_root)
    size = (routing_root / "data.txt").stat().st_size
    r = srv.get("/data.txt", headers={"Range": "bytes=1000-2000"})
    assert r.status == 416, r
    assert r.header("Content-Range") == f"bytes */{size}"


def test_static_files_disabled_with_no_file_server(spindle, routing_root):
    srv = spindle(routing_root, "--no-file-server")
    r = srv.get("/data.txt")
    assert b"static text" not in r.body, r
    # PHP still runs.
    assert srv.get("/app.php").body == b"executed app.php\n"


# --- what must never be served --------------------------------------------------------------


@pytest.mark.parametrize("target", [
    "/.env",
    "/.git/config",
    "/.hidden/x.txt",
    "/%2eenv",
    "/.%65nv",
    "/.git/../.env",
    "/sub/../.env",
    "/.hidden/",
    "/.git/",
    "/dir/../.hidden/x.txt",
])
def test_dotfiles_never_served(spindle, routing_root, target):
    srv = spindle(routing_root)
    r = srv.raw(build_request("GET", target))
    for secret in SECRETS.values():
        assert not leaked(r, secret), f"{target} leaked {secret}: {r!r}"


@pytest.mark.parametrize("target", [
    "/../secret",
    "/%2e%2e/secret",
    "/%2E%2E/secret",
    "/%252e%252e/secret",
    "/..%2fsecret",
    "/..%2Fsecret",
    "/%2e%2e%2fsecret",
    "/sub/../../secret",
    "/sub/%2e%2e/%2e%2e/secret",
    "/./../secret",
    "//../secret",
    "/..\\secret",
    "/..%5csecret",
    "/..%5Csecret",
    "/sub\\..\\..\\secret",
    "/link_out.txt",
    "/linkdir/secret.txt",
    "/linkdir/",
    "/linkdir/index.php",
    "/linkdir",
])
def test_nothing_outside_the_root(spindle, routing_root, target):
    srv = spindle(routing_root)
    r = srv.raw(build_request("GET", target))
    assert not leaked(r, OUTSIDE_SECRET), f"{target} leaked a file outside the root: {r!r}"


def test_follow_symlinks_serves_links_out_of_the_root(spindle, routing_root, tmp_path):
    # Debian's packaged apps link out of their roots (lib/tpl -> /var/lib/...): with
    # --follow-symlinks the linked files and scripts are served, as Caddy and nginx do...
    (tmp_path / "outside_dir" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\nlinked")
    (tmp_path / "outside_dir" / ".env").write_text(f"{OUTSIDE_SECRET}\n")
    srv = spindle(routing_root, "--follow-symlinks")
    r = srv.get("/linkdir/logo.png")
    assert r.status == 200 and r.body == b"\x89PNG\r\n\x1a\nlinked", r
    assert r.header("Content-Type") == "image/png"
    r = srv.get("/link_out.txt")
    assert r.status == 200 and r.body == f"{OUTSIDE_SECRET}\n".encode(), r
    r = srv.get("/linkdir/index.php")
    assert r.status == 200 and r.body == OUTSIDE_SECRET.encode(), r
    assert srv.get("/linkdir").header("Location") == "/linkdir/"
    # ...but what is private without links stays private through them.
    for target in ("/linkdir/.env", "/link_to_source.txt", "/.env"):
        r = srv.get(target)
        assert not leaked(r, OUTSIDE_SECRET) and not leaked(r, "SECRET_dotenv"), (target, r)
    assert srv.get("/link_to_source.txt").status == 403


def test_follow_symlinks_in_a_caddyfile(spindle_run, routing_root, tmp_path):
    (tmp_path / "outside_dir" / "style.css").write_text("body{}")
    server = spindle_run(f"""
:0 {{
    bind 127.0.0.1
    root * {routing_root}
    php_server {{
        follow_symlinks
    }}
}}
""")
    r = server.get("/linkdir/style.css")
    assert r.status == 200 and r.body == b"body{}", r
    assert r.header("Content-Type").startswith("text/css")


def test_absolute_form_target_cannot_escape(spindle, routing_root):
    srv = spindle(routing_root)
    r = srv.raw(build_request("GET", "http://127.0.0.1/../secret"))
    assert not leaked(r, OUTSIDE_SECRET), r
    r = srv.raw(build_request("GET", "http://127.0.0.1/data.txt"))
    assert r.status == 200 and r.body.startswith(b"static text"), r

"""WordPress (Debian's `wordpress` package and its Twenty Twenty-Three theme) on Spindle with a
MariaDB server the test starts, driven as a browser would: the install wizard, logging in,
Site Health's loopback and Authorization checks, the permalink settings form, a post published
through the REST API with its nonce, comments from the admin and from a visitor, concurrent
readers, an image uploaded as multipart whose GD thumbnail the /wp-content root serves, mail
through sendmail_path, and logging out. docs/apps.md describes the same deployment."""

import re
import secrets
from concurrent.futures import ThreadPoolExecutor
from html import unescape

import pytest

from http_client import Client
from mariadb_server import MariaDB
from png_image import gradient_png, png_size
from wordpress_site import THEME, WordPressSite

ADMIN = "spindle-admin"
VISITOR_IP = "127.0.0.2"


@pytest.fixture(scope="module")
def mariadb(tmp_path_factory):
    server = MariaDB(tmp_path_factory.mktemp("mariadb")).start()
    yield server
    server.stop()


@pytest.fixture
def wordpress(mariadb, tmp_path):
    site = WordPressSite(tmp_path / "wordpress", mariadb).create()
    yield site
    site.remove()


def form_value(html, name):
    """The value of the first input named `name` in a page."""
    for tag in re.findall(r"<input[^>]*>", html):
        if re.search(rf"""name=["']{re.escape(name)}["']""", tag):
            value = re.search(r"""value=["']([^"']*)["']""", tag)
            return unescape(value.group(1)) if value else ""
    raise AssertionError(f"no input {name!r} in page:\n{html[:2000]}")


def install(client, password):
    wizard = client.get("/wp-admin/install.php")
    assert wizard.status == 200, wizard
    assert 'action="install.php?step=2"' in wizard.text
    done = client.post_form("/wp-admin/install.php?step=2", {
        "weblog_title": "Spindle <Blog>", "user_name": ADMIN, "admin_password": password,
        "admin_password2": password, "pw_weak": "1", "admin_email": "admin@example.test",
        "blog_public": "0", "language": "", "Submit": "Install WordPress"})
    assert done.status == 200, done
    assert "Success!" in done.text, done.text[:3000]
    # Installed: the wizard now refuses to run again.
    again = client.get("/wp-admin/install.php")
    assert "Already Installed" in again.text


def log_in(client, password):
    form = client.get("/wp-login.php")
    assert form.status == 200
    assert client.cookie("wordpress_test_cookie") is not None
    response = client.post_form("/wp-login.php", {
        "log": ADMIN, "pwd": password, "wp-submit": "Log In",
        "redirect_to": f"{client_base(client)}/wp-admin/", "testcookie": "1"})
    assert response.status == 302, response
    assert response.header("Location") == f"{client_base(client)}/wp-admin/"
    assert any(name.startswith("wordpress_logged_in_") for name in client.cookie_names())
    dashboard = client.get("/wp-admin/")
    assert dashboard.status == 200, dashboard
    assert "Dashboard" in dashboard.text


def client_base(client):
    return f"http://{client.host}"


def rest_nonce(client):
    response = client.get("/wp-admin/admin-ajax.php?action=rest-nonce")
    assert response.status == 200, response
    assert re.fullmatch(r"[0-9a-f]{10}", response.text), response
    return response.text


def test_install_log_in_publish_comment_and_upload(spindle_run, mariadb, wordpress):
    server = spindle_run(wordpress.caddyfile(), warmup="/wp-admin/install.php")
    password = secrets.token_urlsafe(16)
    # The visitor comes from another loopback address: WordPress keys comment flood checks
    # and moderation on REMOTE_ADDR.
    with Client(server.port) as admin, Client(server.port, source_address=VISITOR_IP) as visitor:
        install(admin, password)
        # The installer mails the admin: mail() runs the configured sendmail.
        assert "Subject: New WordPress Site" in wordpress.mail()
        assert "To: admin@example.test" in wordpress.mail()
        log_in(admin, password)
        nonce = rest_nonce(admin)

        # Pretty permalinks through the admin's own form, so the REST API and posts are
        # reached through the front controller fallback (try_files ... index.php).
        settings = admin.get("/wp-admin/options-permalink.php")
        assert settings.status == 200
        saved = admin.post_form("/wp-admin/options-permalink.php", {
            "_wpnonce": form_value(settings.text, "_wpnonce"),
            "_wp_http_referer": "/wp-admin/options-permalink.php",
            "selection": "/%postname%/", "permalink_structure": "/%postname%/",
            "category_base": "", "tag_base": "", "submit": "Save Changes"})
        assert saved.status == 302, saved
        assert saved.header("Location") == (
            f"{client_base(admin)}/wp-admin/options-permalink.php?settings-updated=true")
        # The page the browser is sent back to is what rebuilds the rewrite rules.
        assert "Permalink structure updated." in admin.get(saved.header("Location")).text

        # Site Health: WordPress requests itself while serving a request (a second PHP
        # thread answers), and reads Basic credentials from PHP_AUTH_USER / PHP_AUTH_PW.
        loopback = admin.get("/wp-json/wp-site-health/v1/tests/loopback-requests",
                             headers={"X-WP-Nonce": nonce})
        assert loopback.json()["status"] == "good", loopback
        authorization = admin.get("/wp-json/wp-site-health/v1/tests/authorization-header",
                                  headers={"X-WP-Nonce": nonce,
                                           "Authorization": "Basic dXNlcjpwd2Q="})  # user:pwd
        assert authorization.json()["status"] == "good", authorization

        # Without the nonce, the cookie alone does not authenticate a REST write.
        denied = admin.post_json("/wp-json/wp/v2/posts", {"title": "x", "status": "publish"})
        assert denied.status == 401, denied
        title = "Hello from Spindle"
        created = admin.post_json("/wp-json/wp/v2/posts", {
            "title": title, "status": "publish",
            "content": "<p>Served by <em>Spindle</em>.</p>"}, headers={"X-WP-Nonce": nonce})
        assert created.status == 201, created
        post = created.json()
        assert post["link"] == f"{client_base(admin)}/hello-from-spindle/"
        assert created.header("Location") == (
            f"{client_base(admin)}/wp-json/wp/v2/posts/{post['id']}")

        page = visitor.get("/hello-from-spindle/")
        assert page.status == 200, page
        assert re.search(rf'<h1 [^>]*class="wp-block-post-title">{title}</h1>', page.text)
        assert "Served by <em>Spindle</em>." in page.text
        # The packaged theme renders the page; its assets come through /wp-content, from
        # this site's wp-content where the theme is a link into the package.
        font = re.search(rf"/wp-content/themes/{THEME}/[^'\")]+\.woff2", page.text)
        assert font, page.text[:2000]
        asset = visitor.get(font.group(0))
        assert asset.status == 200, asset
        assert asset.header("Content-Type") == "font/woff2"
        listed = visitor.get("/wp-json/wp/v2/posts")
        assert [p["id"] for p in listed.json() if p["id"] == post["id"]] == [post["id"]]

        # A comment from the logged-in admin, through the classic form handler.
        comment = admin.post_form("/wp-comments-post.php", {
            "comment": "First comment, posted over Spindle.",
            "comment_post_ID": str(post["id"]), "comment_parent": "0"})
        assert comment.status == 302, comment
        assert re.fullmatch(rf"{re.escape(post['link'])}#comment-\d+",
                            comment.header("Location")), comment
        shown = visitor.get("/hello-from-spindle/")
        assert "First comment, posted over Spindle." in shown.text

        # A visitor's first comment waits for moderation: only its author sees it, recognised
        # by the comment_author_* cookies the redirect sets.
        held = visitor.post_form("/wp-comments-post.php", {
            "comment": "A visitor <b>was</b> here.", "author": "Visitor",
            "email": "visitor@example.test", "url": "", "comment_post_ID": str(post["id"]),
            "comment_parent": "0", "wp-comment-cookies-consent": "yes"})
        assert held.status == 302, held
        assert re.fullmatch(rf"{re.escape(post['link'])}#comment-\d+",
                            held.header("Location")), held
        assert any(name.startswith("comment_author_") for name in visitor.cookie_names())
        pending = visitor.get(held.header("Location"))
        assert "Your comment is awaiting moderation." in pending.text
        assert "A visitor <b>was</b> here." in pending.text
        with Client(server.port) as stranger:
            assert "A visitor" not in stranger.get("/hello-from-spindle/").text
        # ... and asks the admin by mail to moderate it.
        assert "Please_moderate:_\"Hello_from_S" in wordpress.mail()  # a Q-encoded Subject
        assert mariadb.sql("SELECT comment_author_IP, comment_approved FROM wp_comments "
                           "WHERE comment_author = 'Visitor'", wordpress.database) == [
            [VISITOR_IP, "0"]]

        # Readers at once, each on its own connection, all get the full page.
        def read(_):
            with Client(server.port) as reader:
                return reader.get("/hello-from-spindle/")

        with ThreadPoolExecutor(max_workers=8) as pool:
            pages = list(pool.map(read, range(16)))
        assert all(p.status == 200 and "First comment, posted over Spindle." in p.text
                   for p in pages), [p for p in pages if p.status != 200][:1]

        # An image uploaded as multipart/form-data; GD makes the 150x150 thumbnail.
        image = gradient_png(400, 300)
        uploaded = admin.post_multipart("/wp-json/wp/v2/media", {"title": "gradient"},
                                        {"file": ("gradient.png", "image/png", image)},
                                        headers={"X-WP-Nonce": nonce})
        assert uploaded.status == 201, uploaded
        media = uploaded.json()
        assert media["media_details"]["width"] == 400
        thumbnail = media["media_details"]["sizes"]["thumbnail"]
        assert (thumbnail["width"], thumbnail["height"]) == (150, 150)
        assert thumbnail["source_url"].startswith(f"{client_base(admin)}/wp-content/uploads/")
        original = visitor.get(media["source_url"])
        assert original.status == 200, original
        assert original.body == image
        fetched = visitor.get(thumbnail["source_url"])
        assert fetched.status == 200, fetched
        assert fetched.header("Content-Type") == "image/png"
        assert png_size(fetched.body) == (150, 150)
        # The files are in this site's own wp-content, not in the package's tree.
        assert len(list((wordpress.content / "uploads").rglob("gradient-150x150.png"))) == 1

        # Logging out expires every auth cookie (one Set-Cookie header each) and the admin
        # sends the browser back to the login form.
        dashboard = admin.get("/wp-admin/")
        logout = re.search(r'href="([^"]*wp-login\.php\?action=logout[^"]*)"', dashboard.text)
        assert logout, dashboard.text[:2000]
        out = admin.get(unescape(logout.group(1)))
        assert out.status == 302, out
        assert "loggedout=true" in out.header("Location")
        assert len(out.header_all("Set-Cookie")) >= 6, out.headers
        assert not any(name.startswith("wordpress_logged_in_") for name in admin.cookie_names())
        locked = admin.get("/wp-admin/")
        assert locked.status == 302
        assert locked.header("Location").startswith(f"{client_base(admin)}/wp-login.php?")

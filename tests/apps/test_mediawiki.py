"""MediaWiki, as Debian packages it (/usr/share/mediawiki, unchanged), on SQLite, served by
`spindle run`.

MediaWiki's own installer (maintenance/install.php, run by `spindle php-cli`)
creates the SQLite database and LocalSettings.php in the test's directory; MediaWiki reads
that file through the MW_CONFIG_FILE environment variable (set with php_server's `env`), so
nothing under /etc/mediawiki or /var/lib/mediawiki is read or written. See docs/apps.md.
"""

import json
import re
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from app_client import Client
from browser import headless_chromium, severe_console_entries

MEDIAWIKI = Path("/usr/share/mediawiki")
ADMIN, PASSWORD = "Admin", "Spindle-Admin-Pass-1"

# A missing package fails the run rather than skipping its flows.
if not (MEDIAWIKI / "api.php").is_file():
    raise AssertionError("needs Debian's mediawiki: run scripts/install-deps.sh apps")


def install(php_cli, base):
    """Runs MediaWiki's installer into base/db and base/LocalSettings.php."""
    (base / "db").mkdir()
    (base / "cache").mkdir()
    result = subprocess.run(
        [*php_cli, "-d", "memory_limit=512M", str(MEDIAWIKI / "maintenance/install.php"),
         "--dbtype", "sqlite", "--dbpath", str(base / "db"), "--dbname", "wiki",
         "--server", "http://127.0.0.1", "--scriptpath", "", "--pass", PASSWORD,
         "--confpath", str(base), "--lang", "en", "Spindle Wiki", ADMIN],
        capture_output=True, text=True, timeout=300, cwd=base)
    assert result.returncode == 0, f"install.php failed:\n{result.stdout}\n{result.stderr}"
    settings = base / "LocalSettings.php"
    settings.write_text(settings.read_text() + f"""
# Added by the Spindle test: the port is chosen at start, so the server name comes from each
# request, as MediaWiki does by default; caches stay in the test's directory.
$wgServer = WebRequest::detectServer();
$wgCacheDirectory = "{base}/cache";
$wgUploadDirectory = "{base}/images";
$wgRateLimits = [];
# Short URLs: /wiki/Title reaches index.php through php_server's front-controller fallback.
$wgArticlePath = "/wiki/$1";
""")
    return settings


@pytest.fixture(scope="module")
def wiki(app_server, tmp_path_factory, php_cli):
    base = tmp_path_factory.mktemp("mediawiki")
    settings = install(php_cli, base)
    return app_server(f"""
{{
    frankenphp {{
        num_threads 4
    }}
}}
:0 {{
    bind 127.0.0.1
    root * {MEDIAWIKI}
    php_server {{
        follow_symlinks
        env MW_CONFIG_FILE {settings}
    }}
    respond /maintenance/* 404
    respond /mw-config/* 404
}}
""", base, warmup="/wiki/Main_Page")


def api(client, method="GET", **params):
    params = {"format": "json", "formatversion": "2", **params}
    if method == "GET":
        response = client.get("/api.php", params=params)
    else:
        response = client.post("/api.php", params)
    assert response.status == 200, response
    assert response.header("Content-Type").startswith("application/json"), response
    return response.json()


def csrf_token(client):
    return api(client, action="query", meta="tokens")["query"]["tokens"]["csrftoken"]


def last_author(client, title):
    pages = api(client, action="query", prop="revisions", titles=title,
                rvprop="user|content", rvslots="main")["query"]["pages"]
    revision = pages[0]["revisions"][0]
    return revision["user"], revision["slots"]["main"]["content"]


def test_api_edit_anonymous_and_logged_in_then_view(wiki):
    anonymous = Client(wiki.url())
    token = csrf_token(anonymous)
    assert token == "+\\", "an anonymous session's token is the anonymous one"
    text = "'''Spindle''' serves this page.\n\n== History ==\nFirst written anonymously."
    edit = api(anonymous, "POST", action="edit", title="Spindle test", text=text,
               summary="anonymous edit", token=token)
    assert edit["edit"]["result"] == "Success", edit
    assert last_author(anonymous, "Spindle test") == ("127.0.0.1", text)

    # A forged token is refused.
    refused = api(anonymous, "POST", action="edit", title="Spindle test", text="forged",
                  token="0123456789abcdef+\\")
    assert refused["error"]["code"] == "badtoken", refused

    user = Client(wiki.url())
    login_token = api(user, action="query", meta="tokens", type="login")["query"]["tokens"]["logintoken"]
    login = api(user, "POST", action="clientlogin", username=ADMIN, password=PASSWORD,
                logintoken=login_token, loginreturnurl=wiki.url("/"))
    assert login["clientlogin"]["status"] == "PASS", login
    assert api(user, action="query", meta="userinfo")["query"]["userinfo"]["name"] == ADMIN
    token = csrf_token(user)
    assert token != "+\\"
    text += "\n\nThen edited by the admin."
    edit = api(user, "POST", action="edit", title="Spindle test", text=text,
               summary="logged-in edit", token=token)
    assert edit["edit"]["result"] == "Success", edit
    assert last_author(user, "Spindle test") == (ADMIN, text)

    viewer = Client(wiki.url())
    for target in ("/wiki/Spindle_test", "/index.php?title=Spindle_test",
                   "/index.php/Spindle_test"):
        page = viewer.get(target)
        assert page.status == 200, page
        assert "<b>Spindle</b> serves this page." in page.text
        assert re.search(r'<h2><span class="mw-headline" id="History">History</span>', page.text)
        assert "Then edited by the admin." in page.text


def test_load_php_serves_the_pages_scripts_and_styles(wiki):
    client = Client(wiki.url())
    page = client.get("/wiki/Main_Page")
    assert page.status == 200
    loaders = [url for kind, url in page.assets() if "/load.php?" in url]
    styles = [url for url in loaders if "only=styles" in url]
    scripts = [url for url in loaders if "only=scripts" in url]
    assert styles and scripts, page.assets()
    css = client.get(styles[0])
    assert css.status == 200
    assert css.header("Content-Type").startswith("text/css")
    assert ".mw-body" in css.text or ".vector-" in css.text, css.text[:500]
    startup = client.get(scripts[0])
    assert startup.status == 200
    assert "javascript" in startup.header("Content-Type")
    assert "mw.loader.register" in startup.text or "mw.loader.addSource" in startup.text
    # The startup module asks load.php for the modules the page names.
    modules = re.search(r'RLPAGEMODULES=(\[[^\]]*\])', page.text)
    assert modules, "the page lists its modules"
    names = [name for name in json.loads(modules.group(1)) if name.startswith("mediawiki.")]
    batch = client.get("/load.php", params={"modules": "|".join(names or ["mediawiki.base"]),
                                            "skin": "vector", "lang": "en"})
    assert batch.status == 200
    assert "mw.loader.impl" in batch.text or "mw.loader.implement" in batch.text


def test_rest_php_routes_by_path_info(wiki):
    client = Client(wiki.url())
    api(client, "POST", action="edit", title="Rest target", text="Reached through ''rest.php''.",
        token=csrf_token(client))
    page = client.get("/rest.php/v1/page/" + quote("Rest_target"))
    assert page.status == 200, page
    data = page.json()
    assert data["title"] == "Rest target"
    assert data["source"] == "Reached through ''rest.php''."
    html = client.get("/rest.php/v1/page/Rest_target/html")
    assert html.status == 200
    assert html.header("Content-Type").startswith("text/html")
    assert re.search(r"<i[^>]*>rest\.php</i>", html.text), html.text[-500:]
    missing = client.get("/rest.php/v1/page/No_such_page_here")
    assert missing.status == 404
    assert missing.json()["httpCode"] == 404
    unknown = client.get("/rest.php/v1/no/such/route")
    assert unknown.status == 404
    # What docs/apps.md keeps out of reach.
    for path in ("/maintenance/install.php", "/mw-config/index.php"):
        assert client.get(path).status == 404, path


def test_js_loader_runs_in_headless_chromium(wiki):
    from selenium.webdriver.support.ui import WebDriverWait

    with headless_chromium() as driver:
        wait = WebDriverWait(driver, 30, poll_frequency=0.1)
        driver.get(wiki.url("/wiki/Main_Page"))
        # load.php's startup module turns the page's "client-nojs" into "client-js" and
        # loads the modules the page names.
        wait.until(lambda d: d.execute_script(
            "return document.documentElement.classList.contains('client-js') && "
            "window.mw && mw.loader.getState('mediawiki.base') === 'ready'"))
        assert driver.execute_script("return mw.config.get('wgPageName')") == "Main_Page"
        # A module loaded on demand through load.php, then used against api.php.
        sitename = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            mw.loader.using('mediawiki.api').then(() =>
                new mw.Api().get({action: 'query', meta: 'siteinfo'})
            ).then(data => done(data.query.general.sitename), error => done('error: ' + error));
        """)
        assert sitename == "Spindle Wiki"
        # The skin's styles from load.php apply.
        assert driver.execute_script(
            "return getComputedStyle(document.querySelector('#mw-head')).position") == "absolute"
        assert not severe_console_entries(driver), severe_console_entries(driver)

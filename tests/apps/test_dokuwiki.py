"""DokuWiki, as Debian packages it (/usr/share/dokuwiki, unchanged), served by `spindle run`.

Debian's DokuWiki reads its configuration from /etc/dokuwiki and keeps pages in
/var/lib/dokuwiki: shared system directories. Each test module gets a private instance
instead, through DokuWiki's own preload mechanism: the constants DOKU_MAIN_CONF and DOKU_CONF
(which Debian's inc/preload.php only sets when they are undefined) are defined by a file that
php.ini's auto_prepend_file runs first, pointing at a copy of the configuration whose
`savedir` is a copy of the data directory. See docs/apps.md.
"""

import hashlib
import re
import shutil
from pathlib import Path

import pytest

from app_client import Client
from browser import headless_chromium, severe_console_entries

DOKUWIKI = Path("/usr/share/dokuwiki")
CONFIG = Path("/etc/dokuwiki")
DATA = Path("/var/lib/dokuwiki/data")
USER, PASSWORD = "spindle", "s3cret-Pass"

# A missing package fails the run rather than skipping its flows.
if not (DOKUWIKI / "doku.php").is_file():
    raise AssertionError("needs Debian's dokuwiki: run scripts/install-deps.sh apps")


def make_instance(base):
    """A private configuration and data directory for the packaged DokuWiki under `base`;
    returns the preload file that points DokuWiki at them."""
    conf = base / "conf"
    conf.mkdir()
    for entry in CONFIG.iterdir():
        # acl.auth.php and users.auth.php are links into /var/lib: written fresh below.
        if entry.is_file() and not entry.name.endswith(".auth.php"):
            shutil.copy(entry, conf / entry.name)
    data = base / "data"
    shutil.copytree(DATA, data)
    (conf / "local.php").write_text(f"""<?php
$conf['title'] = 'Spindle test wiki';
$conf['savedir'] = '{data}';
$conf['useacl'] = 1;
$conf['superuser'] = '@admin';
""")
    # DokuWiki's plain auth accepts a bare MD5 hex digest as the password hash.
    digest = hashlib.md5(PASSWORD.encode()).hexdigest()
    (conf / "users.auth.php").write_text(
        f"# <?php exit()?>\n{USER}:{digest}:Spindle Tester:tester@example.test:admin,user\n")
    (conf / "acl.auth.php").write_text("# <?php exit()?>\n*\t@ALL\t1\n*\t@user\t8\n")
    preload = base / "preload.php"
    preload.write_text(f"""<?php
define('DOKU_MAIN_CONF', '{conf}/');
define('DOKU_CONF', '{conf}/');
""")
    return preload


@pytest.fixture(scope="module")
def wiki(app_server, tmp_path_factory):
    base = tmp_path_factory.mktemp("dokuwiki")
    preload = make_instance(base)
    return app_server(f"""
{{
    frankenphp {{
        num_threads 4
        php_ini auto_prepend_file {preload}
    }}
}}
:0 {{
    bind 127.0.0.1
    root * {DOKUWIKI}
    php_server {{
        follow_symlinks
    }}
    respond /bin/* 404
    respond /vendor/* 404
}}
""", base, warmup="/doku.php")


def log_in(client):
    page = client.get("/doku.php?id=start&do=login")
    assert page.status == 200, page
    form = page.form(id="dw__login")
    done = client.submit(form, {"u": USER, "p": PASSWORD})
    assert done.status == 200, done
    assert "do=logout" in done.text, f"not logged in:\n{done.text[:3000]}"
    return done


def test_log_in_edit_with_the_security_token_and_view(wiki):
    client = Client(wiki.url())
    anonymous = client.get("/doku.php?id=playground:spindle")
    assert anonymous.status == 200
    assert "do=logout" not in anonymous.text
    log_in(client)
    # Logged in: PHP's session cookie and DokuWiki's own authentication cookie.
    assert "DokuWiki" in client.cookies
    assert any(re.fullmatch(r"DW[0-9a-f]{32}", name) for name in client.cookies), client.cookies

    edit = client.get("/doku.php?id=playground:spindle&do=edit")
    assert edit.status == 200, edit
    form = edit.form(id="dw__editform")
    # The token is tied to the session and user: logged in, the form carries one.
    assert re.fullmatch(r"[0-9a-f]{32}", form.field("sectok")), form.fields
    text = "====== Served by Spindle ======\n\nSome **bold** text and a [[start|link]].\n"

    # A save without the form's token is refused and changes nothing.
    forged = client.submit(form, {"wikitext": "forged", "sectok": "0" * 32}, submit="do[save]")
    assert "Security Token did not match" in forged.text
    assert "forged" not in client.get("/doku.php?id=playground:spindle&do=export_raw").text

    saved = client.submit(form, {"wikitext": text, "summary": "first"}, submit="do[save]")
    assert saved.status == 200, saved
    assert saved.history and saved.history[0].status in (302, 303), "save ends in a redirect"

    view = Client(wiki.url()).get("/doku.php?id=playground:spindle")
    assert view.status == 200
    assert re.search(r"<h1[^>]*>Served by Spindle</h1>", view.text), view.text[:3000]
    assert "<strong>bold</strong>" in view.text
    raw = client.get("/doku.php?id=playground:spindle&do=export_raw")
    assert raw.text == text
    assert raw.header("Content-Type").startswith("text/plain")


def test_media_uploads_form_and_xhr(wiki):
    client = Client(wiki.url())
    log_in(client)
    manager = client.get("/doku.php?id=start&do=media&ns=wiki&tab_files=upload")
    form = manager.form(id="dw__upload")
    image = (DOKUWIKI / "lib/images/license/button/cc-by.png").read_bytes()
    # The media manager's form: multipart/form-data, read by PHP into $_FILES.
    uploaded = client.submit(form, {"mediaid": "spindle-form.png"},
                             files={"upload": ("cc-by.png", image, "image/png")})
    assert '<div class="success">Upload successful</div>' in uploaded.text, uploaded.text[:3000]
    # The drag-and-drop uploader's XHR: the file is the raw body, read from php://input.
    xhr = client.request(
        "POST", "/lib/exe/ajax.php?call=mediaupload&ns=wiki&qqfile=spindle-xhr.png&sectok="
        + form.field("sectok"), body=image,
        headers={"Content-Type": "application/octet-stream", "X-File-Name": "spindle-xhr.png"})
    assert xhr.status == 200 and xhr.json()["success"] is True, xhr
    for name in ("spindle-form.png", "spindle-xhr.png"):
        fetched = client.get(f"/lib/exe/fetch.php?media=wiki:{name}")
        assert fetched.status == 200
        assert fetched.header("Content-Type") == "image/png"
        assert fetched.body == image
        # fetch.php answers ranges itself.
        part = client.get(f"/lib/exe/fetch.php?media=wiki:{name}",
                          headers={"Range": "bytes=0-9"})
        assert part.status == 206 and part.body == image[:10], part
        assert part.header("Content-Range") == f"bytes 0-9/{len(image)}"


def test_css_and_js_dispatchers_and_static_images(wiki):
    page = Client(wiki.url()).get("/doku.php?id=start")
    assert page.status == 200
    assets = page.assets()
    stylesheets = [url for kind, url in assets if kind == "stylesheet" and "css.php" in url]
    scripts = [url for kind, url in assets if kind == "script" and "js.php" in url]
    assert stylesheets and scripts, assets
    client = Client(wiki.url())
    css = client.get(stylesheets[0])
    assert css.status == 200
    assert css.header("Content-Type").startswith("text/css")
    # The dispatcher compiles the template's LESS into plain CSS.
    assert ".dokuwiki" in css.text and "@ini_" not in css.text
    js = client.get(scripts[0])
    assert js.status == 200
    assert "javascript" in js.header("Content-Type")
    assert "initToolbar" in js.text and "DOKU_BASE" in js.text

    # The template's images live in /var/lib/dokuwiki/lib/tpl, reached through Debian's
    # lib/tpl symlink: served as files with their type.
    for path, kind in (("/lib/tpl/dokuwiki/images/logo.png", "image/png"),
                       ("/lib/images/license/button/cc-by-sa.png", "image/png")):
        image = client.get(path)
        assert image.status == 200, (path, image)
        assert image.header("Content-Type") == kind
        assert image.body == (DOKUWIKI / path.lstrip("/")).read_bytes()
    # What docs/apps.md keeps out of reach.
    for path in ("/bin/dwpage.php", "/vendor/autoload.php"):
        assert client.get(path).status == 404, path
    # The template's own PHP behind the same symlink still runs as PHP, never as text.
    tool = client.get("/lib/tpl/dokuwiki/images/pagetools-build.php")
    assert b"<?php" not in tool.body


def template_background():
    """The site background colour of the dokuwiki template, as CSS computes it."""
    style = (DOKUWIKI / "lib/tpl/dokuwiki/style.ini").read_text()
    colour = re.search(r'^__background_site__\s*=\s*"#([0-9a-fA-F]{6})"', style, re.MULTILINE)
    red, green, blue = (int(colour.group(1)[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgb({red}, {green}, {blue})"


def test_editor_toolbar_works_in_headless_chromium(wiki):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with headless_chromium() as driver:
        wait = WebDriverWait(driver, 30, poll_frequency=0.1)
        driver.get(wiki.url("/doku.php?id=playground:browser&do=login"))
        driver.find_element(By.ID, "focus__this").send_keys(USER)
        driver.find_element(By.CSS_SELECTOR, "#dw__login input[name=p]").send_keys(PASSWORD)
        driver.find_element(By.CSS_SELECTOR, "#dw__login button[type=submit]").click()
        wait.until(lambda d: "do=logout" in d.page_source)

        driver.get(wiki.url("/doku.php?id=playground:browser&do=edit"))
        # js.php's scripts build the toolbar: one button per tool, each with its icon.
        buttons = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#tool__bar button"))
        assert len(buttons) > 10
        # The icons load after the scripts add the buttons: wait until the browser is done
        # with every one, then each must have decoded to a real image.
        icons = "Array.from(document.querySelectorAll('#tool__bar button img'))"
        wait.until(lambda d: d.execute_script(f"return {icons}.every(img => img.complete);"))
        broken = driver.execute_script(
            f"return {icons}.filter(img => img.naturalWidth == 0).map(img => img.src);")
        assert not broken, broken
        # css.php's styles apply: the page has the site background of the template's
        # style.ini, which css.php substitutes into its LESS.
        assert driver.execute_script(
            "return getComputedStyle(document.body).backgroundColor") == template_background()

        textarea = driver.find_element(By.ID, "wiki__text")
        textarea.clear()
        driver.find_element(By.CSS_SELECTOR, "#tool__bar button[accesskey=b]").click()
        wait.until(lambda _: "**" in textarea.get_attribute("value"))
        assert textarea.get_attribute("value") == "**Bold Text**"
        driver.find_element(By.CSS_SELECTOR, "#edbtn__save").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".page strong"))
        assert driver.find_element(By.CSS_SELECTOR, ".page strong").text == "Bold Text"
        assert not severe_console_entries(driver), severe_console_entries(driver)

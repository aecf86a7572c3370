"""phpMyAdmin, as Debian packages it (/usr/share/phpmyadmin and its configuration in
/etc/phpmyadmin, unchanged), served by `spindle run` on a MariaDB server the test starts:
cookie login (refused with a wrong password), SQL run through the query form with its token
(refused with a forged one), a table browsed, a CSV export downloaded, and logging out.

Debian's configuration connects to `localhost`, which mysqli reaches through its Unix socket:
the Caddyfile points `mysqli.default_socket` at the test server's, as a site would point it at
its own. When dbconfig-common wrote a control user (/etc/phpmyadmin/config-db.php), the test
server gets that user and phpMyAdmin's configuration storage tables, as the package's set-up
does for the system server."""

import re
from html import unescape
from pathlib import Path

import pytest

from app_client import Client
from mariadb_server import MariaDB

PHPMYADMIN = Path("/usr/share/phpmyadmin")
CONFIG_DB = Path("/etc/phpmyadmin/config-db.php")
USER, PASSWORD = "pma-admin", "Pma-Test-1"

# A missing package fails the run rather than skipping its flows.
if not (PHPMYADMIN / "index.php").is_file():
    raise AssertionError("needs Debian's phpmyadmin: run scripts/install-deps.sh apps")


def control_user():
    """(user, password, database) of the control user Debian's set-up configured, or None."""
    if not CONFIG_DB.is_file():
        return None
    settings = dict(re.findall(r"^\$(\w+)\s*=\s*'([^']*)';", CONFIG_DB.read_text(), re.M))
    if not settings.get("dbname") or not settings.get("dbuser"):
        return None
    return settings["dbuser"], settings["dbpass"], settings["dbname"]


@pytest.fixture(scope="module")
def phpmyadmin(app_server, tmp_path_factory):
    base = tmp_path_factory.mktemp("phpmyadmin")
    mariadb = MariaDB(base / "mariadb").start()
    try:
        mariadb.sql(f"""
            CREATE USER '{USER}'@'localhost' IDENTIFIED BY '{PASSWORD}';
            GRANT ALL PRIVILEGES ON *.* TO '{USER}'@'localhost';
            CREATE DATABASE shop CHARACTER SET utf8mb4;
            CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL);
            INSERT INTO shop.items VALUES (1, 'pen'), (2, 'ink');
        """)
        control = control_user()
        if control is not None:
            user, password, database = control
            mariadb.sql(f"CREATE DATABASE `{database}`;\n"
                        f"CREATE USER '{user}'@'localhost' IDENTIFIED BY '{password}';\n"
                        f"GRANT ALL PRIVILEGES ON `{database}`.* TO '{user}'@'localhost';\n")
            tables = (PHPMYADMIN / "sql/create_tables.sql").read_text()
            mariadb.sql(tables.replace("`phpmyadmin`", f"`{database}`"))
        server = app_server(f"""
{{
    frankenphp {{
        php_ini {{
            mysqli.default_socket {mariadb.socket}
        }}
    }}
}}
:0 {{
    bind 127.0.0.1
    root * {PHPMYADMIN}
    php_server
}}
""", base)
        server.mariadb = mariadb
        yield server
    finally:
        mariadb.stop()


def alerts(page):
    """The text of the page's error alerts, less the two every page carries for scripts to
    show (JavaScript disabled, an HTTPS mismatch seen by the browser)."""
    html = re.sub(r"<noscript>.*?</noscript>", "", page.text, flags=re.S)
    html = re.sub(r'<div class="hide" id="js-https-mismatch">.*?</div>\s*</div>', "", html,
                  flags=re.S)
    found = re.findall(r'<div class="alert alert-danger"[^>]*>(.*?)</div>', html, re.S)
    return [re.sub(r"<[^>]+>|\s+", " ", unescape(a)).strip() for a in found]


def log_in(server, password=PASSWORD):
    client = Client(server.url())
    page = client.get("/")
    assert page.status == 200, page
    done = client.submit(page.form(id="login_form"),
                         {"pma_username": USER, "pma_password": password})
    return client, done


def rows(server):
    return server.mariadb.sql("SELECT id, name FROM shop.items ORDER BY id")


def test_wrong_password_is_refused(phpmyadmin):
    client, refused = log_in(phpmyadmin, password="wrong")
    assert refused.status == 200
    assert any("Cannot log in to the MySQL server" in a for a in alerts(refused)), refused
    assert "pmaAuth-1" not in client.cookies
    assert client.get("/index.php?route=/database/sql&db=shop").form(id="login_form")


def test_log_in_run_sql_browse_export_and_log_out(phpmyadmin):
    client, home = log_in(phpmyadmin)
    assert [r.status for r in home.history] == [303], home
    assert {"pmaUser-1", "pmaAuth-1"} <= set(client.cookies)
    assert alerts(home) == [], "no error, the control user's included"

    query_page = client.get("/index.php?route=/database/sql&db=shop")
    form = query_page.form(id="sqlqueryform")
    statement = "INSERT INTO items VALUES (3, 'paper & glue')"

    # The query form with a forged token changes nothing.
    client.submit(form, {"sql_query": statement, "token": "0" * 32})
    assert rows(phpmyadmin) == [["1", "pen"], ["2", "ink"]]

    ran = client.submit(form, {"sql_query": statement})
    assert ran.status == 200
    assert "1 row inserted." in ran.text, alerts(ran)
    assert rows(phpmyadmin)[-1] == ["3", "paper & glue"]

    browse = client.get("/index.php?route=/sql&db=shop&table=items&pos=0")
    assert browse.status == 200
    assert "paper &amp; glue" in browse.text

    export_page = client.get("/index.php?route=/table/export&db=shop&table=items")
    exported = client.submit(export_page.form(name="dump"), {
        "what": "csv", "output_format": "sendit", "quick_or_custom": "quick",
        "compression": "none"})
    assert exported.status == 200, exported
    assert exported.header("Content-Disposition") == 'attachment; filename="items.csv"'
    assert exported.text.split("\n")[:4] == ['"id","name"', '"1","pen"', '"2","ink"',
                                            '"3","paper & glue"']

    token = re.search(r'name="token" value="([0-9a-f]+)"', browse.text).group(1)
    logged_out = client.post("/index.php?route=/logout", {"token": token})
    assert logged_out.form(id="login_form")
    assert "pmaAuth-1" not in client.cookies
    assert client.get("/index.php?route=/database/sql&db=shop").form(id="login_form")

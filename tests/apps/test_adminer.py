"""Adminer, as Debian packages it (/usr/share/adminer, unchanged), served by `spindle run` on
an SQLite file the test creates.

Debian's entry point is /etc/adminer/conf.php: a customization file that includes
/usr/share/adminer/adminer.php. Adminer refuses password-less databases such as SQLite unless a
plugin checks a password, so the test's own entry point (tmp/www/index.php) is that file with
Adminer's login-password-less plugin enabled, as Adminer documents. See docs/apps.md.
"""

import csv
import io
import re
import sqlite3
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from app_client import Client

ADMINER = Path("/usr/share/adminer")
PASSWORD = "adminer-Test-1"

# A missing package fails the run rather than skipping its flows.
if not (ADMINER / "adminer.php").is_file():
    raise AssertionError("needs Debian's adminer: run scripts/install-deps.sh apps")

ENTRY = """<?php
// Debian's /etc/adminer/conf.php, with a password for password-less drivers (SQLite).
function adminer_object() {
    include_once '/usr/share/adminer/plugins/plugin.php';
    include_once '/usr/share/adminer/plugins/version-noverify.php';
    include_once '/usr/share/adminer/plugins/login-password-less.php';
    return new AdminerPlugin([
        new AdminerVersionNoverify(),
        new AdminerLoginPasswordLess(password_hash(getenv('ADMINER_PASSWORD'), PASSWORD_BCRYPT, ['cost' => 4])),
    ]);
}
include '/usr/share/adminer/adminer.php';
"""


@pytest.fixture(scope="module")
def adminer(app_server, tmp_path_factory):
    base = tmp_path_factory.mktemp("adminer")
    database = base / "library.sqlite"
    with sqlite3.connect(database) as db:
        db.executescript("""
            CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER);
            INSERT INTO books (title, year) VALUES ('Dune', 1965), ('Solaris', 1961),
                ('Neuromancer', 1984);
        """)
    www = base / "www"
    www.mkdir()
    (www / "index.php").write_text(ENTRY)
    server = app_server(f"""
:0 {{
    bind 127.0.0.1
    root * {www}
    php_server {{
        env ADMINER_PASSWORD {PASSWORD}
    }}
}}
""", base)
    server.database = database
    return server


def log_in(server):
    client = Client(server.url())
    page = client.get("/")
    assert page.status == 200, page
    form = page.form(action="/")
    assert form.field("auth[driver]") is not None, form.fields
    done = client.submit(form, {"auth[driver]": "sqlite", "auth[server]": "",
                                "auth[username]": "", "auth[password]": PASSWORD,
                                "auth[db]": str(server.database)})
    assert done.status == 200, done
    assert [r.status for r in done.history] == [303], "a login ends in a redirect"
    query = parse_qs(urlsplit(done.url).query, keep_blank_values=True)
    assert query.get("db") == [str(server.database)], done.url
    return client, done


def test_wrong_password_is_refused(adminer):
    client = Client(adminer.url())
    form = client.get("/").form(action="/")
    refused = client.submit(form, {"auth[driver]": "sqlite", "auth[password]": "wrong",
                                   "auth[db]": str(adminer.database)})
    # Adminer's SQLite driver takes only the password its plugin checked.
    assert refused.status == 403
    assert "<div class='error'>" in refused.text
    assert "select=books" not in refused.text


def test_log_in_browse_a_table_and_run_sql_with_the_csrf_token(adminer):
    client, home = log_in(adminer)
    assert "select=books" in home.text, "the table list shows books"

    select = client.get(home.url + "&select=books")
    assert select.status == 200
    for title in ("Dune", "Solaris", "Neuromancer"):
        assert title in select.text

    sql = client.get(home.url + "&sql=")
    form = sql.form(method="post")
    token = form.field("token")
    assert token, form.fields
    statement = "INSERT INTO books (title, year) VALUES ('Hyperion', 1989)"

    # The same statement with a forged token is refused and changes nothing.
    forged = client.submit(form, {"query": statement, "token": "12345:67890"})
    assert "Invalid CSRF token" in forged.text, forged.text[:3000]
    with sqlite3.connect(adminer.database) as db:
        assert db.execute("SELECT count(*) FROM books WHERE title='Hyperion'").fetchone() == (0,)

    ran = client.submit(form, {"query": statement})
    assert ran.status == 200
    assert "Query executed OK, 1 row affected" in ran.text, ran.text[:3000]
    with sqlite3.connect(adminer.database) as db:
        assert db.execute("SELECT year FROM books WHERE title='Hyperion'").fetchone() == (1989,)


def test_export_as_csv_and_sql(adminer):
    client, home = log_in(adminer)
    dump = client.get(home.url + "&dump=books")
    form = dump.form(method="post")
    as_csv = client.submit(form, {"output": "text", "format": "csv", "data_style": "INSERT"})
    assert as_csv.status == 200
    rows = list(csv.reader(io.StringIO(as_csv.text.removeprefix("\ufeff"))))
    with sqlite3.connect(adminer.database) as db:
        expected = [[str(v) for v in row] for row in db.execute("SELECT * FROM books")]
    assert rows[0] == ["id", "title", "year"]
    assert rows[1:] == expected

    as_file = client.submit(form, {"output": "file", "format": "sql", "db_style": "",
                                   "table_style": "DROP+CREATE", "data_style": "INSERT"})
    assert as_file.status == 200
    assert "attachment" in as_file.header("Content-Disposition", ""), as_file.headers
    assert "CREATE TABLE" in as_file.text and "INSERT INTO" in as_file.text
    assert "Neuromancer" in as_file.text

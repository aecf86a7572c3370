"""The Laravel app of tests/apps/laravel on real services (tests/integration/services.py), as a
production Laravel site runs: its data in PostgreSQL (query builder, a schema made by an artisan
command on `spindle php-cli`), sessions and cache in Redis through phpredis, in classic mode
where the framework boots for every request. Visitors sign in, post and read back only their
own posts from many threads at once; the cached count is invalidated on write; an atomic
counter in the cache gives every concurrent hit its own number."""

import base64
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from app_client import Client
from services import postgres_server, redis_server  # noqa: F401 (fixtures)
from test_laravel import APP

THREADS = 8
VISITORS = 12


@pytest.fixture(scope="module")
def services_env(tmp_path_factory, redis_server, postgres_server):
    storage = tmp_path_factory.mktemp("laravel-services")
    for sub in ("app", "logs", "framework/sessions", "framework/views", "framework/cache"):
        (storage / sub).mkdir(parents=True)
    return {
        "APP_KEY": "base64:" + base64.b64encode(os.urandom(32)).decode(),
        "APP_STORAGE": str(storage),
        "APP_SERVICES_CACHE": f"{storage}/framework/cache/services.php",
        "APP_PACKAGES_CACHE": f"{storage}/framework/cache/packages.php",
        "DB_CONNECTION": "pgsql",
        "DB_PORT": str(postgres_server.port),
        "REDIS_PORT": str(redis_server.port),
        "SESSION_DRIVER": "redis",
        "CACHE_DRIVER": "redis",
    }


@pytest.fixture(scope="module")
def board(app_server, php_cli, services_env, tmp_path_factory):
    # The schema first, as a deploy runs its migrations: artisan on Spindle's own PHP.
    installed = subprocess.run([*php_cli, "-d", "extension=redis", "artisan", "board:install"],
                               capture_output=True, text=True, cwd=APP, timeout=120,
                               env=dict(os.environ, **services_env), stdin=subprocess.DEVNULL)
    assert installed.returncode == 0, installed
    assert "board_posts created" in installed.stdout
    env_lines = "\n".join(f"        env {name} {value}" for name, value in services_env.items())
    server = app_server(f"""
{{
    frankenphp {{
        num_threads {THREADS}
        php_ini extension redis
    }}
}}
:0 {{
    bind 127.0.0.1
    root * {APP}/public
    php_server {{
{env_lines}
    }}
}}
""", tmp_path_factory.mktemp("laravel-services-site"), warmup="/board")
    server.storage = services_env["APP_STORAGE"]
    return server


def sign_in(server, name):
    client = Client(server.url())
    token = client.get("/board").json()["token"]
    signed = client.post("/board/sign-in", {"_token": token, "name": name})
    assert signed.status == 200, signed
    assert signed.json()["name"] == name
    return client


def test_visitors_post_to_postgresql_with_sessions_in_redis(board, redis_server,
                                                            postgres_server):
    def visit(n):
        client = sign_in(board, f"visitor{n}")
        titles = [f"post {i} by visitor {n}" for i in range(3)]
        for title in titles:
            token = client.get("/board").json()["token"]
            posted = client.post("/board", {"_token": token, "title": title}, follow=False)
            assert posted.status == 201, posted
        page = client.get("/board").json()
        assert page["name"] == f"visitor{n}"
        assert page["mine"] == titles
        return client.cookies["laravel_session"]

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        cookies = list(pool.map(visit, range(VISITORS)))
    assert len(set(cookies)) == VISITORS

    # Every post is a row in PostgreSQL, and the count the app caches was dropped by each
    # write: a new visitor sees all of them.
    assert sign_in(board, "counter").get("/board").json()["total"] == 3 * VISITORS
    rows = subprocess.run(
        [str(postgres_server.bin / "psql"), "-h", "127.0.0.1", "-p", str(postgres_server.port),
         "-U", "postgres", "-At", "-c", "SELECT count(*), count(DISTINCT author) FROM board_posts"],
        capture_output=True, text=True, timeout=30)
    assert rows.stdout.strip() == f"{3 * VISITORS}|{VISITORS}", rows

    # The sessions are in Redis (database 0 under the app's prefix), none in files.
    sessions = redis_server.query("KEYS", "spindle_laravel_*")
    assert len(sessions) >= VISITORS, sessions
    assert list((Path(board.storage) / "framework" / "sessions").iterdir()) == []


def test_cache_counter_in_redis_is_atomic_across_threads(board, redis_server):
    def hit(_):
        response = Client(board.url()).get("/board/hit")
        assert response.status == 200, response
        return response.json()["hits"]

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        hits = list(pool.map(hit, range(200)))
    # Each hit got its own number: INCR in Redis, not a read-modify-write in PHP.
    assert sorted(hits) == list(range(1, 201))
    # The counter lives in the cache's own Redis database (config/database.php).
    assert redis_server.query("GET", "spindle_laravel_cache:board.hits", database=1) == "200"


def test_a_post_without_signing_in_is_refused(board):
    client = Client(board.url())
    token = client.get("/board").json()["token"]
    refused = client.post("/board", {"_token": token, "title": "anonymous"}, follow=False)
    assert refused.status == 403
    assert client.post("/board", {"title": "no token"}, follow=False).status == 419


@pytest.fixture(scope="module")
def articles(app_server, php_cli, postgres_server, tmp_path_factory):
    """The list page bench/real_apps.py measures, on PostgreSQL alone (no session kept: the
    array driver, as for anonymous visitors)."""
    storage = tmp_path_factory.mktemp("laravel-articles")
    for sub in ("app", "logs", "framework/sessions", "framework/views", "framework/cache"):
        (storage / sub).mkdir(parents=True)
    env = {
        "APP_KEY": "base64:" + base64.b64encode(os.urandom(32)).decode(),
        "APP_STORAGE": str(storage),
        "APP_SERVICES_CACHE": f"{storage}/framework/cache/services.php",
        "APP_PACKAGES_CACHE": f"{storage}/framework/cache/packages.php",
        "DB_CONNECTION": "pgsql",
        "DB_PORT": str(postgres_server.port),
        "SESSION_DRIVER": "array",
    }
    installed = subprocess.run([*php_cli, "artisan", "articles:install"], capture_output=True,
                               text=True, cwd=APP, timeout=120, env=dict(os.environ, **env),
                               stdin=subprocess.DEVNULL)
    assert installed.returncode == 0, installed
    assert "articles created: 50" in installed.stdout
    env_lines = "\n".join(f"        env {name} {value}" for name, value in env.items())
    return app_server(f"""
:0 {{
    bind 127.0.0.1
    root * {APP}/public
    php_server {{
{env_lines}
    }}
}}
""", tmp_path_factory.mktemp("laravel-articles-site"), warmup="/articles")


def test_articles_read_through_eloquent_and_rendered_by_blade(articles):
    # The first 20 of the 50 rows, in order, each field escaped by Blade, the dates cast by
    # the model; the same page from eight clients at once.
    page = Client(articles.url()).get("/articles")
    assert page.status == 200, page
    items = re.findall(r'<li id="article-(\d+)"><h2>([^<]*)</h2>\n<p class="meta">([^<]*)</p>',
                       page.text)
    assert [int(i) for i, _, _ in items] == list(range(1, 21)), page.text[:2000]
    assert items[0][1] == "Article 1 &amp; its &lt;notes&gt;"
    assert items[6][2] == "author0, 8 January 2026"
    assert "Paragraph of article 20. Paragraph" in page.text
    assert '<p class="count">20 articles</p>' in page.text
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        pages = list(pool.map(lambda _: Client(articles.url()).get("/articles").text, range(16)))
    assert all(p == page.text for p in pages)

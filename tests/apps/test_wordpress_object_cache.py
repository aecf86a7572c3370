"""WordPress with a persistent object cache in APCu (the object-cache.php drop-in of
tests/apps/wordpress), as busy WordPress sites run: options, posts and queries cached in the
one APCu shared by every PHP thread. A change made by one request is what every later request
sees, whichever thread serves it: never a stale copy of a post or of the site's options."""

import re
import secrets
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest

from http_client import Client
# Plain permalinks (the default after install): the REST API answers on ?rest_route=.
from test_wordpress import install, log_in, mariadb, rest_nonce  # noqa: F401 (fixture)
from wordpress_site import DROP_INS, WordPressSite

READERS = 8


@pytest.fixture
def cached_site(mariadb, tmp_path):
    site = WordPressSite(tmp_path / "wordpress", mariadb, object_cache=True).create()
    shutil.copy(DROP_INS / "cache-probe.php", site.content / "cache-probe.php")
    yield site
    site.remove()


def read_everywhere(port, target):
    """`target` fetched by READERS clients at once, twice each: every PHP thread serves some."""
    def read(_):
        with Client(port) as reader:
            page = reader.get(target)
            assert page.status == 200, page
            return page.text

    with ThreadPoolExecutor(max_workers=READERS) as pool:
        return list(pool.map(read, range(2 * READERS)))


def test_object_cache_in_apcu_stays_coherent_across_threads(spindle_run, cached_site):
    server = spindle_run(cached_site.caddyfile(), warmup="/wp-admin/install.php")
    password = secrets.token_urlsafe(16)

    def probe(key=""):
        with Client(server.port) as client:
            response = client.get(f"/wp-content/cache-probe.php?salt={cached_site.name}"
                                  + (f"&key={key}" if key else ""))
            assert response.status == 200, response
            return response.json()

    with Client(server.port) as admin:
        install(admin, password)
        log_in(admin, password)
        nonce = rest_nonce(admin)
        # WordPress keeps its options and users in the drop-in's APCu keys.
        assert probe()["keys"] > 10
        assert probe("options:alloptions")["value"]["blogname"] == "Spindle &lt;Blog&gt;"

        created = admin.post_json("/?rest_route=/wp/v2/posts", {
            "title": "Cached once", "status": "publish", "content": "<p>first</p>"},
            headers={"X-WP-Nonce": nonce})
        assert created.status == 201, created
        post = created.json()
        target = f"/?p={post['id']}"
        for page in read_everywhere(server.port, target):
            assert "Cached once" in page and "first" in page

        # An edit through one thread: no thread serves the old copy afterwards.
        edited = admin.post_json(f"/?rest_route=/wp/v2/posts/{post['id']}", {
            "title": "Edited on one thread", "content": "<p>second</p>"},
            headers={"X-WP-Nonce": nonce})
        assert edited.status == 200, edited
        for page in read_everywhere(server.port, target):
            assert "Edited on one thread" in page and "second" in page
            assert "Cached once" not in page

        # The site's options too: a new title everywhere at once.
        renamed = admin.post_json("/?rest_route=/wp/v2/settings", {"title": "Renamed blog"},
                                  headers={"X-WP-Nonce": nonce})
        assert renamed.status == 200, renamed
        assert probe("options:alloptions")["value"]["blogname"] == "Renamed blog"
        for page in read_everywhere(server.port, "/"):
            assert re.search(r"<title>[^<]*Renamed blog", page), page[:500]

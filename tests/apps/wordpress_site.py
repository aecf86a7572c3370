"""A throw-away WordPress site on Debian's `wordpress` package: the code stays in
/usr/share/wordpress, untouched; each site gets its own database on the test's MariaDB, its
own writable wp-content (the packaged theme linked in) and its own configuration file, which
Debian's wp-config.php finds through the WORDPRESS_CONFIG variable the Caddyfile sets
(docs/apps.md describes the same layout for a real deployment)."""

import os
import secrets
import shutil
from pathlib import Path

WORDPRESS = Path("/usr/share/wordpress")
DROP_INS = Path(__file__).resolve().parent / "wordpress"
THEME = "twentytwentythree"
CONFIG_DIR = Path("/etc/wordpress")


class WordPressSite:
    """`object_cache`: the site gets the APCu object-cache drop-in of tests/apps/wordpress
    (keys salted with the site's name) and the server loads APCu."""

    def __init__(self, base, mariadb, object_cache=False):
        self.base = Path(base)
        self.name = "spindle-test-" + secrets.token_hex(6)
        self.content_root = self.base / "content"  # holds wp-content, the /wp-content root
        self.content = self.content_root / "wp-content"
        self.config_file = CONFIG_DIR / f"config-{self.name}.php"
        # PHP's mail() hands messages to this "sendmail", which appends them to mailbox.
        self.sendmail = self.base / "sendmail.sh"
        self.mailbox = self.base / "mailbox"
        self.mariadb = mariadb
        self.database = self.name.replace("-", "_")
        self.db_password = secrets.token_hex(12)
        self.object_cache = object_cache

    def create(self):
        if not (WORDPRESS / "wp-settings.php").is_file():
            raise AssertionError("Debian's wordpress package is not installed "
                                 "(scripts/install-deps.sh apps)")
        (self.content / "themes").mkdir(parents=True)
        (self.content / "plugins").mkdir()
        (self.content / "uploads").mkdir()
        (self.content / "themes" / THEME).symlink_to(WORDPRESS / "wp-content/themes" / THEME)
        self.sendmail.write_text(f"#!/bin/sh\ncat >> '{self.mailbox}'\n")
        self.sendmail.chmod(0o755)
        if self.object_cache:
            shutil.copy(DROP_INS / "object-cache.php", self.content / "object-cache.php")
        self.mariadb.create_database(self.database, self.database, self.db_password)
        salts = "".join(f"define('{key}', '{secrets.token_hex(32)}');\n" for key in (
            "AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY", "AUTH_SALT",
            "SECURE_AUTH_SALT", "LOGGED_IN_SALT", "NONCE_SALT"))
        CONFIG_DIR.mkdir(parents=True, exist_ok=True)
        self.config_file.write_text(f"""<?php
// Written by tests/apps/wordpress_site.py for one test run; removed at its end.
define('DB_NAME', '{self.database}');
define('DB_USER', '{self.database}');
define('DB_PASSWORD', '{self.db_password}');
define('DB_HOST', '127.0.0.1:{self.mariadb.port}');
define('WP_CONTENT_DIR', '{self.content}');
// No network here: never call wordpress.org, never spawn cron requests.
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('DISABLE_WP_CRON', true);
define('WP_CACHE_KEY_SALT', '{self.name}');
{salts}""")
        os.chmod(self.config_file, 0o640)
        return self

    def remove(self):
        self.config_file.unlink(missing_ok=True)
        shutil.rmtree(self.base, ignore_errors=True)

    def mail(self):
        """Everything sent through mail() so far."""
        return self.mailbox.read_text(errors="replace") if self.mailbox.exists() else ""

    def caddyfile(self):
        """The Caddyfile docs/apps.md shows, on 127.0.0.1 and a free port."""
        return f"""{{
	frankenphp {{
		num_threads 4
		php_ini upload_max_filesize 16M
		php_ini post_max_size 16M
		php_ini sendmail_path {self.sendmail}
		{"php_ini extension apcu" if self.object_cache else ""}
	}}
}}
http://127.0.0.1:0 {{
	bind 127.0.0.1
	root * {WORDPRESS}
	root /wp-content/* {self.content_root}
	php_server {{
		env WORDPRESS_CONFIG {self.name}
	}}
}}
"""

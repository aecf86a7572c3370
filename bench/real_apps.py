#!/usr/bin/python3
"""Real applications on Spindle against nginx + php-fpm (issue 34): the WordPress, MediaWiki,
Laravel and Symfony apps that tests/apps drives, installed the same way here, served by
Spindle (classic, and worker for Symfony) and by nginx + php-fpm (pm static, 8 children), on
the same database servers (one MariaDB for WordPress and MediaWiki, one PostgreSQL for
Laravel), with the same php.ini values on both sides. Every page's body is checked before and
after it is measured; wrk runs alternate between the servers. bench/run.sh --apps runs this
and puts its table into its results; by hand (as root, so that every PHP runs as www-data):

  bench/real_apps.py --spindle build/spindle [--duration 5s] [--warmup 2s] [--runs 2]
                     [--concurrency 8,64] [--only wordpress,mediawiki,laravel,symfony]
                     [--out bench/out] [--threads 8] [--spindle-ini KEY=VALUE ...]
                     [--spindle-env NAME=VALUE ...]
  bench/real_apps.py --spindle build/spindle --train N   # requests for a PGO build of PHP

Writes OUT/apps.md (the table), OUT/apps.tsv (medians), OUT/apps-runs.tsv (every run),
OUT/apps-chart.svg and OUT/logs/apps-*.
"""

import argparse
import base64
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "integration"), str(ROOT / "tests" / "apps")]

from mariadb_server import MariaDB  # noqa: E402
from services import PostgreSQL  # noqa: E402
from spindle_harness import free_port  # noqa: E402
from wordpress_site import WordPressSite  # noqa: E402

HERE = Path(__file__).resolve().parent / "real_apps"
MEDIAWIKI = Path("/usr/share/mediawiki")
LARAVEL = ROOT / "tests" / "apps" / "laravel"
SYMFONY = ROOT / "tests" / "apps" / "symfony"
FPM = "php-fpm8.2"
TICKS = os.sysconf("SC_CLK_TCK")

# The same engine settings on both sides: php-fpm reads Debian's php.ini-production, whose
# values Spindle has built in (sapi/engine.cpp); these are set on both explicitly.
PHP_INI = {
    "memory_limit": "128M",
    "opcache.enable": "1",
    "opcache.memory_consumption": "128",
    "opcache.interned_strings_buffer": "8",
    "opcache.max_accelerated_files": "10000",
    "opcache.validate_timestamps": "1",
    "opcache.revalidate_freq": "2",
    "opcache.jit": "off",
    "realpath_cache_size": "4096K",
    "realpath_cache_ttl": "120",
    "max_execution_time": "30",
}

SERVER_LABEL = {"fpm": "nginx + php-fpm", "classic": "spindle classic",
                "worker": "spindle worker"}


def log(text):
    print(f"[apps] {text}", file=sys.stderr, flush=True)


def seconds(duration):
    match = re.fullmatch(r"(\d+)([sm]?)", duration)
    if not match:
        raise SystemExit(f"durations are like 5s or 2m, not {duration}")
    return int(match.group(1)) * (60 if match.group(2) == "m" else 1)


# --- the pages and what their bodies must hold ---------------------------------------------

def check_wordpress_front(body):
    titles = re.findall(r">Bench post (\d+)</a>", body)
    return sorted(set(int(t) for t in titles)) == list(range(1, 11))


def check_wordpress_post(body):
    return (">Bench post 5<" in body and "Paragraph of bench post 5" in body
            and all(f"Comment {c} on bench post 5." in body for c in (1, 2, 3)))


def check_wordpress_rest(body):
    posts = json.loads(body)
    return sorted(p["title"]["rendered"] for p in posts) == sorted(
        f"Bench post {i}" for i in range(1, 11))


def check_mediawiki_view(body):
    return ("<h1" in body and "Bench article" in body
            and "Spindle serves this article" in body and 'id="History"' in body)


def check_mediawiki_api(body):
    page = json.loads(body)["query"]["pages"][0]
    return "Spindle serves this article" in page["revisions"][0]["slots"]["main"]["content"]


def check_laravel(body):
    ids = re.findall(r'<li id="article-(\d+)"><h2>Article \d+ &amp; its &lt;notes&gt;</h2>', body)
    return [int(i) for i in ids] == list(range(1, 21)) and "20 articles" in body


def check_symfony(body):
    return "<h1>Hello, bench!</h1>" in body and '<a href="/hello/bench">again</a>' in body


# (app, page, path, check, servers)
PAGES = [
    ("wordpress", "wp front page", "/", check_wordpress_front, ("fpm", "classic")),
    ("wordpress", "wp post + comments", "/bench-post-5/", check_wordpress_post,
     ("fpm", "classic")),
    ("wordpress", "wp REST posts", "/wp-json/wp/v2/posts", check_wordpress_rest,
     ("fpm", "classic")),
    ("mediawiki", "mw article (parser cache)", "/wiki/Bench_article", check_mediawiki_view,
     ("fpm", "classic")),
    ("mediawiki", "mw API query",
     "/api.php?action=query&prop=revisions&titles=Bench_article&rvprop=content&rvslots=main"
     "&format=json&formatversion=2", check_mediawiki_api, ("fpm", "classic")),
    ("laravel", "laravel Eloquent + Blade", "/articles", check_laravel, ("fpm", "classic")),
    ("laravel_pconnect", "laravel, persistent DB connection", "/articles", check_laravel,
     ("fpm", "classic")),
    ("symfony", "symfony router + Twig", "/hello/bench", check_symfony,
     ("fpm", "classic", "worker")),
]
APPS = ["wordpress", "mediawiki", "laravel", "laravel_pconnect", "symfony"]

# What --train requests, for a profile-guided PHP build (bench/pgo_train_apps.sh): the same
# apps, but none of the pages measured above, so that the measured pages stay out of the
# training and the profile is of each app's code, not of one URL. (app, path, modes)
TRAINING = [
    ("wordpress", "/?s=Paragraph", ("classic",)),
    ("wordpress", "/category/uncategorized/", ("classic",)),
    ("wordpress", "/feed/", ("classic",)),
    ("wordpress", "/wp-json/wp/v2/comments", ("classic",)),
    ("wordpress", "/wp-login.php", ("classic",)),
    ("mediawiki", "/wiki/Main_Page", ("classic",)),
    ("mediawiki", "/index.php?title=Bench_article&action=history", ("classic",)),
    ("mediawiki", "/index.php?title=Special:RecentChanges", ("classic",)),
    ("mediawiki", "/api.php?action=query&meta=siteinfo&format=json", ("classic",)),
    ("laravel", "/", ("classic",)),
    ("laravel", "/request?tag=a&tag2=b", ("classic",)),
    ("symfony", "/", ("classic", "worker")),
    ("symfony", "/posts/7.json", ("classic", "worker")),
    ("symfony", "/posts/7.html", ("classic", "worker")),
]


# --- processes ------------------------------------------------------------------------------

def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def tree(pid):
    """pid and all its descendants."""
    pids = [pid]
    for child in children(pid):
        pids += tree(child)
    return pids


def cpu_ticks(pids):
    """User + system time of pids, with that of the children each has waited for: PostgreSQL
    starts a backend process per connection, which ends with the PHP request that opened it."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15])
        except OSError:
            pass
    return total


def pss_kib(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


class Bench:
    def __init__(self, args):
        self.args = args
        self.out = Path(args.out).resolve()
        (self.out / "logs").mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix="spindle-apps-bench-"))
        self.tmp.chmod(0o755)
        # As root, every PHP (php-fpm's children and Spindle) runs as www-data, as Debian's
        # packages expect: the same user, the same file permissions on both sides.
        self.user = None
        if os.geteuid() == 0:
            self.user = pwd.getpwnam("www-data")
        self.procs = []
        self.mariadb = None
        self.postgres = None
        self.wordpress = None
        self.env = {}  # app -> environment of its PHP, both servers
        self.per_server_dirs = {}  # app -> maker of the dirs each server gets its own copy of
        self.engines = {}  # server -> what check_engine() found
        self.write_probe()

    # -- set-up --

    def own(self, path):
        if self.user is not None:
            for folder, dirs, files in os.walk(path):
                os.chown(folder, self.user.pw_uid, self.user.pw_gid)
                for name in files:
                    os.chown(os.path.join(folder, name), self.user.pw_uid, self.user.pw_gid)

    def php_cli(self, *arguments, env=None, cwd=None, stdin=None):
        result = subprocess.run([self.args.spindle, "php-cli", *arguments], input=stdin,
                                capture_output=True, text=True, timeout=600,
                                env=dict(os.environ, **(env or {})), cwd=cwd)
        if result.returncode != 0:
            raise SystemExit(f"spindle php-cli {' '.join(arguments)} failed:\n"
                             f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
        return result.stdout

    def setup_wordpress(self):
        site = WordPressSite(self.tmp / "wordpress", self.mariadb)
        site.name = "spindle-bench-" + secrets.token_hex(6)
        site.config_file = site.config_file.with_name(f"config-{site.name}.php")
        self.wordpress = site
        site.create()
        # The port differs between the servers: links and canonical redirects follow the Host.
        with open(site.config_file, "a") as f:
            f.write("define('WP_HOME', 'http://' . $_SERVER['HTTP_HOST']);\n"
                    "define('WP_SITEURL', 'http://' . $_SERVER['HTTP_HOST']);\n")
        if self.user is not None:
            os.chown(site.config_file, 0, self.user.pw_gid)
        self.php_cli(str(HERE / "wordpress_install.php"),
                     env={"WORDPRESS_CONFIG": site.name})
        self.own(site.base)
        self.env["wordpress"] = {"WORDPRESS_CONFIG": site.name}

    def setup_mediawiki(self):
        base = self.tmp / "mediawiki"
        base.mkdir()
        password = secrets.token_hex(12)
        self.mariadb.create_database("mwbench", "mwbench", password)
        self.php_cli("-d", "memory_limit=512M", str(MEDIAWIKI / "maintenance/install.php"),
                     "--dbtype", "mysql", "--dbserver", f"127.0.0.1:{self.mariadb.port}",
                     "--dbname", "mwbench", "--dbuser", "mwbench", "--dbpass", password,
                     "--server", "http://127.0.0.1", "--scriptpath", "",
                     "--pass", "Bench-Admin-Pass-1", "--confpath", str(base), "--lang", "en",
                     "Bench Wiki", "Admin", cwd=base)
        settings = base / "LocalSettings.php"
        settings.write_text(settings.read_text() + f"""
# Added by bench/real_apps.py: the server's name from each request (the ports differ), short
# URLs through the front controller, caches in the bench's directory.
$wgServer = WebRequest::detectServer();
$wgArticlePath = "/wiki/$1";
$wgCacheDirectory = "{base}/cache";
$wgUploadDirectory = "{base}/images";
""")
        self.env["mediawiki"] = {"MW_CONFIG_FILE": str(settings)}
        self.php_cli(str(MEDIAWIKI / "maintenance/edit.php"), "-u", "Admin", "-s", "bench",
                     "Bench_article", env=self.env["mediawiki"],
                     stdin="'''Spindle serves this article''' to the bench.\n\n== History ==\n"
                     + "A paragraph of [[Main Page|text]] with a link.\n\n" * 20)
        (base / "cache").mkdir(exist_ok=True)
        self.own(base)

    def setup_laravel(self):
        self.postgres = PostgreSQL().start()
        storage = self.tmp / "laravel-setup"
        self.env["laravel"] = {
            "APP_KEY": "base64:" + base64.b64encode(os.urandom(32)).decode(),
            "APP_ENV": "production",
            "DB_CONNECTION": "pgsql",
            "DB_PORT": str(self.postgres.port),
            # Anonymous visitors: no session kept between requests.
            "SESSION_DRIVER": "array",
        }
        self.per_server_dirs["laravel"] = self.laravel_storage
        self.php_cli("artisan", "articles:install", env=dict(
            self.env["laravel"], **self.laravel_storage(storage)), cwd=LARAVEL)

    def setup_laravel_pconnect(self):
        """The same Laravel app and database, each PHP thread or php-fpm child keeping its
        connection between requests (PDO::ATTR_PERSISTENT): without it, PostgreSQL starts a
        backend process for every request's connection, and that start costs more CPU than
        the page's PHP."""
        if self.postgres is None:
            self.setup_laravel()
        self.env["laravel_pconnect"] = dict(self.env["laravel"], DB_PERSISTENT="true")
        self.per_server_dirs["laravel_pconnect"] = self.laravel_storage

    @staticmethod
    def laravel_storage(storage):
        for sub in ("app", "logs", "framework/sessions", "framework/views", "framework/cache"):
            (storage / sub).mkdir(parents=True, exist_ok=True)
        return {"APP_STORAGE": str(storage),
                "APP_SERVICES_CACHE": f"{storage}/framework/cache/services.php",
                "APP_PACKAGES_CACHE": f"{storage}/framework/cache/packages.php"}

    def setup_symfony(self):
        self.env["symfony"] = {}
        self.per_server_dirs["symfony"] = self.symfony_dirs

    @staticmethod
    def symfony_dirs(base):
        (base / "sessions").mkdir(parents=True, exist_ok=True)
        (base / "twig").mkdir(exist_ok=True)
        return {"APP_SESSION_DIR": str(base / "sessions"), "APP_TWIG_CACHE": str(base / "twig")}

    def server_env(self, app, server):
        """The app's environment for one server, with its own writable directories."""
        env = dict(self.env[app])
        make = self.per_server_dirs.get(app)
        if make is not None:
            base = self.tmp / f"{app}-{server}"
            env.update(make(base))
            self.own(base)
        return env

    # -- servers --

    def spawn(self, name, command, as_user=True):
        log_file = open(self.out / "logs" / f"apps-{name}.log", "ab")
        kwargs = {}
        if as_user and self.user is not None:
            kwargs = {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log_file,
                                stderr=subprocess.STDOUT, **kwargs)
        self.procs.append(proc)
        return proc

    def start_fpm(self, app, env, children=8, wrapper=()):
        """nginx + php-fpm (pm static); wrapper: a command php-fpm runs under (valgrind)."""
        folder = self.tmp / f"fpm-{app}"
        folder.mkdir()
        user = f"user = {self.user.pw_name}\ngroup = {self.user.pw_name}\n" if self.user else ""
        owner = (f"listen.owner = {self.user.pw_name}\nlisten.group = {self.user.pw_name}\n"
                 if self.user else "")
        (folder / "php-fpm.conf").write_text(f"""[global]
pid = {folder}/php-fpm.pid
error_log = {self.out}/logs/apps-php-fpm-{app}.log
daemonize = no

[bench]
{user}listen = {folder}/php-fpm.sock
{owner}listen.mode = 0660
pm = static
pm.max_children = {children}
""")
        ini = [arg for key, value in PHP_INI.items() for arg in ("-d", f"{key}={value}")]
        proc = self.spawn(f"php-fpm-{app}", [*wrapper, FPM, "-F", "-y",
                                             str(folder / "php-fpm.conf"), *ini], as_user=False)
        deadline = time.monotonic() + 300
        while not (folder / "php-fpm.sock").exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"php-fpm for {app} did not start (see {self.out}/logs)")
            time.sleep(0.1)

        port = free_port()
        root, index = self.web_root(app)
        params = "".join(f"            fastcgi_param {k} \"{v}\";\n" for k, v in env.items())
        os.makedirs(folder / "body", exist_ok=True)
        self.own(folder / "body")
        (folder / "nginx.conf").write_text(f"""
{f"user {self.user.pw_name};" if self.user else ""}
worker_processes auto;
pid {folder}/nginx.pid;
error_log {self.out}/logs/apps-nginx-{app}.log error;
daemon off;
events {{
    worker_connections 4096;
}}
http {{
    include /etc/nginx/mime.types;
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path {folder}/body;
    fastcgi_temp_path {folder}/body;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        index {index};
        location / {{
            try_files $uri $uri/ /{index}$is_args$args;
        }}
        location ~ \\.php$ {{
            try_files $uri =404;
            include /etc/nginx/fastcgi.conf;
            fastcgi_pass unix:{folder}/php-fpm.sock;
{params}        }}
        # The probe of check_engine(), outside the app's root.
        location ^~ /spindle-bench-probe/ {{
            root {self.tmp}/probe;
            include /etc/nginx/fastcgi.conf;
            fastcgi_pass unix:{folder}/php-fpm.sock;
        }}
    }}
}}
""")
        nginx = self.spawn(f"nginx-{app}", ["nginx", "-c", str(folder / "nginx.conf"), "-p",
                                            str(folder) + "/"], as_user=False)
        self.wait_port(port, nginx, f"nginx for {app}")
        return {"port": port, "pids": lambda: tree(nginx.pid) + tree(proc.pid),
                "procs": [nginx, proc], "php": proc}

    @staticmethod
    def web_root(app):
        """Document root and front controller."""
        if app == "wordpress":
            return Path("/usr/share/wordpress"), "index.php"
        if app == "mediawiki":
            return MEDIAWIKI, "index.php"
        if app in ("laravel", "laravel_pconnect"):
            return LARAVEL / "public", "index.php"
        return SYMFONY / "public", "classic.php"

    def start_spindle(self, app, mode, env, threads=None, wrapper=()):
        """Spindle from a Caddyfile; wrapper: a command it runs under (valgrind, strace)."""
        port = free_port()
        root, index = self.web_root(app)
        envs = "".join(f"\t\tenv {k} {v}\n" for k, v in env.items())
        ini = "".join(f"\t\tphp_ini {k} {v}\n"
                      for k, v in {**PHP_INI, **self.args.spindle_ini}.items())
        inner = envs
        threads = threads or self.args.threads
        if mode == "worker":
            inner += (f"\t\tworker {{\n\t\t\tfile {SYMFONY}/public/index.php\n"
                      f"\t\t\tnum {threads}\n\t\t}}\n")
            threads += 1
        else:
            inner += f"\t\tindex {index}\n"
        if app == "wordpress":
            site_roots = (f"\troot * {root}\n"
                          f"\troot /wp-content/* {self.wordpress.content_root}\n")
        else:
            site_roots = f"\troot * {root}\n"
        # The probe of check_engine(), outside the app's root.
        site_roots += f"\troot /spindle-bench-probe/* {self.tmp}/probe\n"
        if app == "mediawiki":
            inner += "\t\tfollow_symlinks\n"
        caddyfile = self.tmp / f"Caddyfile-{app}-{mode}"
        caddyfile.write_text(f"""{{
	admin off
	frankenphp {{
		num_threads {threads}
{ini}	}}
}}
http://127.0.0.1:{port} {{
	bind 127.0.0.1
{site_roots}	php_server {{
{inner}	}}
}}
""")
        environment = [f"{k}={v}" for k, v in self.args.spindle_env.items()]
        proc = self.spawn(f"spindle-{app}-{mode}", [
            *wrapper, *(["env", *environment] if environment else []), self.args.spindle,
            "run", "--config", str(caddyfile)])
        self.wait_port(port, proc, f"spindle {mode} for {app}")
        return {"port": port, "pids": lambda: [proc.pid], "procs": [proc], "php": proc}

    def wait_port(self, port, proc, what):
        # Minutes: under valgrind, the first request compiles the app's scripts slowly.
        deadline = time.monotonic() + 600
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=300).close()
                return
            except urllib.error.HTTPError:
                return
            except (urllib.error.URLError, OSError):
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{what} did not answer on 127.0.0.1:{port} "
                                 f"(see {self.out}/logs)")
            time.sleep(0.1)

    def stop(self, procs):
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def cleanup(self):
        self.stop(self.procs)
        if self.wordpress is not None:
            self.wordpress.remove()
        if self.mariadb is not None:
            self.mariadb.stop()
        if self.postgres is not None:
            self.postgres.remove()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- measuring --

    def write_probe(self):
        probe = self.tmp / "probe" / "spindle-bench-probe"
        probe.mkdir(parents=True)
        keys = ", ".join(f"'{k}'" for k in PHP_INI if not k.startswith("opcache.enable"))
        (probe / "engine.php").write_text(
            "<?php\n// Which engine settings serve the app (bench/real_apps.py).\n"
            "echo json_encode(['opcache' => opcache_get_status(false)['opcache_enabled'] ?? false,"
            f" 'ini' => array_map('ini_get', array_combine([{keys}], [{keys}]))]);\n")
        self.own(self.tmp / "probe")

    def check_engine(self, app, server, port):
        """OPcache on and the same php.ini values on every server."""
        url = f"http://127.0.0.1:{port}/spindle-bench-probe/engine.php"
        with urllib.request.urlopen(url, timeout=30) as response:
            engine = json.loads(response.read())
        expected = PHP_INI if server == "fpm" else {**PHP_INI, **self.args.spindle_ini}
        wrong = {k: v for k, v in engine["ini"].items()
                 if v != expected[k] and not (k == "opcache.jit" and v in ("", "0", "off"))}
        if engine["opcache"] is not True or wrong:
            raise SystemExit(f"{server} for {app} runs PHP with other settings: {engine}")
        self.engines[server] = engine

    def check(self, page, server, url):
        _, name, _, check, _ = page
        try:
            # Minutes under valgrind (bench/app_profile.py).
            with urllib.request.urlopen(url, timeout=600) as response:
                status, body = response.status, response.read().decode(errors="replace")
        except urllib.error.HTTPError as error:
            status, body = error.code, error.read().decode(errors="replace")
        try:
            ok = status == 200 and check(body)
        except (ValueError, KeyError, IndexError, TypeError):
            ok = False
        if not ok:
            raise SystemExit(f"wrong response from {server} for {name} ({url}, status {status},"
                             f" {len(body)} bytes):\n{body[:1500]}")

    def wrk(self, url, conc, duration):
        # A WordPress page at c=64 on two cores takes seconds: wrk's 2 s timeout would count
        # slow answers as errors.
        result = subprocess.run(["wrk", "-t1", f"-c{conc}", f"-d{duration}", "--timeout", "60s",
                                 "--latency", url],
                                capture_output=True, text=True, timeout=seconds(duration) + 60)
        if result.returncode != 0:
            raise SystemExit(f"wrk failed: {result.stderr}")
        return result.stdout

    @staticmethod
    def to_ms(figure):
        number = float(re.match(r"[\d.]+", figure).group(0))
        if figure.endswith("us"):
            return number / 1000
        if figure.endswith("ms"):
            return number
        return number * 1000

    @staticmethod
    def wait_idle(pids):
        """Waits until the processes stop using CPU: requests that wrk gave up on at the end
        of a run still run, and must not count in the next server's run."""
        deadline = time.monotonic() + 120
        last = cpu_ticks(pids)
        while time.monotonic() < deadline:
            time.sleep(0.5)
            now = cpu_ticks(pids)
            if now - last <= 1:
                return
            last = now

    def warm_up(self, url, conc, pids):
        """wrk at this concurrency until every PHP process served a few requests (OPcache
        filled, each php-fpm child's own caches warm); returns the last req/s seen."""
        done, rate, deadline = 0, 0.0, time.monotonic() + 180
        while done < 3 * max(8, self.args.threads) and time.monotonic() < deadline:
            text = self.wrk(url, conc, self.args.warmup)
            done += int(re.search(r"(\d+) requests in", text).group(1))
            rate = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
            self.wait_idle(pids)
        return rate

    def duration(self, conc, rate):
        """The run's length: the asked one, or long enough for a request to wait its turn
        behind the others three times over (at c=64 a WordPress page takes seconds; a run
        shorter than that counts no request), at most 40 s."""
        base = seconds(self.args.duration)
        if rate <= 0:
            return f"{base}s"
        return f"{max(base, min(40, int(3 * conc / rate) + 1))}s"

    def measure(self, url, conc, duration, pids, db_pids):
        self.wait_idle(pids)
        before, db_before = cpu_ticks(pids), cpu_ticks(db_pids)
        text = self.wrk(url, conc, duration)
        after, db_after = cpu_ticks(pids), cpu_ticks(db_pids)
        requests = int(re.search(r"(\d+) requests in", text).group(1))
        errors = 0
        match = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
        if match:
            errors += int(match.group(1))
        match = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)",
                          text)
        if match:
            errors += sum(int(g) for g in match.groups())
        per_request = (lambda ticks: ticks / TICKS * 1e6 / requests if requests else float("nan"))
        return {
            "req_s": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)),
            "p50_ms": self.to_ms(re.search(r"^\s+50%\s+(\S+)", text, re.M).group(1)),
            "p99_ms": self.to_ms(re.search(r"^\s+99%\s+(\S+)", text, re.M).group(1)),
            "errors": errors,
            "cpu_us": per_request(after - before),
            "db_cpu_us": per_request(db_after - db_before),
        }

    def installed_apps(self):
        """The apps --only names, in APPS's order, each installed (and MariaDB started for
        WordPress and MediaWiki) just before it is yielded."""
        only = self.args.only.split(",")
        unknown = set(only) - set(APPS)
        if unknown:
            raise SystemExit(f"unknown app(s) {', '.join(sorted(unknown))} (known: {APPS})")
        if {"wordpress", "mediawiki"} & set(only):
            self.mariadb = MariaDB(self.tmp / "mariadb").start()
        for app in APPS:
            if app in only:
                log(f"{app}: installing")
                getattr(self, f"setup_{app}")()
                yield app

    def run(self):
        concurrency = [int(c) for c in self.args.concurrency.split(",")]
        runs_tsv = open(self.out / "apps-runs.tsv", "w")
        runs_tsv.write("page\tconcurrency\tserver\trun\treq_s\tp50_ms\tp99_ms\terrors\t"
                       "cpu_us_per_req\tdb_cpu_us_per_req\n")
        results = []
        for app in self.installed_apps():
            pages = [p for p in PAGES if p[0] == app]
            modes = sorted({s for p in pages for s in p[4]}, key=list(SERVER_LABEL).index)
            servers = {}
            for mode in modes:
                env = self.server_env(app, mode)
                servers[mode] = (self.start_fpm(app, env) if mode == "fpm"
                                 else self.start_spindle(app, mode, env))
            # The database server's CPU is counted apart (the same server for both sides).
            for server, handle in servers.items():
                self.check_engine(app, server, handle["port"])
            db = {"laravel": self.postgres, "laravel_pconnect": self.postgres,
                  "symfony": None}.get(app, self.mariadb)
            for page in pages:
                urls = {s: f"http://127.0.0.1:{servers[s]['port']}{page[2]}" for s in page[4]}
                for server, url in urls.items():
                    self.check(page, server, url)
                # Warmed up once, at the first concurrency; the runs of each warm the next.
                rate = {server: self.warm_up(url, concurrency[0], servers[server]["pids"]())
                        for server, url in urls.items()}
                for conc in concurrency:
                    duration = self.duration(conc, min(rate.values()))
                    rows = {s: [] for s in urls}
                    # Alternated, so that a slow spell of the shared machine is shared.
                    for run in range(1, self.args.runs + 1):
                        for server, url in urls.items():
                            row = self.measure(url, conc, duration, servers[server]["pids"](),
                                               tree(db.proc.pid) if db else [])
                            rows[server].append(row)
                            rate[server] = row["req_s"]
                            runs_tsv.write("\t".join(str(v) for v in (
                                page[1], conc, server, run, row["req_s"], row["p50_ms"],
                                row["p99_ms"], row["errors"], f"{row['cpu_us']:.1f}",
                                f"{row['db_cpu_us']:.1f}")) + "\n")
                            runs_tsv.flush()
                            log(f"  {page[1]} c={conc} {server} run {run} ({duration}):"
                                f" {row['req_s']:.1f}"
                                f" req/s, p50 {row['p50_ms']:.1f} ms, p99 {row['p99_ms']:.1f} ms,"
                                f" {row['errors']} errors, {row['cpu_us']:.0f} us CPU/req,"
                                f" DB {row['db_cpu_us']:.0f} us/req")
                    for server in urls:
                        median = {k: statistics.median(r[k] for r in rows[server])
                                  for k in rows[server][0]}
                        median["errors"] = sum(r["errors"] for r in rows[server])
                        results.append({"app": app, "page": page[1], "conc": conc,
                                        "server": server, **median})
                # A page that went wrong under load fails the run, not just the table.
                for server, url in urls.items():
                    self.check(page, server, url)
            memory = {s: pss_kib(servers[s]["pids"]()) for s in servers}
            for row in results:
                if row["app"] == app:
                    row["pss_mib"] = memory[row["server"]] / 1024
            for server in servers.values():
                self.stop(server["procs"])
        runs_tsv.close()
        self.report(results)

    def train(self):
        """--train: each TRAINING page requested --train times, one at a time, through one
        Spindle per app and mode with one PHP thread (the instrumented PHP's counters are not
        atomic), then stopped with SIGTERM: the profile is written when the process exits."""
        for app in self.installed_apps():
            pages = [t for t in TRAINING if t[0] == app]
            for mode in sorted({m for t in pages for m in t[2]}):
                server = self.start_spindle(app, mode, self.server_env(app, mode), threads=1)
                for _, path, modes in pages:
                    if mode not in modes:
                        continue
                    url = f"http://127.0.0.1:{server['port']}{path}"
                    for _ in range(self.args.train):
                        try:
                            with urllib.request.urlopen(url, timeout=600) as response:
                                status, body = response.status, response.read()
                        except urllib.error.HTTPError as error:
                            status, body = error.code, error.read()
                        if status != 200 or not body:
                            raise SystemExit(f"training: {url} ({mode}) answered {status}:\n"
                                             f"{body[:1500].decode(errors='replace')}")
                    log(f"  trained {app} {mode} {path}: {self.args.train} requests")
                self.stop(server["procs"])
                if server["php"].returncode != 0:
                    raise SystemExit(f"training: spindle for {app} ({mode}) exited with"
                                     f" {server['php'].returncode}: its profile is incomplete")

    # -- report --

    def report(self, results):
        fpm = {(r["page"], r["conc"]): r for r in results if r["server"] == "fpm"}
        lines = [
            "| page | c | server | req/s | p50 | p99 | errors | CPU/req | DB CPU/req | PSS "
            "| x fpm req/s | x fpm CPU/req |",
            "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        tsv = ["page\tconcurrency\tserver\treq_s\tp50_ms\tp99_ms\terrors\tcpu_us_per_req\t"
               "db_cpu_us_per_req\tpss_mib\tx_fpm\tcpu_x_fpm"]
        for r in results:
            base = fpm.get((r["page"], r["conc"]))
            x_fpm = r["req_s"] / base["req_s"] if base and base["req_s"] else float("nan")
            x_cpu = r["cpu_us"] / base["cpu_us"] if base and base["cpu_us"] else float("nan")
            lines.append(
                f"| {r['page']} | {r['conc']} | {SERVER_LABEL[r['server']]} | {r['req_s']:,.0f} "
                f"| {r['p50_ms']:.1f} ms | {r['p99_ms']:.1f} ms | {r['errors']} "
                f"| {r['cpu_us']:,.0f} us | {r['db_cpu_us']:,.0f} us | {r['pss_mib']:.0f} MiB "
                f"| {x_fpm:.2f}x | {x_cpu:.2f}x |")
            tsv.append("\t".join(str(v) for v in (
                r["page"], r["conc"], r["server"], f"{r['req_s']:.1f}", f"{r['p50_ms']:.2f}",
                f"{r['p99_ms']:.2f}", r["errors"], f"{r['cpu_us']:.1f}", f"{r['db_cpu_us']:.1f}",
                f"{r['pss_mib']:.1f}", f"{x_fpm:.3f}", f"{x_cpu:.3f}")))
        (self.out / "apps.md").write_text("\n".join(lines) + "\n")
        (self.out / "apps.tsv").write_text("\n".join(tsv) + "\n")
        print("\n".join(lines))
        self.chart(results)

    def chart(self, results):
        if shutil.which("gnuplot") is None:
            log("gnuplot is missing: no chart")
            return
        cases = []
        for r in results:
            if (r["page"], r["conc"]) not in cases:
                cases.append((r["page"], r["conc"]))
        value = {(r["page"], r["conc"], r["server"]): r["req_s"] for r in results}
        data = self.out / "apps-chart.tsv"
        with open(data, "w") as f:
            f.write("case\t" + "\t".join(SERVER_LABEL.values()) + "\n")
            for page, conc in cases:
                f.write(f"{page} c={conc}\t" + "\t".join(
                    f"{value[(page, conc, s)]:.1f}" if (page, conc, s) in value else "-"
                    for s in SERVER_LABEL) + "\n")
        script = f"""
set terminal svg size 1200,560 dynamic font "sans,12" background rgb "white"
set output "{self.out}/apps-chart.svg"
set title "Real applications: Spindle vs nginx + php-fpm, requests per second (log scale; wrk -t1, 127.0.0.1, {os.cpu_count()} cores)"
set datafile separator "\\t"
set datafile missing "-"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set grid ytics
set ylabel "req/s (median of {self.args.runs})"
set xtics rotate by 30 right scale 0
set key top right
plot for [i=2:4] "{data}" using i:xtic(1) title columnheader(i)
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        log(f"chart: {self.out}/apps-chart.svg")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spindle", required=True, help="the spindle binary")
    parser.add_argument("--out", default=str(ROOT / "bench" / "out"))
    parser.add_argument("--duration", default="5s")
    parser.add_argument("--warmup", default="2s")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--concurrency", default="8,64")
    parser.add_argument("--threads", type=int, default=8,
                        help="Spindle's PHP threads, php-fpm's children are 8 (default 8)")
    parser.add_argument("--only", default=",".join(APPS))
    parser.add_argument("--spindle-ini", action="append", default=[], metavar="KEY=VALUE",
                        help="a php.ini value for Spindle alone, over the shared ones (a lever"
                        " php-fpm does not get: opcache.jit=tracing); repeatable")
    parser.add_argument("--train", type=int, default=0, metavar="N",
                        help="no measurement: request each of the training pages N times"
                        " (bench/pgo_train_apps.sh)")
    parser.add_argument("--spindle-env", action="append", default=[], metavar="NAME=VALUE",
                        help="an environment variable of Spindle's process (one PHP reads at"
                        " start: USE_ZEND_ALLOC_HUGE_PAGES=1); repeatable")
    args = parser.parse_args()
    args.spindle_ini = dict(item.split("=", 1) for item in args.spindle_ini)
    args.spindle_env = dict(item.split("=", 1) for item in args.spindle_env)
    args.spindle = str(Path(args.spindle).resolve())
    seconds(args.duration)
    seconds(args.warmup)
    bench = Bench(args)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    try:
        bench.train() if args.train else bench.run()
    finally:
        bench.cleanup()


if __name__ == "__main__":
    main()

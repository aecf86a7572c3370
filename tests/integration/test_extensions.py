"""PHP extensions on Spindle's PHP: the ones built in (scripts/build-php.sh), pcntl in the
threaded server and in php-cli, an extension built from source with phpize, and the PECL
extensions scripts/php-ext.sh builds (scripts/test.sh builds them with --no-enable; each test
loads what it needs with `extension=NAME`), used from 8 PHP threads at once against real
Redis, Memcached and PostgreSQL servers."""

import json
import re
import shutil
import subprocess
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from services import memcached_server, postgres_server, redis_server  # noqa: F401 (fixtures)
from spindle_harness import EXECUTOR, FIXTURES
from spindle_http import Conn
from test_php_cli import php_cli

REPO = Path(__file__).resolve().parents[2]
EXTENSIONS = FIXTURES / "extensions"
THREADS = 8
CLIENTS = 16

# Extensions of PHP's own tree compiled into libphp (docs/extensions.md).
BUILT_IN = {
    "bcmath", "bz2", "calendar", "ctype", "curl", "date", "dba", "dom", "exif", "fileinfo",
    "filter", "ftp", "gd", "gettext", "gmp", "hash", "iconv", "intl", "json", "ldap", "libxml",
    "mbstring", "mysqli", "mysqlnd", "openssl", "pcntl", "pcre", "pdo", "pdo_mysql", "pdo_pgsql",
    "pdo_sqlite", "pgsql", "phar", "posix", "random", "readline", "reflection", "session",
    "shmop", "simplexml", "soap", "sockets", "sodium", "spl", "sqlite3", "standard", "sysvmsg",
    "sysvsem", "sysvshm", "tidy", "tokenizer", "xml", "xmlreader", "xmlwriter", "xsl",
    "zend opcache", "zip", "zlib",
}


def app_with(tmp_path, *scripts):
    """A document root holding only `scripts` of tests/fixtures/extensions (so worker mode
    boots just those) and the executor they require."""
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(EXTENSIONS / "index.php", root / "index.php")
    for script in scripts:
        shutil.copy(EXTENSIONS / script, root / script)
    shutil.copy(FIXTURES / EXECUTOR, tmp_path / EXECUTOR)
    return root


def load(*names):
    """php-server flags that load the PECL extensions `names`."""
    flags = []
    for name in names:
        flags += ["--php-ini-set", f"extension={name}"]
    return flags


def start(spindle, mode, tmp_path, script, *flags, env=None, files=()):
    """A server for one fixture (and the plain `files` it includes) on THREADS PHP threads in
    either mode."""
    root = app_with(tmp_path, script, *files)
    threads = ["--threads", str(THREADS)] if mode == "classic" else []
    return spindle(root, *flags, *threads, env=env, worker_threads=THREADS)


def get_all(srv, targets):
    """GETs every target from CLIENTS client threads at once; returns the responses in order."""
    def fetch(target):
        with Conn(srv.port, timeout=30) as conn:
            return conn.request("GET", target)

    with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
        return list(pool.map(fetch, targets))


def ok_json(responses):
    for r in responses:
        assert r.status == 200, r
    return [r.json() for r in responses]


@pytest.fixture(scope="session")
def php_prefix(spindle_binary):
    """The PHP build the spindle binary runs on: the prefix of the libphp its run path names."""
    dynamic = subprocess.run(["readelf", "-d", spindle_binary], capture_output=True, text=True,
                             check=True).stdout
    for match in re.finditer(r"\((?:RUNPATH|RPATH)\)\s+Library (?:runpath|rpath): \[(.*)\]",
                             dynamic):
        for folder in match.group(1).split(":"):
            if (Path(folder) / "libphp.so").exists():
                return Path(folder).parent
    raise AssertionError(f"{spindle_binary} names no folder holding libphp.so in its run path")


# --- built in -------------------------------------------------------------------------------


def test_builtin_extensions_are_loaded(spindle, mode, tmp_path):
    srv = start(spindle, mode, tmp_path, "loaded.php")
    loaded = set(srv.get("/loaded.php").json())
    assert BUILT_IN <= loaded, f"missing: {sorted(BUILT_IN - loaded)}"


def test_php_cli_lists_every_builtin_extension(spindle_binary):
    result = php_cli(spindle_binary, "-m")
    assert result.returncode == 0, result
    listed = {line.strip().lower() for line in result.stdout.splitlines()}
    assert BUILT_IN <= listed, f"missing: {sorted(BUILT_IN - listed)}"


def test_pcntl_functions_acting_on_the_process_are_refused_in_the_server(spindle, mode, tmp_path):
    srv = start(spindle, mode, tmp_path, "pcntl.php")
    data = srv.get("/pcntl.php").json()
    for function, message in data["refused"].items():
        assert message, f"{function}() was not refused"
        assert f"{function}() is not available in Spindle's server" in message, message
        assert "spindle php-cli" in message, message
    assert data["sigprocmask"] is True
    assert data["wifexited"] is True
    # The server's own signals still work: the harness stops it with SIGTERM and checks that.
    assert srv.get("/").status == 200


def test_php_cli_keeps_all_of_pcntl(spindle_binary):
    code = """
        $got = 0;
        pcntl_signal(SIGUSR1, function () use (&$got) { $got++; });
        posix_kill(getmypid(), SIGUSR1);
        pcntl_signal_dispatch();
        $pid = pcntl_fork();
        if ($pid === 0) { exit(7); }
        pcntl_waitpid($pid, $status);
        echo json_encode(['signals' => $got, 'child' => pcntl_wexitstatus($status)]);
    """
    result = php_cli(spindle_binary, "-r", code)
    assert result.returncode == 0, result
    assert json.loads(result.stdout) == {"signals": 1, "child": 7}


# --- phpize ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def probe_extension(php_prefix, tmp_path_factory):
    """tests/fixtures/ext/spindle_probe built with phpize && ./configure && make."""
    source = tmp_path_factory.mktemp("probe") / "spindle_probe"
    shutil.copytree(FIXTURES / "ext" / "spindle_probe", source)
    for step in ([str(php_prefix / "bin" / "phpize")],
                 ["./configure", f"--with-php-config={php_prefix / 'bin' / 'php-config'}"],
                 ["make", "-j2"]):
        done = subprocess.run(step, cwd=source, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{' '.join(step)} failed:\n{done.stdout}\n{done.stderr}"
    module = source / "modules" / "spindle_probe.so"
    assert module.exists()
    return module


def test_extension_built_with_phpize_loads_in_the_server(spindle, mode, tmp_path, probe_extension):
    srv = start(spindle, mode, tmp_path, "probe.php", "--php-ini-set",
                f"extension={probe_extension}")
    responses = ok_json(get_all(srv, [f"/probe.php?name=c{i}" for i in range(64)]))
    for i, data in enumerate(responses):
        assert data["loaded"] is True
        assert data["greeting"] == f"hello c{i} from spindle_probe"
        assert data["requests"] >= 1
    # Module globals are per thread: no thread counts more requests than were sent in all,
    # and together the threads saw at least every request of this test.
    assert max(d["requests"] for d in responses) <= 64 + 2


def test_extension_built_with_phpize_loads_in_php_cli(spindle_binary, probe_extension):
    result = php_cli(spindle_binary, "-d", f"extension={probe_extension}", "-r",
                     "echo spindle_probe_greet('cli'), ' ', spindle_probe_requests();")
    assert result.returncode == 0, result
    assert result.stdout == "hello cli from spindle_probe 1"


# --- PECL extensions from scripts/php-ext.sh ------------------------------------------------


def test_php_ext_lists_the_extensions_the_suite_uses_and_reuses_their_builds(php_prefix):
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PHP_PREFIX": str(php_prefix)}
    listed = subprocess.run([str(REPO / "scripts" / "php-ext.sh"), "--list"], env=env,
                            capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed
    names = {line.split()[0] for line in listed.stdout.splitlines()}
    expected = {"redis", "apcu", "igbinary", "msgpack", "imagick", "xdebug", "memcached", "yaml",
                "pcov", "amqp"}
    assert expected <= names, f"not built: {sorted(expected - names)} (scripts/test.sh builds them)"
    again = subprocess.run([str(REPO / "scripts" / "php-ext.sh"), "--no-enable", "apcu"],
                           env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again
    assert "apcu: cached" in again.stderr, again.stderr


def test_apcu_is_one_cache_for_every_thread(spindle, mode, tmp_path):
    srv = start(spindle, mode, tmp_path, "apcu.php", *load("apcu"))
    key = f"k{srv.mode}"
    values = [d["value"] for d in ok_json(get_all(srv, [f"/apcu.php?key={key}"] * 400))]
    # Atomic increments of one shared counter: every value once, none lost.
    assert sorted(values) == list(range(1, 401))
    final = srv.get(f"/apcu.php?op=get&key={key}").json()
    assert final == {"value": 400, "enabled": True}


def test_redis_connections_per_request_or_kept_by_each_worker_thread(spindle, mode, tmp_path,
                                                                     redis_server):
    srv = start(spindle, mode, tmp_path, "redis.php", *load("redis"),
                env={"REDIS_PORT": str(redis_server.port)})
    responses = ok_json(get_all(srv, [f"/redis.php?key=c{i}" for i in range(200)]))
    for i, data in enumerate(responses):
        assert data["owner"] == f"c{i}", data
    clients = {d["client"] for d in responses}
    if srv.mode == "worker":
        srv.kept_fds = THREADS
        # Each resident thread keeps its connection.
        assert len(clients) <= THREADS, clients
    else:
        assert len(clients) == len(responses), "a classic request reused a connection"


def sessions_never_mix(srv, script):
    """CLIENTS clients at once, each signing in under its own name and counting its requests
    in its session: every answer is its own."""
    failures = []

    def client(n):
        try:
            with Conn(srv.port, timeout=30) as conn:
                r = conn.request("GET", f"/{script}?name=user{n}")
                assert r.status == 200, r
                cookie = r.header("Set-Cookie").split(";")[0]
                assert r.json() == {"name": f"user{n}", "count": 1}, r.json()
                for count in range(2, 8):
                    r = conn.request("GET", f"/{script}", headers=[("Cookie", cookie)])
                    assert r.status == 200, r
                    assert r.json() == {"name": f"user{n}", "count": count}, r.json()
        except Exception as e:  # reported below with the client's number
            failures.append(f"client {n}: {e!r}")

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not failures, failures


def test_redis_sessions_never_mix_under_concurrent_clients(spindle, mode, tmp_path, redis_server):
    srv = start(spindle, mode, tmp_path, "redis_session.php", *load("redis"),
                env={"REDIS_PORT": str(redis_server.port)})
    sessions_never_mix(srv, "redis_session.php")


def test_memcached_counts_atomically_from_every_thread(spindle, mode, tmp_path, memcached_server):
    srv = start(spindle, mode, tmp_path, "memcached.php", *load("memcached"),
                env={"MEMCACHED_PORT": str(memcached_server.port)})
    before = memcached_server.stat("total_connections")
    responses = ok_json(get_all(srv, [f"/memcached.php?key={srv.mode}{i}" for i in range(200)]))
    for i, data in enumerate(responses):
        assert data["owner"] == f"{srv.mode}{i}", data
        assert data["result"] == "SUCCESS", data
    # One atomic counter on the server: 200 distinct values, none lost or repeated.
    values = [d["value"] for d in responses]
    assert all(type(v) is int for v in values), values  # increment() answers false on failure
    assert len(set(values)) == 200, sorted(values)
    # Less the connection that asks (the server counts it before it answers).
    opened = memcached_server.stat("total_connections") - before - 1
    if srv.mode == "worker":
        srv.kept_fds = THREADS
        # Each resident thread keeps its client and its connection.
        assert opened <= THREADS, opened
    else:
        assert opened >= 200, f"classic requests opened only {opened} connections"


def test_memcached_sessions_never_mix_under_concurrent_clients(spindle, mode, tmp_path,
                                                               memcached_server):
    srv = start(spindle, mode, tmp_path, "memcached_session.php", *load("memcached"),
                env={"MEMCACHED_PORT": str(memcached_server.port)})
    sessions_never_mix(srv, "memcached_session.php")


def test_postgresql_through_pdo_on_every_thread_and_across_a_restart(spindle, mode, tmp_path,
                                                                     postgres_server):
    srv = start(spindle, mode, tmp_path, "pgsql.php", env={"PG_DSN": postgres_server.dsn()})
    assert srv.get("/pgsql.php?setup=1&tag=setup").status == 200
    tag = f"{srv.mode}-"
    responses = ok_json(get_all(srv, [f"/pgsql.php?tag={tag}{i}" for i in range(120)]))
    for i, data in enumerate(responses):
        assert data["tag"] == f"{tag}{i}", data
    pids = {d["pid"] for d in responses}
    if srv.mode == "worker":
        srv.kept_fds = THREADS
        assert len(pids) <= THREADS, pids
    else:
        assert len(pids) > THREADS, "classic requests should each open their own connection"

    postgres_server.restart()
    after = ok_json(get_all(srv, [f"/pgsql.php?tag=after{i}" for i in range(120)]))
    for i, data in enumerate(after):
        assert data["tag"] == f"after{i}", data
    if srv.mode == "worker":
        # Each thread's first request after the restart found its connection dead and opened
        # a new one; no request failed.
        assert 1 <= sum(d["reconnected"] for d in after) <= THREADS
        assert not {d["pid"] for d in after} & pids


def test_pgsql_functions(spindle, mode, tmp_path, postgres_server):
    srv = start(spindle, mode, tmp_path, "pgsql_native.php",
                env={"PG_PORT": str(postgres_server.port)})
    responses = ok_json(get_all(srv, [f"/pgsql_native.php?n={i}" for i in range(64)]))
    assert [d["doubled"] for d in responses] == [2 * i for i in range(64)]


def test_imagick_resizes_on_every_thread(spindle, mode, tmp_path):
    srv = start(spindle, mode, tmp_path, "imagick.php", *load("imagick"))
    widths = [40 + 4 * i for i in range(48)]
    responses = get_all(srv, [f"/imagick.php?w={w}" for w in widths])
    for w, r in zip(widths, responses):
        assert r.status == 200, r
        assert r.body.startswith(b"\x89PNG\r\n\x1a\n")
        assert r.header("X-Size") == f"{w}x{round(w * 300 / 400)}"


def test_igbinary_and_msgpack(spindle, mode, tmp_path):
    srv = start(spindle, mode, tmp_path, "serializers.php", *load("igbinary", "msgpack"))
    for data in ok_json(get_all(srv, [f"/serializers.php?id={i}" for i in range(32)])):
        assert data == {"igbinary": True, "msgpack": True}


def test_xdebug_loads_as_a_zend_extension(spindle, mode, tmp_path):
    srv = start(spindle, mode, tmp_path, "xdebug.php", "--php-ini-set", "zend_extension=xdebug",
                "--php-ini-set", "xdebug.mode=develop")
    for data in ok_json(get_all(srv, ["/xdebug.php"] * 16)):
        assert data["loaded"] is True, data
        assert data["mode"] == "develop"
        assert data["version"].startswith("3.")
        # develop mode's var_dump() names where it was called from: xdebug is at work.
        assert "xdebug.php:" in data["dump"] and "int(42)" in data["dump"], data


def test_yaml_parses_and_emits_on_every_thread(spindle, mode, tmp_path):
    srv = start(spindle, mode, tmp_path, "yaml.php", *load("yaml"))
    for i, data in enumerate(ok_json(get_all(srv, [f"/yaml.php?id={i}" for i in range(64)]))):
        assert data["round_trip"] is True, data
        assert data["parsed"] == {"id": i, "name": f"request-{i}", "tags": ["a", "b"],
                                  "nested": {"half": i / 2}}, data


def test_pcov_collects_each_requests_own_coverage(spindle, mode, tmp_path):
    srv = start(spindle, mode, tmp_path, "pcov.php", *load("pcov"), "--php-ini-set",
                "pcov.enabled=1", "--php-ini-set", f"pcov.directory={tmp_path / 'root'}",
                files=["pcov_covered.php"])
    responses = ok_json(get_all(srv, [f"/pcov.php?n={n}" for n in range(64)]))
    for n, data in enumerate(responses):
        # pcov marks a line 1 once it ran and -1 while it only could have: the branch this
        # request took, never one another thread or request took.
        if n % 2 == 0:
            assert data == {"branch": "even", "even_line": 1, "odd_line": -1}, (n, data)
        else:
            assert data == {"branch": "odd", "even_line": -1, "odd_line": 1}, (n, data)


def closed_port():
    """A port of 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_amqp_reports_an_unreachable_broker_on_every_thread(spindle, mode, tmp_path):
    srv = start(spindle, mode, tmp_path, "amqp.php", *load("amqp"))
    port = closed_port()
    for data in ok_json(get_all(srv, [f"/amqp.php?port={port}"] * 32)):
        assert data["port"] == port and data["connected"] is False, data
        assert "could not connect" in data["error"].lower(), data

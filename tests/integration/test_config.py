"""Configuration files end to end: `spindle run/adapt/validate` on Caddyfiles and JSON, several
sites in one process, env layers, header/respond rules, worker match, php.ini settings, and
configuration errors that stop the start with file:line before anything is served."""

import json
import re
import socket
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

ENV_DUMP = """<?php
$names = ['SHADOW', 'PROC_ONLY', 'TOP_ONLY', 'SITE_ONLY', 'WORKER_ONLY'];
$out = [];
foreach ($names as $n) {
    $out[$n] = [$_SERVER[$n] ?? null, $_ENV[$n] ?? null, getenv($n) === false ? null : getenv($n)];
}
header('Content-Type: application/json');
echo json_encode(['script' => basename(__FILE__), 'env' => $out]);
"""

# A worker that answers with what ENV_DUMP would, from inside frankenphp_handle_request().
WORKER_ENV_DUMP = """<?php
$handler = function () {
    $names = ['SHADOW', 'PROC_ONLY', 'TOP_ONLY', 'SITE_ONLY', 'WORKER_ONLY'];
    $out = [];
    foreach ($names as $n) {
        $out[$n] = [$_SERVER[$n] ?? null, $_ENV[$n] ?? null,
                    getenv($n) === false ? null : getenv($n)];
    }
    header('Content-Type: application/json');
    echo json_encode(['script' => 'worker', 'uri' => $_SERVER['REQUEST_URI'], 'env' => $out]);
};
while (frankenphp_handle_request($handler)) {
}
"""


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def cli(binary, *args, cwd=None, env=None, timeout=20):
    return subprocess.run([binary, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def json_body(response):
    assert response.status == 200, response
    return json.loads(response.body)


# --- adapt and validate --------------------------------------------------------------------


def test_adapt_prints_the_document_run_reads(spindle_binary, tmp_path):
    write(tmp_path / "www/index.php", "<?php echo 1;")
    caddyfile = write(tmp_path / "Caddyfile", f"""
{{
    frankenphp {{
        num_threads 3
        php_ini memory_limit 200M
    }}
}}
http://app.test:8081 {{
    root * {tmp_path}/www
    php_server
}}
""")
    result = cli(spindle_binary, "adapt", "--config", str(caddyfile))
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["php"] == {"num_threads": 3, "ini": {"memory_limit": "200M"}}
    assert document["sites"] == [{
        "listen": [":8081"],
        "hosts": ["app.test"],
        "root": f"{tmp_path}/www",
        "php": True,
        "file_server": True,
    }]
    # The document itself is a valid JSON configuration.
    as_json = write(tmp_path / "site.json", result.stdout)
    checked = cli(spindle_binary, "validate", "--config", str(as_json))
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout == "valid configuration: 1 site\n"


def test_example_caddyfile_is_valid(spindle_binary):
    result = cli(spindle_binary, "validate", "--config", "Caddyfile.example", cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("valid configuration")


@pytest.mark.parametrize("body, line, message", [
    (":8080 {\n  php_server\n  rewrite * /index.php\n}\n", 3, 'unknown directive "rewrite"'),
    ("{\n  frankenphp {\n    max_wait_time soon\n  }\n}\n:8080 {\n  php_server\n}\n", 3,
     'max_wait_time: invalid duration "soon"'),
    (":8080 {\n  php_server {\n    worker missing.php 2\n  }\n}\n", 3,
     "worker file missing.php does not exist"),
    (":8080 {\n  root * /nonexistent/spindle\n  php_server\n}\n", 1,
     "document root /nonexistent/spindle is not a readable directory"),
    (":8080 {\n  root * .\n  root /media/* /nonexistent/spindle\n  php_server\n}\n", 3,
     "root /nonexistent/spindle for /media/* is not a readable directory"),
    (":8080 {\n  php_server\n}\n:8080 {\n  file_server\n}\n", 4,
     "another site already answers any host on :8080"),
])
def test_validate_names_file_and_line(spindle_binary, tmp_path, body, line, message):
    caddyfile = write(tmp_path / "Caddyfile", body)
    result = cli(spindle_binary, "validate", "--config", str(caddyfile), cwd=tmp_path)
    assert result.returncode == 2, result
    assert result.stdout == ""
    assert result.stderr.startswith(f"spindle: {caddyfile}:{line}: "), result.stderr
    assert message in result.stderr


def test_json_errors_name_the_setting(spindle_binary, tmp_path):
    config = write(tmp_path / "site.json",
                   json.dumps({"sites": [{"listen": [":8080"], "rot": "/srv"}]}))
    result = cli(spindle_binary, "validate", "--config", str(config))
    assert result.returncode == 2
    assert result.stderr == f'spindle: {config}: /sites/0/rot: unknown setting "rot"\n'

    broken = write(tmp_path / "broken.json", '{\n  "sites": [\n    {,}\n  ]\n}\n')
    result = cli(spindle_binary, "validate", "--config", str(broken))
    assert result.returncode == 2
    assert result.stderr.startswith(f"spindle: {broken}:3: "), result.stderr


def test_missing_config_file_is_reported(spindle_binary, tmp_path):
    result = cli(spindle_binary, "run", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == "spindle: Caddyfile: cannot read: No such file or directory\n"


# --- errors stop the start -----------------------------------------------------------------


def test_port_in_use_stops_the_start_with_the_site_line(spindle_binary, tmp_path):
    write(tmp_path / "www/index.php", "<?php echo 1;")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        caddyfile = write(tmp_path / "Caddyfile",
                          f"# taken\n:{port} {{\n  bind 127.0.0.1\n  root * www\n  php_server\n}}\n")
        result = cli(spindle_binary, "run", "--config", str(caddyfile), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert f"{caddyfile}:2: cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "listening on" not in result.stderr


def test_unknown_option_stops_the_start(spindle_binary, tmp_path):
    caddyfile = write(tmp_path / "Caddyfile",
                      ":0 {\n  php_server {\n    workers 4\n  }\n}\n")
    result = cli(spindle_binary, "run", "--config", str(caddyfile), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == f'spindle: {caddyfile}:3: unknown php_server option "workers"\n'


# --- serving -------------------------------------------------------------------------------


def test_sites_are_told_apart_by_host(spindle_run, tmp_path):
    write(tmp_path / "a/index.php", "<?php echo 'site a ', $_SERVER['DOCUMENT_ROOT'];")
    write(tmp_path / "b/index.php", "<?php echo 'site b ', $_SERVER['DOCUMENT_ROOT'];")
    write(tmp_path / "b/style.css", "b{}")
    server = spindle_run(f"""
{{
    frankenphp {{
        num_threads 2
    }}
}}
http://a.test:0 {{
    bind 127.0.0.1
    root * {tmp_path}/a
    php_server
}}
http://b.test:0, *.b.test:0 {{
    bind 127.0.0.1
    root {tmp_path}/b
    php_server
}}
""", warmup=None)
    with server.connect(host_header="a.test") as conn:
        assert conn.request("GET", "/").body == f"site a {tmp_path}/a".encode()
    with server.connect(host_header="B.TEST:1234") as conn:
        assert conn.request("GET", "/").body == f"site b {tmp_path}/b".encode()
        assert conn.request("GET", "/style.css").body == b"b{}"
    with server.connect(host_header="www.b.test") as conn:
        assert conn.request("GET", "/").body.startswith(b"site b")
    with server.connect(host_header="c.test") as conn:
        response = conn.request("GET", "/")
        assert response.status == 404
        assert b"no site is configured for this host" in response.body


def test_env_layers_in_classic_and_worker_scripts(spindle_run, tmp_path):
    write(tmp_path / "www/env.php", ENV_DUMP)
    write(tmp_path / "www/worker.php", WORKER_ENV_DUMP)
    config = {
        "php": {"num_threads": 3,
                "workers": []},
        "env": {"SHADOW": "top", "TOP_ONLY": "top"},
        "sites": [{
            "listen": ["127.0.0.1:0"],
            "root": str(tmp_path / "www"),
            "env": {"SHADOW": "site", "SITE_ONLY": "site"},
            "workers": [{"file": "worker.php", "num": 1,
                         "env": {"SHADOW": "worker", "WORKER_ONLY": "worker"},
                         "match": ["/w/*"]}],
        }],
    }
    server = spindle_run(json.dumps(config), name="spindle.json",
                         env={"SHADOW": "process", "PROC_ONLY": "process"}, warmup=None)
    classic = json_body(server.get("/env.php"))
    assert classic["script"] == "env.php"
    assert classic["env"] == {
        "SHADOW": ["site"] * 3,
        "PROC_ONLY": ["process"] * 3,
        "TOP_ONLY": ["top"] * 3,
        "SITE_ONLY": ["site"] * 3,
        "WORKER_ONLY": [None] * 3,
    }
    for _ in range(2):  # the second request reuses the worker's $_SERVER
        worker = json_body(server.get("/w/anything?x=1"))
        assert worker["script"] == "worker"
        assert worker["uri"] == "/w/anything?x=1"
        # The worker's env is in its $_ENV and getenv(); its requests' $_SERVER has the
        # site's environment, as in FrankenPHP, and getenv() reads the request's $_SERVER
        # first, as under php-fpm (environment.md).
        assert worker["env"] == {
            "SHADOW": ["site", "worker", "site"],
            "PROC_ONLY": ["process"] * 3,
            "TOP_ONLY": ["top"] * 3,
            "SITE_ONLY": ["site"] * 3,
            "WORKER_ONLY": [None, "worker", "worker"],
        }


def test_each_site_has_its_own_env_and_workers(spindle_run, tmp_path):
    for site in ("one", "two"):
        write(tmp_path / site / "env.php", ENV_DUMP)
        write(tmp_path / site / "worker.php", WORKER_ENV_DUMP)
    server = spindle_run(f"""
http://one.test:0 {{
    bind 127.0.0.1
    root * {tmp_path}/one
    php_server {{
        env SITE_ONLY one
        worker {{
            file worker.php
            num 1
            env WORKER_ONLY one-worker
            match /api/*
        }}
    }}
}}
http://two.test:0 {{
    bind 127.0.0.1
    root * {tmp_path}/two
    php_server {{
        env SITE_ONLY two
    }}
}}
""", warmup=None)
    with server.connect(host_header="one.test") as conn:
        classic = json.loads(conn.request("GET", "/env.php").body)
        assert classic["env"]["SITE_ONLY"] == ["one"] * 3
        worker = json.loads(conn.request("GET", "/api/x").body)
        assert worker["script"] == "worker"
        assert worker["env"]["WORKER_ONLY"] == [None, "one-worker", "one-worker"]
        assert worker["env"]["SITE_ONLY"] == ["one"] * 3
    with server.connect(host_header="two.test") as conn:
        classic = json.loads(conn.request("GET", "/env.php").body)
        assert classic["env"]["SITE_ONLY"] == ["two"] * 3
        # No worker here: /api/x falls through to the front controller, which two lacks.
        assert conn.request("GET", "/api/x").status == 404


def test_header_and_respond_rules(spindle_run, tmp_path):
    write(tmp_path / "www/index.php", "<?php header('X-Powered: app'); header('X-Keep: 1');"
                                      " echo 'page';")
    write(tmp_path / "www/a.txt", "text")
    server = spindle_run(f"""
:0 {{
    bind 127.0.0.1
    root * {tmp_path}/www
    php_server
    header X-Frame-Options DENY
    header {{
        +Link "</a.txt>; rel=preload"
        -X-Powered
    }}
    respond /healthz 200
    respond /teapot "short and stout" 418
}}
""", warmup=None)
    page = server.get("/")
    assert page.body == b"page"
    assert page.header("X-Frame-Options") == "DENY"
    assert page.header("Link") == "</a.txt>; rel=preload"
    assert page.header("X-Powered") is None
    assert page.header("X-Keep") == "1"
    static = server.get("/a.txt")
    assert static.body == b"text"
    assert static.header("X-Frame-Options") == "DENY"
    health = server.get("/healthz")
    assert (health.status, health.body) == (200, b"")
    assert health.header("X-Frame-Options") == "DENY"
    teapot = server.get("/teapot")
    assert (teapot.status, teapot.body) == (418, b"short and stout")
    assert server.request("HEAD", "/teapot").body == b""


def test_try_files_and_static_only_sites(spindle_run, tmp_path):
    write(tmp_path / "app/public/app.php", "<?php echo 'app ', $_SERVER['SCRIPT_NAME'], ' ',"
                                           " $_SERVER['REQUEST_URI'];")
    write(tmp_path / "app/public/logo.svg", "<svg/>")
    write(tmp_path / "static/page.html", "<p>hi</p>")
    write(tmp_path / "static/secret.php", "<?php echo 'SECRET-SOURCE';")
    server = spindle_run(f"""
http://app.test:0 {{
    bind 127.0.0.1
    root * {tmp_path}/app/public
    php_server {{
        try_files {{path}} /app.php?{{query}}
    }}
}}
http://static.test:0 {{
    bind 127.0.0.1
    root * {tmp_path}/static
    file_server
}}
""", warmup=None)
    with server.connect(host_header="app.test") as conn:
        assert conn.request("GET", "/logo.svg").body == b"<svg/>"
        assert conn.request("GET", "/some/route?q=1").body == b"app /app.php /some/route?q=1"
    with server.connect(host_header="static.test") as conn:
        assert conn.request("GET", "/page.html").body == b"<p>hi</p>"
        response = conn.request("GET", "/secret.php")
        assert response.status == 403
        assert b"SECRET-SOURCE" not in response.body
        assert conn.request("GET", "/missing").status == 404


def test_php_ini_settings_and_defaults(spindle_run, tmp_path):
    write(tmp_path / "www/ini.php", "<?php echo json_encode(array_map('ini_get', ["
                                    "'memory_limit', 'max_execution_time', 'include_path',"
                                    " 'post_max_size', 'upload_max_filesize', 'display_errors',"
                                    " 'log_errors', 'opcache.enable', 'precision']));")
    write(tmp_path / "conf.d/50-test.ini", "precision = 10\nmemory_limit = 64M\n")
    server = spindle_run(f"""
{{
    frankenphp {{
        php_ini max_execution_time 12
        php_ini {{
            memory_limit 99M
        }}
    }}
}}
:0 {{
    bind 127.0.0.1
    root * {tmp_path}/www
    php_server
}}
""", env={"PHP_INI_SCAN_DIR": str(tmp_path / "conf.d")}, warmup=None)
    values = json_body(server.get("/ini.php"))
    assert values == ["99M", "12", ".:/usr/share/php", "64M", "64M", "0", "1", "1", "10"]


def test_php_ini_values_mean_what_they_mean_in_a_php_ini(spindle_run, tmp_path):
    # FrankenPHP configurations write error_reporting as a constant expression; before, the
    # value reached PHP as a quoted string and error_reporting silently became 0.
    write(tmp_path / "www/ini.php", "<?php echo json_encode([error_reporting(), "
                                    "ini_get('display_errors'), ini_get('date.timezone'), "
                                    "ini_get('session.save_path'), ini_get('error_log'), "
                                    "ini_get('disable_functions'), "
                                    "ini_get('session.cookie_samesite')]);")
    server = spindle_run(f"""
{{
    frankenphp {{
        php_ini {{
            error_reporting "E_ALL & ~E_NOTICE"
            display_errors Off
            date.timezone Europe/Paris
            session.save_path "tcp://127.0.0.1:6379?auth=a=b;c"
            error_log "{tmp_path}/php errors.log"
            disable_functions exec,passthru
            session.cookie_samesite None
        }}
    }}
}}
:0 {{
    bind 127.0.0.1
    root * {tmp_path}/www
    php_server
}}
""", warmup=None)
    assert json_body(server.get("/ini.php")) == [
        32767 & ~8, "", "Europe/Paris", "tcp://127.0.0.1:6379?auth=a=b;c",
        f"{tmp_path}/php errors.log", "exec,passthru", "None"]


def test_json_log_format(spindle_run, tmp_path):
    write(tmp_path / "www/index.php", "<?php echo 'x';")
    server = spindle_run(f"""
{{
    log {{
        format json
    }}
}}
:0 {{
    bind 127.0.0.1
    root * {tmp_path}/www
    php_server
}}
""")
    lines = [line for line in server.log().splitlines() if line.strip()]
    assert lines
    for line in lines:
        record = json.loads(line)
        assert set(record) == {"time", "level", "logger", "msg"}
    assert any(json.loads(line)["msg"].startswith("listening on http://127.0.0.1:")
               for line in lines)


def test_php_server_access_log_flag(spindle):
    logged = spindle("http", "--access-log")
    assert logged.get("/static.txt").status == 200
    assert logged.get("/?q=1").status == 200
    logged.wait_for_log(r'"GET /\?q=1 HTTP/1\.1" 200 ')
    lines = [r.text for r in logged.records() if r.logger == "access"]
    assert any(line.startswith('127.0.0.1 "GET /static.txt HTTP/1.1" 200 ') for line in lines)
    assert any(line.startswith('127.0.0.1 "GET /?q=1 HTTP/1.1" 200 ') for line in lines)

    quiet = spindle("http")
    assert quiet.get("/?q=2").status == 200
    assert [r for r in quiet.records() if r.logger == "access"] == []


def test_access_log_has_one_line_per_php_response(spindle):
    # A complete PHP response leaves from the PHP thread itself, which then writes the line;
    # a streamed one goes through the I/O thread, which writes it. Each request on a
    # keep-alive connection gets exactly one line, with the bytes the client received.
    srv = spindle("http", "--access-log")
    with srv.connect() as conn:
        bodies = [conn.request("GET", f"/?n={n}").body for n in range(5)]
        streamed = conn.request("GET", "/stream_flush.php?ms=10")
        assert streamed.status == 200
        assert conn.request("GET", "/?n=last").status == 200
    srv.wait_for_log(r'"GET /\?n=last HTTP/1\.1" 200 ')
    lines = [r.text for r in srv.records() if r.logger == "access"]
    for n, body in enumerate(bodies):
        mine = [line for line in lines if f'"GET /?n={n} HTTP/1.1"' in line]
        assert len(mine) == 1, lines
        found = re.fullmatch(r'127\.0\.0\.1 "GET /\?n=\d HTTP/1\.1" 200 (\d+) [\d.]+ms \S+ '
                             r'req=\d+ slot=\d+', mine[0])
        assert found, mine[0]
        # The status line and fields, then the body.
        assert len(body) + 40 < int(found.group(1)) < len(body) + 1024, mine[0]
    assert len([line for line in lines if "/stream_flush.php" in line]) == 1, lines
    # The harness's own warm-up request aside.
    assert len([line for line in lines if '"GET / HTTP/1.1"' not in line]) == 7, lines


def test_access_log_is_per_site(spindle_run, tmp_path):
    write(tmp_path / "www/index.php", "<?php http_response_code(201); echo 'made';")
    write(tmp_path / "www/a.txt", "abc")
    server = spindle_run(f"""
http://logged.test:0 {{
    bind 127.0.0.1
    root * {tmp_path}/www
    php_server
    log
}}
http://quiet.test:0 {{
    bind 127.0.0.1
    root * {tmp_path}/www
    php_server
}}
""", warmup=None)
    with server.connect(host_header="logged.test") as conn:
        assert conn.request("GET", "/?x=1").status == 201
        assert conn.request("GET", "/a.txt").body == b"abc"
        assert conn.request("GET", "/missing.txt").status == 201  # the front controller
    with server.connect(host_header="quiet.test") as conn:
        assert conn.request("GET", "/a.txt").status == 200
    server.wait_for_log(r'"GET /missing.txt HTTP/1.1" 201')
    lines = [r.text for r in server.records() if r.logger == "access"]
    assert len(lines) == 3, lines
    assert lines[0].startswith('127.0.0.1 "GET /?x=1 HTTP/1.1" 201 ')
    assert lines[1].startswith('127.0.0.1 "GET /a.txt HTTP/1.1" 200 ')
    assert all("logged.test" in line for line in lines)
    # method, path, status, bytes, duration, site, request id, and the PHP slot that ran it
    # ("-": a static file, answered by the I/O thread).
    php_line = re.fullmatch(r'127\.0\.0\.1 "GET /\?x=1 HTTP/1\.1" 201 (\d+) ([\d.]+)ms '
                            r'logged\.test req=(\d+) slot=(\d+)', lines[0])
    assert php_line and int(php_line.group(1)) > 0, lines[0]
    assert re.search(r" slot=-$", lines[1]), lines[1]


PATH_DUMP = ("<?php echo $_SERVER['SCRIPT_NAME'], ' ', $_SERVER['SCRIPT_FILENAME'], ' ',"
             " $_SERVER['DOCUMENT_ROOT'];")


def test_path_roots_serve_other_directories(spindle_run, tmp_path):
    # Debian's WordPress layout: code in one tree, /wp-content from another whose links lead
    # back into the first (Apache: Alias /wp-content /var/lib/wordpress/wp-content).
    code, data, special = tmp_path / "code", tmp_path / "data", tmp_path / "special"
    write(code / "index.php", PATH_DUMP)
    write(code / "wp-content/themes/t/style.css", "theme{}")
    write(data / "wp-content/uploads/a.txt", "upload")
    write(data / "wp-content/plugin.php", PATH_DUMP)
    write(special / "wp-content/special/b.txt", "special")
    write(tmp_path / "secret/key.txt", "SECRET")
    (data / "wp-content/themes").mkdir()
    (data / "wp-content/themes/t").symlink_to(code / "wp-content/themes/t")
    (data / "wp-content/leak").symlink_to(tmp_path / "secret")
    server = spindle_run(f"""
:0 {{
    bind 127.0.0.1
    root * {code}
    root /wp-content/* {data}
    root /wp-content/special/* {special}
    php_server
}}
""", warmup=None)
    with server.connect() as conn:
        upload = conn.request("GET", "/wp-content/uploads/a.txt")
        assert (upload.status, upload.body) == (200, b"upload")
        assert upload.header("Content-Type") == "text/plain; charset=utf-8"
        # The most specific pattern wins, whatever the order of the lines.
        assert conn.request("GET", "/wp-content/special/b.txt").body == b"special"
        # Scripts under a path root run with it as DOCUMENT_ROOT.
        plugin = conn.request("GET", "/wp-content/plugin.php")
        assert plugin.body == (f"/wp-content/plugin.php {data}/wp-content/plugin.php "
                               f"{data}").encode()
        # Matched on the normalised path, like every pattern.
        assert conn.request("GET", "/x/..%2Fwp-content/uploads/a.txt").body == b"upload"
        # A link may lead into another root of the site, never elsewhere.
        assert conn.request("GET", "/wp-content/themes/t/style.css").body == b"theme{}"
        leak = conn.request("GET", "/wp-content/leak/key.txt")
        assert leak.status == 404 and b"SECRET" not in leak.body
        # What a path root lacks is missing there: the front controller is not in it.
        assert conn.request("GET", "/wp-content/uploads/none.txt").status == 404
        # Other paths stay with the site's root.
        front = conn.request("GET", "/some/page")
        assert front.body == f"/index.php {code}/index.php {code}".encode()
        assert conn.request("GET", "/uploads/a.txt").body.startswith(b"/index.php ")

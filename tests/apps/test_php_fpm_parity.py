"""The same requests to nginx + php-fpm (Debian's packages, nginx set up as Debian's snippets set
up a front controller) and to Spindle, classic and worker: what PHP sees of each request must be
the same. Compared: the CGI variables of $_SERVER, $_GET, $_POST, $_COOKIE, $_REQUEST, $_FILES
(names, types, sizes, errors and contents), php://input read twice, the headers and the status.
The $_SERVER entries that differ by design are listed below with the reason; any other
difference fails. The other way round, a response set up with header(), http_response_code()
and setcookie() must reach the client with the same status, fields and body."""

import json
import os
import pwd
import shutil
import signal
import subprocess
import time

import pytest

from spindle_harness import FIXTURES, free_port
from spindle_http import Conn, chunked

APP = FIXTURES / "parity"

# Both servers start with this environment; Spindle's test harness adds the test runner's own,
# which php-fpm does not have: those entries are left out.
ENVIRONMENT = {"PATH": "/usr/sbin:/usr/bin:/bin", "PARITY": "imported"}
RUNNER_ONLY = (set(os.environ) | {"PYTEST_CURRENT_TEST"}) - set(ENVIRONMENT)


# $_SERVER entries that differ between the two servers, and why.
DIFFERENT_BY_DESIGN = {
    "SERVER_SOFTWARE": "names the server",
    "SERVER_PORT": "each server has its own port (the Host header's, as FrankenPHP takes it)",
    "HTTP_HOST": "carries that port",
    "SERVER_NAME": "nginx sends its server_name, empty here; Spindle the Host's name",
    "REMOTE_PORT": "the client's port of each connection",
    "REQUEST_TIME": "time",
    "REQUEST_TIME_FLOAT": "time",
    "FCGI_ROLE": "FastCGI's own",
    "REDIRECT_STATUS": "nginx's fastcgi.conf sets it for php-cgi's force-redirect check",
    "REMOTE_USER": "nginx's $remote_user; Spindle leaves it to the app, as FrankenPHP does",
    "REMOTE_HOST": "FrankenPHP sets it (the client's address); nginx does not",
    "AUTH_TYPE": "Spindle sets it empty, as FrankenPHP does",
    "REMOTE_IDENT": "Spindle sets it empty, as FrankenPHP does",
    "HTTPS": "nginx leaves it out on plain HTTP; Spindle sets it empty, as FrankenPHP does",
    "SSL_PROTOCOL": "empty on plain HTTP, as FrankenPHP sets it",
    "SSL_CIPHER": "empty on plain HTTP, as FrankenPHP sets it",
    "PATH_TRANSLATED": "nginx sends it only when configured to",
    "FRANKENPHP_WORKER": "Spindle's worker mode",
    # nginx's fastcgi_params sends the request's Content-Length and Content-Type a second
    # time as HTTP_* entries, which CGI/1.1 (RFC 3875 4.1.18) says a server should not.
    "HTTP_CONTENT_LENGTH": "nginx's duplicate of CONTENT_LENGTH",
    "HTTP_CONTENT_TYPE": "nginx's duplicate of CONTENT_TYPE",
}

BOUNDARY = "----parity-boundary-3f9a"


def upload(fields, files):
    """Headers and body of a multipart/form-data request; fields and files are lists of pairs
    and tuples, so that a name may repeat ("tags[]")."""
    body = b""
    for name, value in fields:
        body += (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                 f"{value}\r\n").encode()
    for name, filename, content_type, data in files:
        body += (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"; '
                 f'filename="{filename}"\r\nContent-Type: {content_type}\r\n\r\n').encode()
        body += data + b"\r\n"
    body += f"--{BOUNDARY}--\r\n".encode()
    return {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}, body


# (name, method, target, headers, body)
CASES = [
    ("query", "GET", "/dump.php?a=1&b[]=2&b[]=3&c[x][y]=4&d=%20e+f&g=%C3%A9&h", {}, None),
    ("odd query names", "GET", "/dump.php?a.b=1&c%20d=2&e[=3&f]=4&%00g=5&h=%00i&==x&&j=", {},
     None),
    ("path info", "GET", "/dump.php/extra/p%20ath?x=1", {}, None),
    ("front controller", "GET", "/some/route?page=2", {}, None),
    ("directory index", "GET", "/sub/?q=1", {}, None),
    ("dot segments", "GET", "/sub/../dump.php?y=2", {}, None),
    ("form post", "POST", "/dump.php?from=query",
     {"Content-Type": "application/x-www-form-urlencoded"}, b"a=1&b[]=2&b[]=3&from=body&e=%26"),
    ("form post with charset", "POST", "/dump.php",
     {"Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"}, b"x=%C3%A9&y"),
    ("json body", "POST", "/dump.php", {"Content-Type": "application/json"}, b'{"a": [1, 2]}'),
    ("text body", "PUT", "/dump.php", {"Content-Type": "text/plain"}, b"hello\r\nworld"),
    ("put form", "PUT", "/dump.php", {"Content-Type": "application/x-www-form-urlencoded"},
     b"not=parsed"),
    ("delete", "DELETE", "/dump.php?id=3", {}, None),
    ("chunked body", "POST", "/dump.php",
     {"Content-Type": "application/x-www-form-urlencoded", "Transfer-Encoding": "chunked"},
     chunked([b"a=1&", b"b=2"])),
    ("cookies", "GET", "/dump.php",
     {"Cookie": "a=1; b=two%20words; a=3; arr[x]=4; arr[]=5; empty=; c.d=6"}, None),
    ("basic auth", "GET", "/dump.php", {"Authorization": "Basic dXNlcjpwYXNzOndvcmQ="}, None),
    ("bearer auth", "GET", "/dump.php", {"Authorization": "Bearer abc.def"}, None),
    ("custom headers", "GET", "/dump.php",
     {"X-Custom": "v1", "Accept-Language": "fr, en;q=0.5", "X-Empty": "", "DNT": "1"}, None),
    ("uploads", "POST", "/dump.php", *upload(
        [("title", "two files"), ("tags[]", "a"), ("tags[]", "b")],
        [("one", "a.txt", "text/plain", b"first file\n"),
         ("many[]", "b.bin", "application/octet-stream", bytes(range(256))),
         ("many[]", "c.html", "text/html", b"<p>third</p>"),
         ("nested[x][y]", "d.txt", "text/plain", b"deep"),
         ("empty", "", "application/octet-stream", b"")])),
]



def wait_for(predicate, what, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what} did not come up within {timeout}s")


@pytest.fixture(scope="module")
def fpm_port(tmp_path_factory):
    """nginx + php-fpm on 127.0.0.1, serving APP with Debian's php.ini for FPM."""
    # The system's daemons live in /usr/sbin, which a user's PATH may lack.
    binaries = {name: shutil.which(name, path="/usr/sbin:/usr/bin")
                for name in ("php-fpm8.2", "nginx")}
    for name, path in binaries.items():
        assert path, f"{name} is missing: scripts/install-deps.sh apps installs it"
    tmp = tmp_path_factory.mktemp("fpm")
    sock = tmp / "php-fpm.sock"
    (tmp / "php-fpm.conf").write_text(f"""[global]
error_log = {tmp}/php-fpm.log
daemonize = no
[www]
listen = {sock}
listen.mode = 0666
pm = static
pm.max_children = 2
clear_env = no
""")
    port = free_port()
    for name in ("body", "fastcgi"):
        (tmp / name).mkdir()
    # Workers as the tests' own user, who can reach the temporary directory (as root nginx
    # would switch them to nobody; as another user it ignores the directive).
    user = pwd.getpwuid(os.geteuid()).pw_name
    (tmp / "nginx.conf").write_text(f"""user {user};
worker_processes 1;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log;
events {{}}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    fastcgi_temp_path {tmp}/fastcgi;
    server {{
        listen 127.0.0.1:{port};
        root {APP};
        index index.php;
        location / {{
            try_files $uri $uri/ /index.php$is_args$args;
        }}
        location ~ \\.php(/|$) {{
            fastcgi_split_path_info ^(.+?\\.php)(/.*)$;
            try_files $fastcgi_script_name =404;
            set $path_info $fastcgi_path_info;
            fastcgi_param PATH_INFO $path_info;
            include /etc/nginx/fastcgi.conf;
            fastcgi_pass unix:{sock};
        }}
    }}
}}
""")
    fpm = subprocess.Popen([binaries["php-fpm8.2"], "-R", "-y", str(tmp / "php-fpm.conf")],
                           env=ENVIRONMENT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    nginx = subprocess.Popen([binaries["nginx"], "-c", str(tmp / "nginx.conf"), "-e",
                              str(tmp / "nginx-error.log")],
                             env=ENVIRONMENT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(sock.exists, "php-fpm")

        def answers():
            try:
                with Conn(port) as conn:
                    return conn.request("GET", "/dump.php").status == 200
            except OSError:
                return False

        wait_for(answers, "nginx + php-fpm")
        yield port
    finally:
        for process in (nginx, fpm):
            process.send_signal(signal.SIGQUIT if process is nginx else signal.SIGTERM)
        for process in (nginx, fpm):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def ask(port, method, target, headers, body):
    with Conn(port) as conn:
        response = conn.request(method, target, headers=headers, body=body)
    assert response.status == 200, response
    return response.json()


def comparable(answer):
    server = {k: v for k, v in answer["server"].items()
              if k not in DIFFERENT_BY_DESIGN and k not in RUNNER_ONLY}
    # getallheaders() under FPM rebuilds the headers from the CGI variables: it lists
    # Content-Length and Content-Type empty when the request had none, and nginx's chunked
    # body as a length. Compared by name, without those.
    headers = {k.lower(): v for k, v in answer["headers"].items()
               if k.lower() not in ("host", "content-length", "content-type",
                                    "transfer-encoding")}
    return {**answer, "server": server, "headers": headers}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_php_sees_the_request_as_under_php_fpm(spindle, fpm_port, case):
    _, method, target, headers, body = case
    srv = spindle(APP, env=ENVIRONMENT, warmup="/dump.php")
    expected = comparable(ask(fpm_port, method, target, headers, body))
    got = comparable(ask(srv.port, method, target, headers, body))
    for key in expected:
        assert got[key] == expected[key], (
            f"{key} differs from php-fpm's\nphp-fpm: {json.dumps(expected[key], indent=1)}\n"
            f"spindle: {json.dumps(got[key], indent=1)}")


RESPONSE_CASES = ["location", "created", "status_field", "status_code_only",
                  "redirect_with_status_field", "status_line", "response_code", "authenticate",
                  "headers", "cookies", "no_content", "not_modified", "exit_status", "default"]

# Response fields that name or time the server, or frame the body (nginx streams PHP's output
# chunked, Spindle sends a length for a response it has whole): not the script's.
SERVER_FIELDS = {"date", "server", "connection", "content-length", "transfer-encoding", "vary",
                 "x-powered-by"}


def response_of(port, case):
    with Conn(port) as conn:
        r = conn.request("GET", f"/respond.php?case={case}")
    fields = sorted((name.lower(), value) for name, value in r.headers
                    if name.lower() not in SERVER_FIELDS)
    return r.status, fields, r.body


@pytest.mark.parametrize("case", RESPONSE_CASES)
def test_responses_reach_the_client_as_from_php_fpm(spindle, fpm_port, case):
    srv = spindle(APP, env=ENVIRONMENT, warmup="/dump.php")
    assert response_of(srv.port, case) == response_of(fpm_port, case)

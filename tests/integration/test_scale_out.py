"""Scale-out on an existing load balancer (docs/deploy.md): two Spindle instances behind
HAProxy on 127.0.0.1, one of them restarted while wrk keeps the pair busy. HAProxy checks each
instance's admin /readyz, which turns 503 as soon as SIGTERM starts the drain; with the retry
policy of docs/deploy.md no client request fails."""

import re
import socket
import subprocess
import time

from conftest import FIXTURES
from spindle_harness import free_port

APP = FIXTURES / "worker"



def instance_config(port, admin_port):
    return f"""{{
    admin 127.0.0.1:{admin_port}
}}
http://:{port} {{
    bind 127.0.0.1
    root * {APP}
    php_server {{
        worker {{
            file counter.php
            num 2
        }}
    }}
}}
"""


HAPROXY = """global
    maxconn 512

defaults
    mode http
    timeout connect 1s
    timeout client 10s
    timeout server 10s
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response response-timeout

frontend public
    bind 127.0.0.1:{front}
    default_backend spindle

backend spindle
    balance roundrobin
    option httpchk GET /readyz
    default-server inter 100ms fall 1 rise 2
    server a 127.0.0.1:{a} check port {a_admin}
    server b 127.0.0.1:{b} check port {b_admin}
"""


def wait_http(port, path="/counter.php", timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"nothing answered 200 on port {port} within {timeout}s")
        time.sleep(0.05)


def test_restarting_one_instance_under_load_fails_no_request(spindle_run, tmp_path):
    ports = {name: (free_port(), free_port()) for name in ("a", "b")}
    servers = {name: spindle_run(instance_config(*ports[name]), name=f"{name}.Caddyfile",
                                 warmup="/counter.php") for name in ("a", "b")}
    front = free_port()
    config = tmp_path / "haproxy.cfg"
    config.write_text(HAPROXY.format(front=front, a=ports["a"][0], a_admin=ports["a"][1],
                                     b=ports["b"][0], b_admin=ports["b"][1]))
    haproxy = subprocess.Popen(["haproxy", "-db", "-f", str(config)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
    try:
        wait_http(front)
        wrk = subprocess.Popen(["wrk", "-t", "2", "-c", "16", "-d", "8s",
                                f"http://127.0.0.1:{front}/counter.php"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(2)
        # SIGTERM: a drains (in-flight requests finish, /readyz says 503, new connections are
        # refused) and exits 0; then a new process takes its place on the same ports.
        assert servers["a"].terminate() == 0
        restarted = spindle_run(instance_config(*ports["a"]), name="a2.Caddyfile",
                                warmup="/counter.php")
        output, _ = wrk.communicate(timeout=30)
        assert wrk.returncode == 0, output
    finally:
        haproxy.terminate()
        haproxy_log = haproxy.communicate(timeout=10)[0].decode("utf-8", "replace")
    completed = re.search(r"(\d+) requests in", output)
    assert completed and int(completed.group(1)) > 100, output
    assert "Non-2xx" not in output and "Socket errors" not in output, output
    # Both instances took part after the restart. HAProxy's log cannot show it: the drain and
    # the new start may both fall between two 100 ms checks, so it never sees `a` down. The
    # workers' own counters can: each thread counts the requests it served, and the new
    # instance's two threads served wrk's traffic for about 6 s, not just the warm-up.
    for server in (servers["b"], restarted):
        served = [server.get("/counter.php").json()["count"] for _ in range(4)]
        assert max(served) > 20, (served, haproxy_log)

"""PHP responses that clients take slower than PHP produces them are buffered by Spindle, in
memory and then in a temporary file, so the PHP thread serves on; slow readers under a minimum
rate are closed; Debian's slowhttptest attacks leave the service available (issue 35)."""

import os
import re
import shutil
import subprocess
import threading
import time
import urllib.parse

import pytest

from conftest import FIXTURES
from spindle_http import Conn
from test_worker import rss_kb

RESPONSE = FIXTURES / "response"
MB_LINES = 131072  # large.php: 8-byte lines, 1 MiB


def numbered_lines(count):
    return b"".join(b"%07d\n" % i for i in range(count))


def spill_files(srv, directory):
    """The server's open descriptors on temporary files in `directory` (its TMPDIR)."""
    found = []
    for fd in os.listdir(f"/proc/{srv.pid}/fd"):
        try:
            target = os.readlink(f"/proc/{srv.pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(directory) + "/"):
            found.append(target)
    return found


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} within {timeout}s")
        time.sleep(0.05)


def read_head_bytes(conn, timeout):
    """Waits for the first bytes of a response on a narrow connection; returns them."""
    conn.settimeout(timeout)
    data = conn.sock.recv(4096)
    assert data.startswith(b"HTTP/1.1 200"), data[:200]
    return data


def open_slow_readers(srv, count):
    """`count` clients that each ask for a 1 MiB response and read none of it yet; returns
    them once every response was produced (its head came)."""
    readers = []
    try:
        for _ in range(count):
            conn = Conn(srv.port, timeout=30, narrow=True)
            readers.append(conn)
            conn.send_request("GET", f"/large.php?lines={MB_LINES}")
        for conn in readers:
            read_head_bytes(conn, 30)
    except BaseException:
        for conn in readers:
            conn.close()
        raise
    return readers


def warm_up(srv):
    small = srv.get("/small.php?id=warm")
    assert small.status == 200 and small.body == b"warm\n", small
    assert srv.get(f"/large.php?lines={MB_LINES}", timeout=30).body == numbered_lines(MB_LINES)


def test_slow_readers_do_not_hold_php_threads(spindle, mode, tmp_path):
    # 64 clients that take a 1 MiB response at a few KB/s: each PHP thread hands its output
    # over (memory, then a temporary file) and serves on, so another client's requests to
    # the same scripts keep answering fast and no file is left behind.
    srv = spindle(RESPONSE, env={"TMPDIR": str(tmp_path)})
    warm_up(srv)
    readers = open_slow_readers(srv, 64)
    try:
        assert spill_files(srv, tmp_path), "no response went to a temporary file"
        # The readers go on taking a little, as slow clients do, while another client asks.
        stop = threading.Event()

        def trickle():
            while not stop.is_set():
                for conn in readers:
                    conn.sock.setblocking(False)
                    try:
                        conn.sock.recv(1024)
                    except (BlockingIOError, OSError):
                        pass
                stop.wait(0.1)

        trickler = threading.Thread(target=trickle, daemon=True)
        trickler.start()
        latencies = []
        try:
            with Conn(srv.port, timeout=10) as other:
                for i in range(200):
                    start = time.monotonic()
                    r = other.request("GET", f"/small.php?id=other{i}")
                    latencies.append(time.monotonic() - start)
                    assert r.status == 200 and r.body == f"other{i}\n".encode(), r
        finally:
            stop.set()
            trickler.join(timeout=5)
        latencies.sort()
        p99 = latencies[int(len(latencies) * 0.99) - 1]
        print(f"{mode}: p99 {p99 * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms")
        assert p99 < 0.1, f"p99 {p99 * 1000:.1f} ms behind 64 slow readers"
    finally:
        for conn in readers:
            conn.close()
    # Each file goes with its client.
    wait_until(lambda: not spill_files(srv, tmp_path), 10, "temporary files still open")


@pytest.mark.zend_allocator
def test_slow_readers_responses_wait_on_disk_not_in_memory(spindle, mode, tmp_path):
    # 64 MiB of responses wait for their clients; memory holds 256 KiB of each at most, the
    # rest is in temporary files that go with their clients.
    srv = spindle(RESPONSE, env={"TMPDIR": str(tmp_path)})
    warm_up(srv)
    baseline_kb = rss_kb(srv.pid)
    readers = open_slow_readers(srv, 64)
    try:
        assert spill_files(srv, tmp_path), "no response went to a temporary file"
        peak_kb = rss_kb(srv.pid)
        print(f"{mode}: RSS {baseline_kb} -> {peak_kb} KiB with 64 MiB of responses waiting")
        assert peak_kb - baseline_kb < 40 * 1024, f"RSS grew {peak_kb - baseline_kb} KiB"
    finally:
        for conn in readers:
            conn.close()
    wait_until(lambda: not spill_files(srv, tmp_path), 10, "temporary files still open")


def test_spill_file_goes_when_the_response_ends(spindle, tmp_path):
    # A client reading slowly to the end gets every byte in order (memory and file pieces),
    # and the file is gone once its response is complete, on a connection that stays open.
    srv = spindle(RESPONSE, env={"TMPDIR": str(tmp_path)})
    done = tmp_path / "done.txt"
    lines = 4 * MB_LINES
    with Conn(srv.port, timeout=30, narrow=True) as conn:
        conn.send_request("GET", f"/large.php?lines={lines}&done={urllib.parse.quote(str(done))}")
        conn.buffer = read_head_bytes(conn, 30)
        conn.settimeout(30)
        # The script finished long before its client took the response.
        wait_until(done.exists, 20, "the script did not finish while its client read slowly")
        assert spill_files(srv, tmp_path), "the response never went to a temporary file"
        response = conn.read_response()
        assert response.status == 200, response
        assert response.body == numbered_lines(lines)
        wait_until(lambda: not spill_files(srv, tmp_path), 5, "the temporary file outlived its "
                   "response")
        # The connection goes on.
        again = conn.request("GET", "/small.php?id=next")
        assert again.status == 200 and again.body == b"next\n", again


def test_x_accel_buffering_no_is_not_buffered_nor_sent(spindle, tmp_path):
    # As behind nginx, `X-Accel-Buffering: no` from the script turns buffering off for that
    # response (no temporary file, the script waits for its client) and is not passed on.
    srv = spindle(RESPONSE, env={"TMPDIR": str(tmp_path)})
    lines = 4 * MB_LINES
    with Conn(srv.port, timeout=30, narrow=True) as conn:
        conn.send_request("GET", f"/large.php?unbuffered=1&lines={lines}")
        conn.buffer = read_head_bytes(conn, 30)
        conn.settimeout(30)
        assert not spill_files(srv, tmp_path)
        response = conn.read_response()
        assert response.status == 200, response
        assert not response.has_header("X-Accel-Buffering"), response
        assert response.body == numbered_lines(lines)
    assert not spill_files(srv, tmp_path)


def test_client_below_min_write_rate_is_closed_and_counted(spindle, tmp_path):
    srv = spindle(RESPONSE, "--write-timeout", "2s", "--min-write-rate", "1MiB",
                  "--access-log", "--admin", "127.0.0.1:0", env={"TMPDIR": str(tmp_path)})
    # A client taking 2 KiB every 10 ms (at most 200 KiB/s) makes progress all the time, so
    # no write times out, but it stays below 1 MiB/s: closed after a 2 s window, with a reset
    # that drops what still waited for it in the kernel.
    with Conn(srv.port, timeout=30, narrow=True) as slow:
        slow.send_request("GET", f"/large.php?lines={4 * MB_LINES}")
        read_head_bytes(slow, 30)
        start = time.monotonic()
        closed_after = None
        while time.monotonic() - start < 10:
            try:
                if not slow.sock.recv(2048):
                    break
            except (ConnectionResetError, BrokenPipeError):
                closed_after = time.monotonic() - start
                break
            time.sleep(0.01)
    assert closed_after is not None, "a client below min_write_rate was not reset"
    assert closed_after < 5, f"reset after {closed_after:.1f}s with a 2 s window"
    srv.wait_for_log(r'"GET /large\.php\?lines=\d+ HTTP/1\.1" 200 \d+ .* too slow$')
    metrics = srv.admin("GET", "/metrics").text
    assert re.search(r"^spindle_slow_clients_closed_total 1$", metrics, re.MULTILINE), metrics
    wait_until(lambda: not spill_files(srv, tmp_path), 5, "the slow client's file stayed open")
    # A client that reads as fast as it can is never judged.
    r = srv.get(f"/large.php?lines={MB_LINES}", timeout=30)
    assert r.status == 200 and r.body == numbered_lines(MB_LINES)


def test_script_sees_its_client_leave_mid_stream(spindle, tmp_path):
    srv = spindle(RESPONSE)
    marker = tmp_path / "aborted.txt"
    conn = srv.connect(timeout=10)
    conn.send_request("GET", "/stream_until_abort.php?marker=" + urllib.parse.quote(str(marker)))
    head = conn.read_head()
    assert head.status == 200, head
    assert conn.read_chunk()
    conn.close()
    wait_until(lambda: marker.exists() and marker.read_text(), 10,
               "the script never saw connection_aborted()")
    assert marker.read_text().startswith("aborted after"), marker.read_text()


# --- Debian's slowhttptest --------------------------------------------------------------------

def slowhttptest():
    path = shutil.which("slowhttptest")
    # Installed by scripts/install-deps.sh; a missing tool is a broken set-up, not a pass.
    assert path, "slowhttptest is not installed (Debian package slowhttptest)"
    return path


def attack_while_serving(srv, attack_args, target, seconds):
    """Runs slowhttptest with `attack_args` against `target` for `seconds` while another
    client keeps asking; returns (the other client's latencies, slowhttptest's output)."""
    command = [slowhttptest(), *attack_args, "-l", str(seconds), "-u", srv.url(target)]
    attack = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    latencies = []
    try:
        # Let the attack open its connections first.
        time.sleep(2)
        deadline = time.monotonic() + seconds - 3
        i = 0
        while time.monotonic() < deadline:
            start = time.monotonic()
            r = srv.get(f"/small.php?id=probe{i}", timeout=5)
            latencies.append(time.monotonic() - start)
            assert r.status == 200 and r.body == f"probe{i}\n".encode(), r
            i += 1
            time.sleep(0.05)
    finally:
        try:
            output, _ = attack.communicate(timeout=seconds + 30)
        except subprocess.TimeoutExpired:
            attack.kill()
            output, _ = attack.communicate()
    return latencies, re.sub(r"\x1b\[[0-9;]*m", "", output.decode("utf-8", "replace"))


def most_connected(output):
    """The most connections slowhttptest reported open at once."""
    return max((int(n) for n in re.findall(r"connected:\s*(\d+)", output)), default=0)


@pytest.mark.wall_clock
def test_slowhttptest_slow_read_leaves_the_service_available(spindle, mode, tmp_path):
    # The slow-read attack (-X: tiny windows, 32 bytes every 5 s) on a 1 MiB PHP
    # response, scaled to the test: PHP threads are never all held, so another client stays
    # served throughout.
    srv = spindle(RESPONSE, env={"TMPDIR": str(tmp_path)})
    latencies, output = attack_while_serving(
        srv, ["-X", "-c", "200", "-r", "100", "-w", "10", "-y", "20", "-n", "5", "-z", "32",
              "-k", "3", "-p", "5"],
        f"/large.php?lines={MB_LINES}", 12)
    # Every probe was answered (within its 5 s timeout); while the attack's first requests
    # are produced the queue is long, after that they are quick.
    assert len(latencies) >= 20, output
    latencies.sort()
    assert latencies[len(latencies) // 2] < 0.5, f"median probe {latencies[len(latencies) // 2]:.2f}s"
    assert most_connected(output) >= 100, output


def test_slowhttptest_slowloris_and_slow_post_leave_the_service_available(spindle, mode):
    srv = spindle(RESPONSE)
    for args, target in ((["-H", "-c", "500", "-r", "200", "-i", "5", "-x", "24", "-p", "5"],
                          "/small.php"),
                         (["-B", "-c", "500", "-r", "200", "-i", "5", "-s", "8192", "-x", "10",
                           "-p", "5"], "/body_length.php")):
        latencies, output = attack_while_serving(srv, args, target, 10)
        assert len(latencies) >= 20, output
        latencies.sort()
        assert latencies[len(latencies) // 2] < 0.5, f"{args[0]}: median {latencies[len(latencies) // 2]:.2f}s"
        assert most_connected(output) >= 100, output

"""Thread autoscaling (docs/php.md, "Threads"): FrankenPHP's max_threads and max_idle_time. A
burst of requests that wait on I/O grows the pool from num_threads up to max_threads, the new
threads serve the queued requests, and after max_idle_time of quiet the pool is back at
num_threads with its memory returned; requests that keep the CPUs busy do not grow it past
what helps (the CPU rule of worker/scaling_rule.hpp). Classic and worker mode."""

import re
import threading
import time

import pytest

from spindle_harness import FIXTURES, rss_bytes

APP = FIXTURES / "autoscaling"


def scaling_server(spindle_run, mode, num_threads=4, max_threads=32, worker_num=3,
                   worker_file="wait.php"):
    worker = (f"\t\tworker {{\n\t\t\tfile {APP}/{worker_file}\n\t\t\tnum {worker_num}\n\t\t}}\n"
              if mode == "worker" else "")
    return spindle_run(f"""{{
	admin 127.0.0.1:0
	frankenphp {{
		num_threads {num_threads}
		max_threads {max_threads}
		max_idle_time 1s
{worker}	}}
}}
:0 {{
	bind 127.0.0.1
	root * {APP}
	php_server
}}
""", warmup="/index.php")


def threads_view(srv):
    return srv.admin("GET", "/threads").json()


class Burst:
    """`count` concurrent requests to `path`, one connection each, while a sampler records
    the pool's thread count every 20 ms (and when it first reached `target`)."""

    def __init__(self, srv, path, count, target=None):
        self.srv, self.path, self.target = srv, path, target
        self.statuses = [None] * count
        self.samples = []
        self.reached_after = None
        self._done = threading.Event()
        self._clients = [threading.Thread(target=self._one, args=(i,)) for i in range(count)]
        self._sampler = threading.Thread(target=self._sample)

    def _one(self, i):
        with self.srv.connect(timeout=60) as conn:
            self.statuses[i] = conn.request("GET", self.path).status

    def _sample(self):
        while not self._done.is_set():
            total = threads_view(self.srv)["total"]
            self.samples.append(total)
            if self.target is not None and total >= self.target and self.reached_after is None:
                self.reached_after = time.monotonic() - self.started
            time.sleep(0.02)

    def run(self):
        self.started = time.monotonic()
        self._sampler.start()
        for t in self._clients:
            t.start()
        for t in self._clients:
            t.join()
        self.elapsed = time.monotonic() - self.started
        self._done.set()
        self._sampler.join()
        return self


def wait_threads(srv, count, timeout):
    """Waits until `count` threads are alive and idle, and every ended one was joined."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = threads_view(srv)
        if (view["total"] == count and view["busy"] == 0
                and all(t["state"] != "done" for t in view["threads"])):
            return view
        time.sleep(0.05)
    raise AssertionError(f"threads did not settle at {count}: {threads_view(srv)['total']}\n"
                         + srv.log_tail())


def metric(srv, name):
    text = srv.admin("GET", "/metrics").body.decode()
    m = re.search(rf"^{name} (\S+)$", text, re.MULTILINE)
    assert m, f"no {name} in /metrics"
    return float(m.group(1))


def grow_and_shrink(srv, mode):
    """An I/O-bound burst grows the pool to 32 threads, which end after max_idle_time; returns
    the server's RSS before, at 32 threads and after."""
    view = threads_view(srv)
    assert (view["total"], view["max_threads"]) == (4, 32)
    assert metric(srv, "spindle_max_threads") == 32
    idle_rss = rss_bytes(srv.pid)

    # 128 requests of 200 ms: 6.4 s on 4 threads; the pool grows to 32 and serves them all.
    burst = Burst(srv, "/wait.php", 128, target=32).run()
    assert burst.statuses == [200] * 128
    print(f"{mode}: 128 requests served in {burst.elapsed:.2f} s")
    assert max(burst.samples) == 32, burst.samples
    assert burst.elapsed < 4.0, (burst.elapsed, burst.samples)
    view = threads_view(srv)
    assert view["threads_added"] == 28
    grown_rss = rss_bytes(srv.pid)
    # A worker's group reaches 31: the classic thread is the 32nd.
    srv.wait_for_log(r"added \d+ PHP thread\(s\), 3[12] now \(max 32\)")

    # After max_idle_time (1 s) without a request, the added threads end: 4 again.
    view = wait_threads(srv, 4, timeout=10)
    assert view["threads_removed"] == 28
    assert metric(srv, "frankenphp_total_threads") == 4
    assert metric(srv, "spindle_threads_removed_total") == 28
    srv.wait_for_log(r"PHP thread\(s\) idle for 1000 ms ended, [34] now")
    return idle_rss, grown_rss, rss_bytes(srv.pid)


def test_io_bound_burst_grows_to_max_threads_and_idle_threads_end(spindle_run, mode):
    srv = scaling_server(spindle_run, mode)
    grow_and_shrink(srv, mode)
    # The pool serves on, and grows again under the next burst.
    assert srv.get("/wait.php").body == b"waited"
    again = Burst(srv, "/wait.php", 64).run()
    assert again.statuses == [200] * 64
    assert threads_view(srv)["threads_added"] > 28


@pytest.mark.zend_allocator
def test_ended_threads_give_their_memory_back(spindle_run, mode):
    # RSS measures the allocators: under ASan (USE_ZEND_ALLOC=0, its quarantine) it does not
    # fall, hence the marker.
    srv = scaling_server(spindle_run, mode)
    idle_rss, grown_rss, shrunk_rss = grow_and_shrink(srv, mode)
    print(f"RSS: {idle_rss >> 20} MiB idle, {grown_rss >> 20} MiB at 32 threads, "
          f"{shrunk_rss >> 20} MiB back at 4")
    # At least half of what the 28 threads took is given back (the rest: malloc's own
    # bookkeeping, the connections' buffers).
    assert shrunk_rss < idle_rss + (grown_rss - idle_rss) // 2, (idle_rss, grown_rss, shrunk_rss)


@pytest.mark.wall_clock
def test_io_bound_burst_reaches_max_threads_within_a_second(spindle_run):
    srv = scaling_server(spindle_run, "classic")
    burst = Burst(srv, "/wait.php", 128, target=32).run()
    assert burst.statuses == [200] * 128
    print(f"32 threads after {burst.reached_after:.2f} s")
    assert burst.reached_after is not None and burst.reached_after < 1.0, (
        burst.reached_after, burst.samples)


def test_cpu_bound_burst_does_not_grow_past_the_cpus(spindle_run, mode):
    # Requests that keep a CPU busy for 100 ms: once the threads use the CPUs (80% of them),
    # more threads would only share them. An I/O-bound burst on the same server reaches 32.
    srv = scaling_server(spindle_run, mode, num_threads=2, worker_num=1, worker_file="burn.php")
    burst = Burst(srv, "/burn.php", 48).run()
    assert burst.statuses == [200] * 48
    print(f"CPU-bound burst: at most {max(burst.samples)} threads")
    assert max(burst.samples) <= 8, burst.samples
    wait_threads(srv, 2, timeout=10)


def test_worker_max_threads_caps_its_group(spindle_run):
    srv = spindle_run(f"""{{
	admin 127.0.0.1:0
	frankenphp {{
		num_threads 3
		max_threads 32
		max_idle_time 1s
		worker {{
			file {APP}/wait.php
			num 2
			max_threads 6
		}}
	}}
}}
:0 {{
	bind 127.0.0.1
	root * {APP}
	php_server
}}
""", warmup="/index.php")
    burst = Burst(srv, "/wait.php", 48).run()
    assert burst.statuses == [200] * 48
    workers = [t for t in threads_view(srv)["threads"] if t["worker"] and t["state"] != "done"]
    assert len(workers) == 6
    assert max(burst.samples) == 7  # the worker's 6 and the classic thread
    srv.wait_for_log(r"added \d+ PHP thread\(s\), 6 now \(max 6\)")

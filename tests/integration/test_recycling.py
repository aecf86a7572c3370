"""Recycling PHP threads (docs/worker-mode.md, "Recycling"): `max_memory` gives a thread a
fresh PHP context after the request that leaves its Zend heap above the cap (RoadRunner's
max_worker_memory), in worker mode (the resident script's leaks) and classic mode (the chunks
the memory manager keeps cached after a large request); `max_requests` is tested in
test_frankenphp_compat.py and test_worker.py."""

import re
import time

import pytest

from spindle_harness import FIXTURES, rss_bytes

APP = FIXTURES / "recycling"
MIB = 1024 * 1024
WORKER_RECYCLED = re.compile(
    r"worker \S+ holds (\d+) MiB of PHP memory, over max_memory \(64 MiB\); its PHP thread "
    r"state is recycled")
CLASSIC_RECYCLED = re.compile(
    r"classic thread holds (\d+) MiB of PHP memory, over max_memory \(8 MiB\); its PHP "
    r"thread state is recycled")


def leaking_worker(spindle_run):
    return spindle_run(f"""{{
	frankenphp {{
		num_threads 2
		worker {{
			file {APP}/leak.php
			num 1
			max_memory 64MiB
		}}
	}}
}}
:0 {{
	bind 127.0.0.1
	root * {APP}
	php_server
}}
""", warmup=None)


@pytest.mark.zend_allocator
@pytest.mark.parametrize("requests", [2_000, pytest.param(20_000, marks=pytest.mark.soak)])
def test_a_worker_leaking_1_mib_per_request_is_recycled_with_rss_flat(spindle_run, requests):
    # Without max_memory the script would die at memory_limit (128M) every ~60 requests,
    # failing that request; with it, it gets a fresh context after the request that leaves
    # it above 64 MiB, and no request fails. (Each 1 MiB string takes a 2 MiB chunk of the
    # heap to itself: two do not fit in one, whose first page is the chunk's header.)
    srv = leaking_worker(spindle_run)
    with srv.connect() as conn:
        counts = []
        rss = []
        start = time.monotonic()
        for i in range(requests):
            r = conn.request("GET", "/leak.php")
            assert r.status == 200, (i, r)
            counts.append(int(r.body))
            rss.append(rss_bytes(srv.pid))
        elapsed = time.monotonic() - start
    # RSS rises and falls with each cycle of the script; compare cycle peaks: the highest
    # over requests 200-400 (warmed up) with the highest over the last 200.
    warm_rss = max(rss[200:400])
    end_rss = max(rss[-200:])
    # The script holds at most what fits under the cap, and starts over after it.
    assert max(counts) <= 33, max(counts)
    assert counts[:3] == [1, 2, 3]
    recycles = [int(m.group(1)) for rec in srv.records() if (m := WORKER_RECYCLED.search(rec.text))]
    assert len(recycles) >= requests // 33 - 1, srv.log_tail()
    assert all(64 < held <= 70 for held in recycles), recycles
    # RSS flat: what 1,800 (or 19,800) more leaked MiB would have added stays out.
    growth = end_rss - warm_rss
    print(f"\n{requests} requests in {elapsed:.1f} s ({requests / elapsed:.0f} req/s), "
          f"{len(recycles)} recycles, peak RSS over requests 200-400: {warm_rss / MIB:.1f} MiB, "
          f"over the last 200: {end_rss / MIB:.1f} MiB ({growth / MIB:+.1f} MiB)")
    assert growth < 16 * MIB, (warm_rss, end_rss)


@pytest.mark.zend_allocator
def test_a_classic_thread_holding_a_large_heap_is_recycled(spindle_run):
    # The memory manager caches chunks by a running average of the requests' peaks: after
    # 48 MiB requests a classic thread holds 4, then 16, 18... MiB (up to ~50) between
    # requests, measured here. With max_memory 8MiB the thread starts afresh once it holds
    # more, which takes the cache (and its RSS) with it.
    srv = spindle_run(f"""{{
	frankenphp {{
		num_threads 1
		max_memory 8MiB
	}}
}}
:0 {{
	bind 127.0.0.1
	root * {APP}
	php_server
}}
""", warmup=None)
    # Small requests leave the heap small: no recycling.
    for _ in range(20):
        r = srv.get("/hello.php")
        assert (r.status, r.body) == (200, b"hello"), r
    assert not any(CLASSIC_RECYCLED.search(rec.text) for rec in srv.records()), srv.log_tail()
    rss_start = None
    for i in range(12):
        r = srv.get("/bloat.php")
        assert (r.status, r.body) == (200, b"768"), r
        r = srv.get("/hello.php")
        assert (r.status, r.body) == (200, b"hello"), r
        if i == 1:
            rss_start = rss_bytes(srv.pid)
    held = [int(m.group(1)) for rec in srv.records() if (m := CLASSIC_RECYCLED.search(rec.text))]
    assert len(held) >= 5 and all(h > 8 for h in held), (held, srv.log_tail())
    growth = rss_bytes(srv.pid) - rss_start
    assert growth < 12 * MIB, growth

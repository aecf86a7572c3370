"""Container-aware defaults: with no num_threads set, the PHP threads follow the CPU quota of
the process's cgroup (2 per CPU, the quota rounded up), and start-up warns when the threads
times memory_limit exceed the cgroup's memory limit. SPINDLE_CGROUP_ROOT points the reader at
a fake cgroup v2 tree the test writes (cgroup v1 is covered by the unit tests)."""

import os
import re

import pytest

WORKER = """<?php
while (frankenphp_handle_request(function () { echo 'worker'; })) {
}
"""


def fake_cgroup(root, cpu_max=None, memory_max=None):
    root.mkdir(parents=True, exist_ok=True)
    (root / "cgroup.controllers").write_text("cpu memory\n")
    if cpu_max:
        (root / "cpu.max").write_text(cpu_max + "\n")
    if memory_max:
        (root / "memory.max").write_text(memory_max + "\n")
    return root


def caddyfile(www, mode):
    (www / "index.php").write_text("<?php echo 'classic';")
    (www / "worker.php").write_text(WORKER)
    workers = f"\t\tworker {www}/worker.php 1\n" if mode == "worker" else ""
    return f""":0 {{
\tbind 127.0.0.1
\troot * {www}
\tphp_server {{
{workers}\t}}
}}
"""


def threads_line(server):
    return server.wait_for_log(r"^\d+ PHP threads \(").text


@pytest.fixture
def www(tmp_path):
    path = tmp_path / "www"
    path.mkdir()
    return path


def test_threads_default_from_the_cpu_quota(spindle_run, tmp_path, www, mode):
    cgroup = fake_cgroup(tmp_path / "cgroup", cpu_max="50000 100000")
    server = spindle_run(caddyfile(www, mode), env={"SPINDLE_CGROUP_ROOT": str(cgroup)})
    # Half a CPU counts as one: 2 PHP threads, 1 I/O thread, whatever the machine's cores.
    line = threads_line(server)
    assert re.match(r"2 PHP threads \(\d in workers\), 1 I/O threads, 1 CPUs "
                    r"\(cgroup CPU quota 0\.5\)", line), line
    if mode == "worker":
        assert server.get("/worker.php").body == b"worker"
    assert server.get("/").body == b"classic"


def test_without_a_quota_the_machines_cores_count(spindle_run, tmp_path, www, mode):
    cgroup = fake_cgroup(tmp_path / "cgroup", cpu_max="max 100000")
    server = spindle_run(caddyfile(www, mode), env={"SPINDLE_CGROUP_ROOT": str(cgroup)})
    cores = os.cpu_count()
    line = threads_line(server)
    assert line.startswith(f"{max(2 * cores, 2)} PHP threads "), line
    assert "quota" not in line


def test_warns_when_threads_times_memory_limit_exceed_the_cgroup(spindle_run, tmp_path, www,
                                                                 mode):
    cgroup = fake_cgroup(tmp_path / "cgroup", cpu_max="100000 100000", memory_max=str(200 << 20))
    server = spindle_run(caddyfile(www, mode), env={"SPINDLE_CGROUP_ROOT": str(cgroup)})
    warning = server.wait_for_log(r"exceeds the cgroup's memory limit")
    assert warning.level == "warning"
    assert warning.text.startswith("2 PHP threads x memory_limit 128 MiB = 256 MiB exceeds the "
                                   "cgroup's memory limit of 200 MiB")


def test_no_warning_when_the_threads_fit(spindle_run, tmp_path, www, mode):
    cgroup = fake_cgroup(tmp_path / "cgroup", cpu_max="100000 100000", memory_max=str(1 << 30))
    server = spindle_run(caddyfile(www, mode), env={"SPINDLE_CGROUP_ROOT": str(cgroup)})
    threads_line(server)
    assert "memory limit" not in server.log()

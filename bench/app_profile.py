#!/usr/bin/python3
"""Where a real application's classic request spends its work (issue 34, item 3): one page of
bench/real_apps.py, served by Spindle classic (one PHP thread) and by one php-fpm child, each
measured the same way, one request at a time after a warm-up:

  - instructions per request under valgrind's callgrind (a count that does not move with the
    shared machine's load): the total, the part inside zend_execute_scripts() (the app's own
    PHP code, its includes and their stats), and the rest (request start-up and shutdown,
    superglobals, the SAPI, the server); for Spindle every thread of the process, for php-fpm
    the child (nginx not counted), as bench/instructions.sh counts;
  - system calls per request (strace -c) of the same processes, without valgrind.

  bench/app_profile.py --spindle build/spindle [--page "wp front page"] [--requests 10]
                       [--warmup 10] [--ini KEY=VALUE ...]

--ini sets a php.ini value on both sides (e.g. opcache.validate_timestamps=0), to measure what
an engine setting saves on the real page. Run as root (PHP runs as www-data).
"""

import argparse
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import real_apps  # noqa: E402
from callgrind_summary import summarize  # noqa: E402

# Functions whose inclusive cost splits a request: the script's execution, and PHP's own
# request start-up and shutdown (both servers call these).
SPLIT = ("zend_execute_scripts", "php_request_startup", "php_request_shutdown")


def fetch(url, count):
    for _ in range(count):
        with urllib.request.urlopen(url, timeout=600) as response:
            response.read()
            if response.status != 200:
                raise SystemExit(f"{url}: status {response.status}")


def inclusive(profile, requests):
    """Inclusive instructions per request of the SPLIT functions (callgrind_annotate)."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                           str(profile)], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+\S*?:?(\w+)\s", line)
        if not match:
            match = re.match(r"\s*([\d,]+)\s+\S*?:(\w+)\b", line)
        if match and match.group(2) in SPLIT and match.group(2) not in found:
            found[match.group(2)] = int(match.group(1).replace(",", "")) / requests
    return found


def wait_for(path, what, seconds=600):
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.stat().st_size > 0):
        if time.monotonic() > deadline:
            raise SystemExit(f"no {what} at {path}")
        time.sleep(0.5)
    # callgrind writes the file in pieces: wait until it stops growing.
    size = -1
    while size != path.stat().st_size:
        size = path.stat().st_size
        time.sleep(1)


def strace_counts(pid, url, requests, out, follow):
    """System calls per request of pid (and its threads with follow) over `requests`."""
    proc = subprocess.Popen(["strace", "-c", *(["-f"] if follow else []), "-o", str(out), "-p",
                             str(pid)], stderr=subprocess.DEVNULL)
    time.sleep(1)
    fetch(url, requests)
    time.sleep(0.5)
    proc.send_signal(2)
    proc.wait(timeout=60)
    calls = {}
    for line in out.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 5 and fields[0][0].isdigit() and fields[-1] != "total":
            calls[fields[-1]] = int(fields[3])
    return {name: count / requests for name, count in calls.items()}


class Profile(real_apps.Bench):
    def profile(self, page):
        app, name, path = page[0], page[1], page[2]
        n, warm = self.args.requests, self.args.warmup_requests
        getattr(self, f"setup_{app}")()
        results = {}
        # Spindle classic, one PHP thread, under callgrind.
        env = self.server_env(app, "classic")
        profiles = self.tmp / "spindle-profiles"
        profiles.mkdir()
        self.own(profiles)
        out = profiles / "callgrind.%p"
        server = self.start_spindle(app, "classic", env, threads=1, wrapper=(
            "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"))
        url = f"http://127.0.0.1:{server['port']}{path}"
        self.check(page, "classic", url)
        fetch(url, warm)
        pid = server["php"].pid
        real_apps.log(f"{name}: Spindle under callgrind, {n} requests")
        self.callgrind_control("-z", pid)
        fetch(url, n)
        self.callgrind_control("-d", pid)
        profile = profiles / f"callgrind.{pid}.1"
        wait_for(profile, "Spindle profile")
        results["classic"] = self.counts(profile, n)
        self.stop(server["procs"])

        # One php-fpm child, its profile cut at every php_request_startup() (callgrind_control
        # cannot reach an idle child): part 1 is the child's start-up, part k+1 the k-th
        # request from its start-up to the next one's (the FastCGI exchange and the wait for
        # the next request included). The measured parts are those after the warm-up.
        env = self.server_env(app, "fpm")
        profiles = self.tmp / "fpm-profiles"
        profiles.mkdir()
        self.own(profiles)
        server = self.start_fpm(app, env, children=1, wrapper=(
            "valgrind", "--tool=callgrind", "--trace-children=yes",
            "--dump-before=php_request_startup", f"--callgrind-out-file={profiles}/callgrind.%p"))
        url = f"http://127.0.0.1:{server['port']}{path}"
        real_apps.log(f"{name}: a php-fpm child under callgrind, {n} requests")
        # Requests 1 to warm + 1: the readiness check, the warm-up, the body check; then the
        # n measured ones (parts warm + 3 to warm + n + 2), and one more that ends the last part.
        fetch(url, warm - 1)
        self.check(page, "fpm", url)
        fetch(url, n + 1)
        child = real_apps.children(server["php"].pid)[0]
        parts = [profiles / f"callgrind.{child}.{k}" for k in range(warm + 3, warm + n + 3)]
        for part in parts:
            wait_for(part, "php-fpm profile part")
        results["fpm"] = self.counts(parts, n)
        self.stop(server["procs"])

        # System calls, without valgrind: Spindle's whole process, one php-fpm child.
        real_apps.log(f"{name}: strace -c, {n} requests each")
        server = self.start_spindle(app, "classic", self.server_env(app, "classic"), threads=1)
        url = f"http://127.0.0.1:{server['port']}{path}"
        fetch(url, warm)
        results["classic"]["syscalls"] = strace_counts(
            server["php"].pid, url, n, self.tmp / "strace-spindle", follow=True)
        self.stop(server["procs"])
        (self.tmp / f"fpm-{app}").rename(self.tmp / f"fpm-{app}-callgrind")
        server = self.start_fpm(app, self.server_env(app, "fpm"), children=1)
        url = f"http://127.0.0.1:{server['port']}{path}"
        fetch(url, warm)
        child = real_apps.children(server["php"].pid)[0]
        results["fpm"]["syscalls"] = strace_counts(child, url, n, self.tmp / "strace-fpm",
                                                   follow=False)
        self.stop(server["procs"])
        self.print_report(name, results)

    def callgrind_control(self, action, pid):
        # vgdb finds the process by a pipe named after the user it runs as: run it as that one.
        user = {"user": self.user.pw_uid, "group": self.user.pw_gid} if self.user else {}
        subprocess.run(["callgrind_control", action, str(pid)], capture_output=True, check=True,
                       timeout=120, **user)

    @staticmethod
    def counts(profiles, requests):
        """Per request, over one profile or the parts of one."""
        if not isinstance(profiles, list):
            profiles = [profiles]
        objects, split = {}, {}
        for profile in profiles:
            by_object, _ = summarize(profile)
            for obj, cost in by_object.items():
                key = obj.split("/")[-1]
                objects[key] = objects.get(key, 0) + cost / requests
            for function, cost in inclusive(profile, requests).items():
                split[function] = split.get(function, 0) + cost
        return {"total": sum(objects.values()), "split": split, "objects": objects}

    def print_report(self, name, results):
        ini = ", ".join(self.args.ini) or "bench/real_apps.py's php.ini values"
        print(f"\n{name}: {self.args.requests} requests after {self.args.warmup_requests}, "
              f"one at a time; {ini}\n")
        print("| server | instructions/req | in zend_execute_scripts | outside it | "
              "php_request_startup | php_request_shutdown | syscalls/req |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for server in ("fpm", "classic"):
            r = results[server]
            execute = r["split"].get("zend_execute_scripts", 0)
            outside = r["total"] - execute
            calls = sum(r["syscalls"].values())
            print(f"| {real_apps.SERVER_LABEL[server]} | {r['total']:,.0f} | {execute:,.0f} "
                  f"| {outside:,.0f} ({100 * outside / r['total']:.1f} %) "
                  f"| {r['split'].get('php_request_startup', 0):,.0f} "
                  f"| {r['split'].get('php_request_shutdown', 0):,.0f} | {calls:.0f} |")
        for server in ("fpm", "classic"):
            r = results[server]
            top = sorted(r["syscalls"].items(), key=lambda kv: -kv[1])[:12]
            print(f"\n{real_apps.SERVER_LABEL[server]}, system calls per request: "
                  + ", ".join(f"{k} {v:.1f}" for k, v in top))
            objects = sorted(r["objects"].items(), key=lambda kv: -kv[1])[:6]
            print(f"{real_apps.SERVER_LABEL[server]}, instructions by object: "
                  + ", ".join(f"{k} {v:,.0f}" for k, v in objects))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spindle", required=True)
    parser.add_argument("--page", default="wp front page",
                        help="a page of bench/real_apps.py, by name")
    parser.add_argument("--requests", type=int, default=10)
    parser.add_argument("--warmup-requests", type=int, default=10)
    parser.add_argument("--ini", action="append", default=[], help="KEY=VALUE, both sides")
    parser.add_argument("--out", default=str(real_apps.ROOT / "bench" / "out"))
    args = parser.parse_args()
    args.spindle = str(Path(args.spindle).resolve())
    args.threads = 1
    args.spindle_ini, args.spindle_env = {}, {}
    # Under callgrind a WordPress request takes minutes of wall time: no time limit, both sides.
    real_apps.PHP_INI["max_execution_time"] = "0"
    for setting in args.ini:
        key, _, value = setting.partition("=")
        real_apps.PHP_INI[key] = value
    pages = [p for p in real_apps.PAGES if p[1] == args.page]
    if not pages:
        raise SystemExit(f"no page {args.page!r}; pages: {[p[1] for p in real_apps.PAGES]}")
    profile = Profile(args)
    try:
        if pages[0][0] in ("wordpress", "mediawiki"):
            profile.mariadb = real_apps.MariaDB(profile.tmp / "mariadb").start()
        profile.profile(pages[0])
    finally:
        profile.cleanup()


if __name__ == "__main__":
    main()

"""Runs the shell blocks of the quick start and the guides, so that the docs cannot drift from
the code. Each ```sh block in docs/quick-start.md and docs/guides/*.md is preceded by one
marker comment saying what to do with it:

    <!-- test: run -->                          run it; it must exit 0
    <!-- test: serve URL expect TEXT -->        start it (a server); it must answer URL with a
                                                body holding TEXT; it keeps running while the
                                                next blocks run, until the next serve block or
                                                the end of the file, then gets SIGTERM and must
                                                exit 0
    <!-- test: skip REASON -->                  not run here (needs root, Docker, a real
                                                domain...); the reason is required

A block without a marker fails the test. The blocks of one page run in order, in one fresh
folder, with `spindle` and `php` (a link to it) first on PATH. Ports 8080, 8443 and 2019 in the
page are replaced by free ports, so the runner never takes the ports a reader would use."""

import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "docs/quick-start.md", *sorted((REPO / "docs/guides").glob("*.md"))]
BLOCK = re.compile(r"(?:<!--\s*test:\s*(?P<marker>.*?)\s*-->\s*\n)?```(?P<lang>[a-z]*)\n"
                   r"(?P<body>.*?)^```", re.DOTALL | re.MULTILINE)
PORTS = ("8080", "8443", "2019")
RUN_TIMEOUT = 120
SERVE_TIMEOUT = 30


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return str(sock.getsockname()[1])


def blocks(page):
    """(marker, body, line) of every sh block of the page."""
    text = page.read_text()
    found = []
    for match in BLOCK.finditer(text):
        if match.group("lang") != "sh":
            continue
        line = text.count("\n", 0, match.start("body"))
        found.append((match.group("marker"), match.group("body"), line))
    return found


class Server:
    """A serve block running in its own process group."""

    def __init__(self, body, cwd, env, where):
        self.where = where
        self.log = open(cwd / f".server-{where.replace(':', '-').replace('/', '_')}.log", "w+")
        self.proc = subprocess.Popen(["bash", "-euo", "pipefail", "-c", body], cwd=cwd, env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def output(self):
        self.log.seek(0)
        return self.log.read()

    def wait_for(self, url, expect):
        deadline = time.monotonic() + SERVE_TIMEOUT
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.where}: the server exited with {self.proc.returncode}"
                                     f":\n{self.output()}")
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    body = response.read().decode("utf-8", "replace")
                if expect in body:
                    return
                last = body
            except OSError as e:
                last = repr(e)
            time.sleep(0.1)
        raise AssertionError(f"{self.where}: {url} did not answer with {expect!r} within "
                             f"{SERVE_TIMEOUT}s (last: {last!r}):\n{self.output()}")

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            raise AssertionError(f"{self.where}: the server did not stop on SIGTERM") from None
        finally:
            self.log.close()
        # bash passes SIGTERM on to spindle (exec'd as its last command) or dies of it.
        assert code in (0, -signal.SIGTERM), f"{self.where}: the server exited with {code}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO / "docs")))
def test_page(page, spindle_binary, tmp_path):
    found = blocks(page)
    assert any(m and not m.startswith("skip") for m, _, _ in found), (
        f"{page.name} has no runnable block: mark at least one `<!-- test: run -->`")
    ports = {port: free_port() for port in PORTS}
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir()
    (bin_dir / "spindle").symlink_to(Path(spindle_binary).resolve())
    (bin_dir / "php").symlink_to("spindle")
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PHPRC", "PHP_INI_SCAN_DIR")}
    env.update(PATH=f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}", HOME=str(tmp_path))
    server = None
    try:
        for marker, body, line in found:
            where = f"{page.relative_to(REPO)}:{line}"
            assert marker, f"{where}: an sh block without a <!-- test: ... --> marker"
            for port, replacement in ports.items():
                body = re.sub(rf"(?<!\d){port}(?!\d)", replacement, body)
                marker = re.sub(rf"(?<!\d){port}(?!\d)", replacement, marker)
            kind, _, rest = marker.partition(" ")
            if kind == "skip":
                assert rest.strip(), f"{where}: `test: skip` needs a reason"
            elif kind == "run":
                result = subprocess.run(["bash", "-euo", "pipefail", "-c", body], cwd=work,
                                        env=env, capture_output=True, text=True,
                                        timeout=RUN_TIMEOUT)
                assert result.returncode == 0, (
                    f"{where}: exited with {result.returncode}\n{body}\nstdout:\n{result.stdout}"
                    f"\nstderr:\n{result.stderr}")
            elif kind == "serve":
                m = re.fullmatch(r"(\S+) expect (.+)", rest)
                assert m, f"{where}: write `test: serve URL expect TEXT`"
                if server is not None:
                    server.stop()
                server = Server(body, work, env, where)
                server.wait_for(m.group(1), m.group(2).strip().strip('"'))
            else:
                pytest.fail(f"{where}: unknown marker `test: {marker}`")
    finally:
        if server is not None:
            server.stop()


LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_relative_links_resolve():
    """Every relative link of the docs, the README and CONTRIBUTING.md names a file (and, for
    `file.md#anchor`, a heading) that exists."""
    pages = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        for target in LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            if not resolved.exists():
                broken.append(f"{page.relative_to(REPO)}: {target}")
            elif anchor and resolved.suffix == ".md":
                headings = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
                            for h in re.findall(r"^#+ (.*)$", resolved.read_text(), re.MULTILINE)}
                if anchor not in headings:
                    broken.append(f"{page.relative_to(REPO)}: {target} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)

"""The command line: version, help, and refusing bad flags, roots and addresses with a clear
message and the documented exit codes (2 for usage errors, 1 for start-up failures)."""

import re
import socket
import subprocess

import pytest

from conftest import FIXTURES


def run(binary, *args, timeout=30):
    return subprocess.run([binary, *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=timeout)


def test_version(spindle_binary):
    result = run(spindle_binary, "version")
    assert result.returncode == 0, result
    assert "Spindle" in result.stdout
    assert "PHP 8." in result.stdout
    # The allocator the dynamic linker bound malloc to: jemalloc in a normal build, the
    # sanitizer's runtime in an ASan one.
    assert re.search(r"malloc from lib\w+\.so", result.stdout), result.stdout


@pytest.mark.parametrize("args", [
    ["--help"],
    ["-h"],
    ["help"],
    ["help", "php-server"],
    ["help", "version"],
    ["php-server", "--help"],
    ["php-server", "-h"],
    ["version", "--help"],
    ["help", "--help"],
])
def test_help(spindle_binary, args):
    result = run(spindle_binary, *args)
    assert result.returncode == 0, result
    assert "Usage" in result.stdout, result


def test_php_server_help_lists_flags(spindle_binary):
    out = run(spindle_binary, "php-server", "--help").stdout
    for flag in ("--root", "--listen", "--threads", "--php-ini", "--php-ini-set",
                 "--max-body-size", "--max-header-size", "--read-header-timeout",
                 "--read-body-timeout", "--write-timeout", "--idle-timeout", "--max-wait-time",
                 "--slowlog-timeout",
                 "--index", "--no-file-server"):
        assert flag in out, f"{flag} missing from php-server --help:\n{out}"


@pytest.mark.parametrize("args,named", [
    (["php-server", "--no-such-flag"], "--no-such-flag"),
    (["php-server", "--root", str(FIXTURES / "http"), "--bogus=1"], "--bogus"),
    (["--no-such-flag"], "--no-such-flag"),
    (["no-such-command"], "no-such-command"),
    (["php-server", "--threads", "zero"], "--threads"),
    (["php-server", "--read-header-timeout", "soon"], "--read-header-timeout"),
    (["php-server", "--max-body-size", "big"], "--max-body-size"),
    (["php-server", "--php-ini-set", "novalue"], "--php-ini-set"),
    (["php-server", "--root"], "--root"),
])
def test_usage_errors_exit_2(spindle_binary, args, named):
    result = run(spindle_binary, *args)
    assert result.returncode == 2, result
    assert named in result.stderr, result


# A root that cannot be served is a configuration error, like a bad flag: exit 2.
def test_missing_root_exits_2(spindle_binary, tmp_path):
    missing = tmp_path / "does-not-exist"
    result = run(spindle_binary, "php-server", "--root", str(missing), "--listen",
                 "127.0.0.1:0")
    assert result.returncode == 2, result
    assert str(missing) in result.stderr, result


def test_root_that_is_a_file_exits_2(spindle_binary):
    root = FIXTURES / "http" / "index.php"
    result = run(spindle_binary, "php-server", "--root", str(root), "--listen", "127.0.0.1:0")
    assert result.returncode == 2, result
    assert str(root) in result.stderr, result


def test_port_in_use_fails_naming_the_address(spindle_binary):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        try:
            result = run(spindle_binary, "php-server", "--root", str(FIXTURES / "http"),
                         "--listen", f"127.0.0.1:{port}", "--threads", "1", timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail(f"spindle kept running although 127.0.0.1:{port} is in use")
    assert result.returncode != 0, result
    assert f"127.0.0.1:{port}" in result.stderr, result

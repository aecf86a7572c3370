"""`spindle php-cli` and spindle started as `php`: PHP's command-line interpreter on the embedded
engine, with what scripts rely on from php itself (PHP_SAPI, $argv, STDIN/STDOUT/STDERR, -r,
-d, -c/-n, -l, the exit status), through the real binary."""

import os
import signal
import subprocess
import textwrap

import pytest


def php_cli(binary, *args, stdin=None, cwd=None, env=None, timeout=60):
    return subprocess.run([binary, "php-cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=timeout,
                          stdin=None if stdin is not None else subprocess.DEVNULL)


def write(path, text):
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def test_script_gets_argv_and_runs_as_cli_from_the_callers_directory(spindle_binary, tmp_path):
    (tmp_path / "bin").mkdir()
    write(tmp_path / "bin" / "console", """
        #!/usr/bin/env php
        <?php
        echo json_encode([
            'sapi' => PHP_SAPI, 'argv' => $argv, 'argc' => $argc,
            'server_argv' => $_SERVER['argv'], 'self' => $_SERVER['PHP_SELF'],
            'script' => $_SERVER['SCRIPT_FILENAME'], 'file' => __FILE__, 'cwd' => getcwd(),
            'docroot' => $_SERVER['DOCUMENT_ROOT'], 'time' => is_int($_SERVER['REQUEST_TIME']),
        ]);
        """)
    result = php_cli(spindle_binary, "bin/console", "cache:clear", "-e", "prod", "--", "-h",
                     cwd=tmp_path)
    assert result.returncode == 0, result
    import json
    out = json.loads(result.stdout)  # the shebang line is not output
    assert out["sapi"] == "cli"
    args = ["bin/console", "cache:clear", "-e", "prod", "--", "-h"]
    assert out["argv"] == args and out["server_argv"] == args and out["argc"] == 6
    assert out["self"] == "bin/console" and out["script"] == "bin/console"
    assert out["file"] == str(tmp_path / "bin" / "console")
    assert out["cwd"] == str(tmp_path)
    assert out["docroot"] == "" and out["time"] is True


def test_exit_status_is_the_scripts(spindle_binary, tmp_path):
    exits = write(tmp_path / "exit.php", "<?php echo 'bye'; exit(3);")
    result = php_cli(spindle_binary, str(exits))
    assert (result.returncode, result.stdout) == (3, "bye")

    # exit() in a shutdown function decides, as in php.
    late = write(tmp_path / "late.php", "<?php register_shutdown_function(fn () => exit(7));")
    assert php_cli(spindle_binary, str(late)).returncode == 7

    fatal = write(tmp_path / "fatal.php", "<?php undefined_function();")
    result = php_cli(spindle_binary, "-d", "log_errors=1", str(fatal))
    assert result.returncode == 255
    # Displayed on standard output, and logged on standard error, as php does.
    assert "Fatal error: Uncaught Error: Call to undefined function undefined_function()" \
        in result.stdout
    assert "PHP Fatal error:  Uncaught Error" in result.stderr

    thrown = write(tmp_path / "thrown.php", "<?php throw new RuntimeException('boom');")
    result = php_cli(spindle_binary, str(thrown))
    assert result.returncode == 255 and "boom" in result.stdout


def test_standard_streams_are_defined(spindle_binary, tmp_path):
    script = write(tmp_path / "streams.php", """
        <?php
        $in = stream_get_contents(STDIN);
        echo "1:";
        fwrite(STDOUT, "2:");
        echo "3:" . strtoupper($in);
        fwrite(STDERR, "to stderr");
        var_dump(is_resource(STDERR));
        """)
    result = php_cli(spindle_binary, str(script), stdin="from stdin")
    assert result.returncode == 0, result
    # Unbuffered: echo and fwrite(STDOUT) come out in the order they were written.
    assert result.stdout == "1:2:3:FROM STDIN" + "bool(true)\n"
    assert result.stderr == "to stderr"


def test_run_code_with_arguments(spindle_binary):
    result = php_cli(spindle_binary, "-r", 'echo json_encode([$argv, $_SERVER["PHP_SELF"], '
                     '__FILE__, PHP_SAPI, defined("STDIN")]);', "a", "--", "-b")
    assert result.returncode == 0, result
    assert result.stdout == '[["Standard input code","a","--","-b"],"Standard input code",' \
        '"Command line code","cli",true]'
    # A parse error in the code is a fatal error.
    assert php_cli(spindle_binary, "-r", "echo 1 +;").returncode == 255


def test_script_from_standard_input(spindle_binary):
    result = php_cli(spindle_binary, "--", "x", "y",
                     stdin="<?php echo $argv[0], '|', $argv[1], $argv[2], '|', __FILE__;")
    assert result.returncode == 0, result
    assert result.stdout == "Standard input code|xy|Standard input code"
    assert php_cli(spindle_binary, stdin="<?php echo 6 * 7;").stdout == "42"


def test_defines_override_ini_as_php_parses_them(spindle_binary):
    code = ('echo ini_get("memory_limit"), "|", error_reporting(), "|", '
            'ini_get("display_errors"), "|", ini_get("error_log");')
    result = php_cli(spindle_binary, "-d", "memory_limit=77M", "-derror_reporting=E_ALL & ~E_NOTICE",
                     "--define", "display_errors", "-d", "error_log=/tmp/x y.log", "-r", code)
    assert result.returncode == 0, result
    # A value starting with a letter is an INI expression; one starting with "/" a string.
    assert result.stdout == f"77M|{32767 & ~8}|1|/tmp/x y.log"


def test_php_ini_from_c_and_ignored_with_n(spindle_binary, tmp_path):
    ini = write(tmp_path / "custom.ini", "precision = 5\nshort_open_tag = On\n")
    code = 'echo ini_get("precision");'
    assert php_cli(spindle_binary, "-c", str(ini), "-r", code).stdout == "5"
    assert php_cli(spindle_binary, "-c", str(tmp_path), "-r", code).stdout == "14"  # no php.ini
    (tmp_path / "php.ini").write_text("precision = 6\n")
    assert php_cli(spindle_binary, "-c", str(tmp_path), "-r", code).stdout == "6"
    # -n skips the search (PHPRC here) but not a file named with -c, as in php.
    env = dict(os.environ, PHPRC=str(tmp_path))
    assert php_cli(spindle_binary, "-r", code, env=env).stdout == "6"
    assert php_cli(spindle_binary, "-n", "-r", code, env=env).stdout == "14"
    assert php_cli(spindle_binary, "-n", "-c", str(ini), "-r", code, env=env).stdout == "5"

    listing = php_cli(spindle_binary, "-c", str(ini), "--ini")
    assert listing.returncode == 0, listing
    assert f"Loaded Configuration File:         {ini}" in listing.stdout


def test_lint(spindle_binary, tmp_path):
    good = write(tmp_path / "good.php", "<?php function f(): int { return 1; }")
    result = php_cli(spindle_binary, "-l", str(good))
    assert (result.returncode, result.stdout) == (0, f"No syntax errors detected in {good}\n")

    bad = write(tmp_path / "bad.php", "<?php function f( { }")
    result = php_cli(spindle_binary, "-l", str(bad))
    assert result.returncode == 255
    assert "Parse error" in result.stdout and f"Errors parsing {bad}" in result.stdout

    # Linting does not run the script.
    side_effect = write(tmp_path / "effect.php", f"<?php touch('{tmp_path}/ran');")
    assert php_cli(spindle_binary, "-l", str(side_effect)).returncode == 0
    assert not (tmp_path / "ran").exists()


def test_version_modules_and_info(spindle_binary):
    version = php_cli(spindle_binary, "-v")
    assert version.returncode == 0, version
    assert version.stdout.startswith("PHP 8.") and "(cli)" in version.stdout
    assert "with Zend OPcache" in version.stdout

    modules = php_cli(spindle_binary, "-m").stdout.splitlines()
    assert modules[0] == "[PHP Modules]"
    for name in ("Core", "mbstring", "pdo_mysql", "intl", "sodium"):
        assert name in modules
    assert modules[modules.index("[Zend Modules]") + 1] == "Zend OPcache"

    info = php_cli(spindle_binary, "-i")
    assert info.returncode == 0
    assert "Server API => Command Line Interface (Spindle)" in info.stdout
    assert "Thread Safety => enabled" in info.stdout
    assert "<html" not in info.stdout


def test_opcache_is_off_unless_enabled_for_cli(spindle_binary):
    code = 'var_dump(is_array(opcache_get_status()));'
    assert php_cli(spindle_binary, "-r", code).stdout == "bool(false)\n"
    result = php_cli(spindle_binary, "-d", "opcache.enable_cli=1", "-r", code)
    assert result.stdout == "bool(true)\n", result


def test_environment_and_headers(spindle_binary, tmp_path):
    env = dict(os.environ, SPINDLE_CLI_TEST="yes")
    code = ('header("X-A: b"); http_response_code(404); echo getenv("SPINDLE_CLI_TEST"), '
            '$_SERVER["SPINDLE_CLI_TEST"], "|", ini_get("include_path"), "|", headers_sent() ? 1 : 0;')
    result = php_cli(spindle_binary, "-r", code, env=env)
    assert result.returncode == 0, result
    # No head is written, and header() warns about nothing.
    assert result.stdout == "yesyes|.:/usr/share/php|1" and result.stderr == ""


def test_no_time_limit_unless_the_script_sets_one(spindle_binary):
    # max_execution_time is 0 for the command line, as in php; set_time_limit() still works.
    assert php_cli(spindle_binary, "-r", 'echo ini_get("max_execution_time");').stdout == "0"
    result = php_cli(spindle_binary, "-r", "set_time_limit(1); while (true) {}", timeout=30)
    assert result.returncode == 255
    assert "Maximum execution time of 1 second exceeded" in result.stdout


def test_large_output_arrives_whole(spindle_binary):
    result = php_cli(spindle_binary, "-r", 'echo str_repeat("0123456789", 300000);')
    assert result.returncode == 0 and len(result.stdout) == 3_000_000


def test_a_closed_pipe_ends_the_script(spindle_binary):
    # `spindle php-cli ... | head -c 10`: the reader goes away; the writer must not spin.
    proc = subprocess.Popen([spindle_binary, "php-cli", "-r", 'while (true) echo str_repeat("x", 8192);'],
                            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    assert len(proc.stdout.read(10)) == 10
    proc.stdout.close()
    assert proc.wait(timeout=20) in (-signal.SIGPIPE, 255, 0)


def test_missing_script_and_bad_options(spindle_binary, tmp_path):
    result = php_cli(spindle_binary, "nope.php", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "Could not open input file: nope.php\n")

    result = php_cli(spindle_binary, "-S", "localhost:8000")
    assert result.returncode == 2
    assert "spindle php-cli: php's option -S is not supported" in result.stderr


def test_a_link_named_php_is_php(spindle_binary, tmp_path):
    (tmp_path / "bin").mkdir()
    link = tmp_path / "bin" / "php"
    link.symlink_to(spindle_binary)
    script = write(tmp_path / "child.php", """
        <?php
        // What Composer and Symfony's Process do: run another script with PHP_BINARY.
        if (($argv[1] ?? '') === 'child') { echo 'child of ', PHP_SAPI; exit(4); }
        passthru(escapeshellarg(PHP_BINARY) . ' ' . escapeshellarg(__FILE__) . ' child', $code);
        echo " exited $code";
        """)
    # PHP_BINARY is the link, not the spindle it leads to, whether php was found through PATH
    # or named by a relative path.
    for command, cwd, env in [(["php"], None, dict(os.environ, PATH=f"{link.parent}:/usr/bin:/bin")),
                              (["bin/php"], tmp_path, None)]:
        result = subprocess.run([*command, str(script)], capture_output=True, text=True,
                                timeout=60, stdin=subprocess.DEVNULL, cwd=cwd, env=env)
        assert result.returncode == 0, result
        assert result.stdout == "child of cli exited 4"
    binary = subprocess.run([str(link), "-r", "echo PHP_BINARY;"], capture_output=True,
                            text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert binary.stdout == str(link)

    help_text = subprocess.run([str(link), "-h"], capture_output=True, text=True, timeout=30)
    assert help_text.returncode == 0 and help_text.stdout.startswith("Usage: php [options]")


def test_php_is_a_command_name_too(spindle_binary, tmp_path):
    # `docker run IMAGE php artisan ...` with the image's ENTRYPOINT ["spindle"].
    script = write(tmp_path / "s.php", "<?php echo PHP_SAPI, ' ', implode(',', $argv);")
    result = subprocess.run([spindle_binary, "php", str(script), "a", "-h"], capture_output=True,
                            text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert (result.returncode, result.stdout) == (0, f"cli {script},a,-h")


@pytest.mark.parametrize("args", [["php-cli", "-h"], ["help", "php-cli"]])
def test_help(spindle_binary, args):
    result = subprocess.run([spindle_binary, *args], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0
    assert result.stdout.startswith("Usage: spindle php-cli [options] [-f] <file>")

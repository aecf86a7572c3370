"""Composer, as Debian packages it (/usr/bin/composer, a PHP script), run by Spindle's own PHP
through a link named php, the way the Docker image provides `php`: it generates a project's
autoloader, which `spindle run` then serves in classic and worker mode, and its `@php` scripts
start PHP_BINARY, which must be that link again. See docs/php-cli.md."""

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from app_client import Client

COMPOSER = Path("/usr/bin/composer")

# A missing package fails the run rather than skipping its flows.
if not COMPOSER.is_file():
    raise AssertionError("needs Debian's composer: run scripts/install-deps.sh apps")

COMPOSER_JSON = {
    "name": "spindle/composer-test",
    "type": "project",
    "autoload": {"psr-4": {"App\\": "src/"}},
    "scripts": {
        "where": "@php -r \"echo PHP_SAPI, '|', PHP_BINARY, '|', PHP_VERSION, PHP_EOL;\"",
    },
}


@pytest.fixture(scope="module")
def project(tmp_path_factory, spindle_binary):
    base = tmp_path_factory.mktemp("composer")
    (base / "bin").mkdir()
    (base / "bin" / "php").symlink_to(spindle_binary)
    (base / "src").mkdir()
    (base / "public").mkdir()
    (base / "composer.json").write_text(json.dumps(COMPOSER_JSON, indent=2))
    (base / "src" / "Greeter.php").write_text(textwrap.dedent("""\
        <?php
        namespace App;

        final class Greeter
        {
            public function greet(string $name): string { return "Hello, {$name}"; }
        }
        """))
    (base / "public" / "index.php").write_text(textwrap.dedent("""\
        <?php
        require __DIR__ . '/../vendor/autoload.php';
        echo (new App\\Greeter())->greet($_GET['name'] ?? 'nobody');
        """))
    (base / "public" / "worker.php").write_text(textwrap.dedent("""\
        <?php
        require __DIR__ . '/../vendor/autoload.php';
        $greeter = new App\\Greeter();
        while (frankenphp_handle_request(function () use ($greeter) {
            echo $greeter->greet($_GET['name'] ?? 'nobody'), ' (worker)';
        })) {
        }
        """))
    return base


def composer(project, *args):
    """`php /usr/bin/composer ARGS` with the project's bin/php (spindle) first on PATH."""
    env = dict(os.environ, PATH=f"{project}/bin:{os.environ['PATH']}", HOME=str(project),
               COMPOSER_HOME=str(project / ".composer"), COMPOSER_NO_INTERACTION="1")
    return subprocess.run(["php", str(COMPOSER), *args], capture_output=True, text=True,
                          cwd=project, env=env, timeout=120, stdin=subprocess.DEVNULL)


def spindle_php_version(spindle_binary):
    out = subprocess.run([spindle_binary, "php-cli", "-r", "echo PHP_VERSION;"],
                         capture_output=True, text=True, timeout=30).stdout
    assert out.startswith("8."), out
    return out


def test_composer_runs_on_spindles_php(project, spindle_binary):
    version = composer(project, "--version")
    assert version.returncode == 0, version
    assert version.stdout.startswith("Composer version 2.")

    # The platform Composer resolves against is Spindle's build, not Debian's php8.2.
    platform = composer(project, "show", "--platform", "--format=json")
    assert platform.returncode == 0, platform
    packages = {p["name"]: p["version"] for p in json.loads(platform.stdout)["platform"]}
    assert packages["php"] == spindle_php_version(spindle_binary)
    for extension in ("ext-intl", "ext-pdo_mysql", "ext-mbstring", "ext-sodium"):
        assert extension in packages


def test_at_php_scripts_start_the_same_php_again(project, spindle_binary):
    result = composer(project, "run-script", "where")
    assert result.returncode == 0, result
    assert f"cli|{project}/bin/php|{spindle_php_version(spindle_binary)}" in result.stdout


def test_generated_autoloader_is_served(project, app_server):
    result = composer(project, "dump-autoload", "--optimize")
    assert result.returncode == 0, result
    assert (project / "vendor" / "composer" / "autoload_classmap.php").is_file()

    server = app_server(f"""
:0 {{
    bind 127.0.0.1
    root * {project}/public
    php_server {{
        worker {{
            file {project}/public/worker.php
            num 1
            match /worker*
        }}
    }}
}}
""", project)
    client = Client(server.url())
    classic = client.get("/?name=Ada")
    assert (classic.status, classic.text) == (200, "Hello, Ada")
    worker = client.get("/worker?name=Bob")
    assert (worker.status, worker.text) == (200, "Hello, Bob (worker)")

#!/usr/bin/env bash
# Checks docker/ against the tree, since no Docker engine runs where Spindle is built and tested
# (the image itself is never built here; docs/docker.md):
#   - docker/Dockerfile: its builder stage runs only repository scripts that CI runs too (the
#     call chain from .ci/run) and builds nothing by hand; every COPY source exists and is not
#     dropped by .dockerignore; no tracked file is dropped; both stages use the Debian release
#     build-php.sh fetches PHP from; the runtime stage installs the package of every shared
#     library that the built spindle, libphp.so and the PHP extensions need; the CMD's
#     --config, EXPOSE and HEALTHCHECK agree with docker/Caddyfile; /usr/local/bin/php is a
#     link to spindle;
#   - docker/Caddyfile: validates with the built binary, then is served once (on free ports):
#     the admin /readyz and /healthz, the placeholder page, pdo_mysql, the compose example without a database, and
#     an exit status of 0 on SIGTERM;
#   - docker/k8s: the Deployment's ports, probes (/readyz, /healthz on the admin endpoint),
#     drain timing and user agree with the Caddyfile of its ConfigMap; the Service publishes
#     only the site;
#   - docker/compose.yaml: valid YAML with the db (MariaDB 11) and app services, healthchecks,
#     depends_on service_healthy, the build context and volumes that exist, and every
#     variable the example app reads.
# Needs the build (scripts/setup.sh; BUILD_DIR as for ctest), python3 with yaml, binutils.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "${BUILD_DIR:-build}" <<'PY'
import glob
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

BUILD_DIR = sys.argv[1]
DOCKERFILE = "docker/Dockerfile"
CADDYFILE = "docker/Caddyfile"
COMPOSE = "docker/compose.yaml"
errors = []
notes = []


def fail(message):
    errors.append(message)


def note(message):
    notes.append(message)


# ---------------------------------------------------------------------------------------------
# The Dockerfile, as instructions
# ---------------------------------------------------------------------------------------------
def read_instructions(path):
    """[(line, KEYWORD, text)]: continuations joined, comment lines dropped (as Docker does)."""
    out, pending, start = [], None, 0
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.lstrip().startswith("#"):
                continue
            if pending is None:
                if not line.strip():
                    continue
                pending, start = "", number
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            pending += line
            m = re.match(r"\s*([A-Za-z]+)\s*(.*)$", pending, re.S)
            if m:
                out.append((start, m.group(1).upper(), m.group(2).strip()))
            pending = None
    if pending is not None:
        fail(f"{path}:{start}: a continuation runs off the end of the file")
    return out


def words(text):
    """A JSON-form argument list, or the shell-like words of the text."""
    if text.startswith("["):
        try:
            return [str(w) for w in json.loads(text)]
        except ValueError:
            pass
    return shlex.split(text, comments=False)


class Stage:
    def __init__(self, base, name, line):
        self.base, self.name, self.line = base, name, line
        self.instructions = []

    def runs(self):
        return [(n, t) for n, k, t in self.instructions if k == "RUN"]


def stages_of(instructions):
    stages = []
    for number, keyword, text in instructions:
        if keyword == "FROM":
            w = [x for x in text.split() if not x.startswith("--")]
            name = w[2] if len(w) >= 3 and w[1].lower() == "as" else None
            stages.append(Stage(w[0], name, number))
        elif stages:
            stages[-1].instructions.append((number, keyword, text))
        elif keyword != "ARG":
            fail(f"{DOCKERFILE}:{number}: {keyword} before the first FROM")
    return stages


# ---------------------------------------------------------------------------------------------
# What CI runs: the scripts reachable from .ci/run
# ---------------------------------------------------------------------------------------------
SCRIPT_RE = re.compile(r"(?<![\w/.-])(?:\./)?(scripts/[\w.-]+)")


def script_calls(text):
    calls = []
    for line in text.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line)  # comments
        calls += SCRIPT_RE.findall(line)
    return calls


def ci_chain():
    chain, todo = {}, [(".ci/run", None)]
    while todo:
        path, caller = todo.pop()
        if path in chain:
            continue
        chain[path] = caller
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            continue
        for call in script_calls(text):
            if os.path.isfile(call) and call not in chain:
                todo.append((call, path))
    return chain


def chain_path(chain, script):
    steps = [script]
    while chain.get(steps[-1]):
        steps.append(chain[steps[-1]])
    return " <- ".join(steps)


# ---------------------------------------------------------------------------------------------
# .dockerignore, with Docker's rules: patterns are relative to the context root, "**" spans
# directories, a pattern that matches a directory drops everything in it, "!" re-includes,
# and the last matching pattern wins.
# ---------------------------------------------------------------------------------------------
def ignore_patterns():
    patterns = []
    if not os.path.isfile(".dockerignore"):
        fail(".dockerignore is missing: the build context would carry build/, build-*/ and bench/out")
        return patterns
    with open(".dockerignore") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            line = os.path.normpath(line.lstrip("!").strip()).lstrip("/")
            regex = ""
            i = 0
            while i < len(line):
                if line.startswith("**/", i):
                    regex += "(?:.*/)?"
                    i += 3
                elif line.startswith("**", i):
                    regex += ".*"
                    i += 2
                elif line[i] == "*":
                    regex += "[^/]*"
                    i += 1
                elif line[i] == "?":
                    regex += "[^/]"
                    i += 1
                elif line[i] == "[":
                    j = line.find("]", i)
                    regex += line[i : j + 1] if j > i else re.escape("[")
                    i = j + 1 if j > i else i + 1
                else:
                    regex += re.escape(line[i])
                    i += 1
            patterns.append((negate, re.compile(regex + r"\Z"), line))
    return patterns


def ignored(path, patterns):
    path = os.path.normpath(path).lstrip("/")
    if path in ("", "."):
        return False
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    result = False
    for negate, regex, _ in patterns:
        if any(regex.match(p) for p in prefixes):
            result = not negate
    return result


# ---------------------------------------------------------------------------------------------
# Checks on the Dockerfile
# ---------------------------------------------------------------------------------------------
def check_dockerfile():
    if not os.path.isfile(DOCKERFILE):
        fail(f"{DOCKERFILE} is missing")
        return None
    instructions = read_instructions(DOCKERFILE)
    stages = stages_of(instructions)
    if len(stages) < 2:
        fail(f"{DOCKERFILE}: expected a builder and a runtime stage, found {len(stages)} stage(s)")
        return None
    builder, runtime = stages[0], stages[-1]
    named = {s.name: s for s in stages if s.name}

    # Both stages on the Debian release the scripts are written for.
    with open("scripts/build-php.sh") as f:
        m = re.search(r"Suites: (\w+)", f.read())
    suite = m.group(1) if m else "bookworm"
    if builder.base != f"debian:{suite}":
        fail(f"{DOCKERFILE}:{builder.line}: the builder is FROM {builder.base}; the repository "
             f"scripts (install-deps.sh, build-php.sh) are written for debian:{suite}")
    if runtime.base != f"debian:{suite}-slim":
        fail(f"{DOCKERFILE}:{runtime.line}: the runtime stage is FROM {runtime.base}; it must be "
             f"debian:{suite}-slim, the release the libraries were linked against")

    # Repository scripts: present, executable, and part of what CI runs.
    chain = ci_chain()
    called = set()
    for stage in stages:
        for number, text in stage.runs():
            if "<<" in text:
                fail(f"{DOCKERFILE}:{number}: a heredoc in RUN; this check cannot read it")
            for script in script_calls(text):
                called.add(script)
                if not os.path.isfile(script):
                    fail(f"{DOCKERFILE}:{number}: RUN calls {script}, which does not exist")
                elif not os.access(script, os.X_OK):
                    fail(f"{DOCKERFILE}:{number}: RUN calls {script}, which is not executable")
                elif script not in chain:
                    fail(f"{DOCKERFILE}:{number}: RUN calls {script}, which CI does not run "
                         f"(CI runs: {', '.join(sorted(p for p in chain if p.startswith('scripts/')))})")
    if "scripts/setup.sh" not in called:
        fail(f"{DOCKERFILE}: the builder must build Spindle with scripts/setup.sh, as CI does")
    # No second recipe: compilers, build systems and package lists are the scripts' business.
    recipe = re.compile(r"(?<![\w/.-])(cmake|make|\./configure|configure|buildconf|phpize|gcc|g\+\+|"
                        r"c\+\+|clang\+\+|apt-get\s+(?:-\S+\s+)*(?:install|source|build-dep)|apt\s+install|"
                        r"pecl|docker-php-ext-\w+)(?![\w-])")
    for number, text in builder.runs():
        m = recipe.search(text)
        if m:
            fail(f"{DOCKERFILE}:{number}: the builder runs `{m.group(1)}` itself; build steps and "
                 f"packages belong in the scripts CI runs (scripts/setup.sh and what it calls)")

    # COPY / ADD sources.
    patterns = ignore_patterns()
    for stage in stages:
        for number, keyword, text in stage.instructions:
            if keyword not in ("COPY", "ADD"):
                continue
            args = words(text)
            flags = [a for a in args if a.startswith("--")]
            paths = [a for a in args if not a.startswith("--")]
            if len(paths) < 2:
                fail(f"{DOCKERFILE}:{number}: {keyword} needs a source and a destination")
                continue
            sources = paths[:-1]
            origin = next((f.split("=", 1)[1] for f in flags if f.startswith("--from=")), None)
            if origin is not None:
                if origin not in named or named[origin] is stage:
                    fail(f"{DOCKERFILE}:{number}: COPY --from={origin}: no earlier stage of that name")
                    continue
                made = " ".join(t for n, t in named[origin].runs())
                for src in sources:
                    if src.rstrip("/") not in made:
                        fail(f"{DOCKERFILE}:{number}: COPY --from={origin} {src}: no RUN of that "
                             f"stage mentions {src.rstrip('/')}")
                continue
            for src in sources:
                if re.match(r"[a-z]+://", src):
                    fail(f"{DOCKERFILE}:{number}: {keyword} from a URL ({src}); the image must be "
                         f"built from the checkout")
                    continue
                matches = glob.glob(src) if any(c in src for c in "*?[") else [src]
                matches = [m for m in matches if os.path.exists(m)]
                if not matches:
                    fail(f"{DOCKERFILE}:{number}: {keyword} source {src} does not exist in the repository")
                for m in matches:
                    if ignored(m, patterns):
                        fail(f"{DOCKERFILE}:{number}: {keyword} source {m} is excluded by .dockerignore")

    # The context: big build outputs out, every tracked file in.
    for label, probe in (("build/", "build/spindle"), ("build-*/", "build-release/spindle"),
                         ("bench/out", "bench/out/results.tsv"), (".git", ".git/HEAD")):
        if patterns and not ignored(probe, patterns):
            fail(f".dockerignore does not exclude {label}")
    try:
        tracked = subprocess.run(["git", "ls-files", "-z"], capture_output=True, check=True).stdout
        dropped = [p for p in tracked.decode().split("\0") if p and ignored(p, patterns)]
        if dropped:
            fail(f".dockerignore drops tracked files the build may need: {', '.join(dropped[:10])}")
    except (OSError, subprocess.CalledProcessError):
        note("not a git checkout: tracked files not checked against .dockerignore")

    # `php` in the image is spindle's php-cli under PHP's name (docs/php-cli.md): a link named
    # php next to the binary, so that PHP_BINARY runs PHP again.
    if not any(re.search(r"ln -s spindle /out/usr/local/bin/php(?![\w/.-])", text)
               for _, text in builder.runs()):
        fail(f"{DOCKERFILE}: the builder must link /usr/local/bin/php to spindle "
             "(`ln -s spindle /out/usr/local/bin/php`): the image's PHP command line")

    # Runtime settings.
    def last(keyword):
        found = [(n, t) for n, k, t in runtime.instructions if k == keyword]
        return found[-1] if found else (None, None)

    _, user = last("USER")
    if user is None or user.split(":")[0] in ("root", "0"):
        fail(f"{DOCKERFILE}: the runtime stage must end with a non-root USER (found {user})")
    _, stopsignal = last("STOPSIGNAL")
    if stopsignal not in ("SIGTERM", "15"):
        fail(f"{DOCKERFILE}: STOPSIGNAL must be SIGTERM (Spindle drains on it), found {stopsignal}")
    _, entrypoint = last("ENTRYPOINT")
    _, cmd = last("CMD")
    command = (words(entrypoint) if entrypoint else []) + (words(cmd) if cmd else [])
    config_path = None
    if "--config" in command and command.index("--config") + 1 < len(command):
        config_path = command[command.index("--config") + 1]
    if not command or os.path.basename(command[0]) != "spindle" or "run" not in command or not config_path:
        fail(f"{DOCKERFILE}: ENTRYPOINT + CMD should be `spindle run --config FILE`, found {command}")
    copied = {}
    for number, keyword, text in runtime.instructions:
        if keyword == "COPY" and "--from=" not in text:
            paths = [a for a in words(text) if not a.startswith("--")]
            for src in paths[:-1]:
                dest = paths[-1]
                copied[dest.rstrip("/") + "/" + os.path.basename(src) if dest.endswith("/") else dest] = src
    if config_path and copied.get(config_path) != CADDYFILE:
        fail(f"{DOCKERFILE}: the CMD reads {config_path}, but {CADDYFILE} is not copied there")
    exposed = set()
    for _, keyword, text in runtime.instructions:
        if keyword == "EXPOSE":
            exposed |= {int(w.split("/")[0]) for w in text.split()}
    _, healthcheck = last("HEALTHCHECK")
    health_url = None
    if not healthcheck or healthcheck.upper() == "NONE":
        fail(f"{DOCKERFILE}: the runtime stage has no HEALTHCHECK")
    else:
        m = re.search(r"http://(127\.0\.0\.1|localhost):(\d+)(/[^\s\"']*)", healthcheck)
        if not m:
            fail(f"{DOCKERFILE}: HEALTHCHECK probes no http://127.0.0.1:PORT/PATH URL: {healthcheck}")
        else:
            health_url = (int(m.group(2)), m.group(3))
        probe = words(re.sub(r"^(--\S+\s+)*CMD\s+", "", healthcheck))
        if probe and probe[0] == "curl" and not runtime_installs(runtime).count("curl"):
            fail(f"{DOCKERFILE}: the HEALTHCHECK runs curl, which the runtime stage does not install")
    return {"builder": builder, "runtime": runtime, "exposed": exposed, "health": health_url,
            "copied": copied, "text": instructions}


def runtime_installs(runtime):
    packages = []
    for _, text in runtime.runs():
        for m in re.finditer(r"apt-get\s+install\s+(.*?)(?:&&|;|\|\||$)", text):
            # A $(cat FILE) list is the builder's (check_extension_packages), not a package.
            packages += [w for w in m.group(1).split()
                         if not w.startswith(("-", "$(")) and not w.endswith(")")]
    return packages


# ---------------------------------------------------------------------------------------------
# Shared libraries: every NEEDED library of spindle, libphp.so and the PHP extensions must come
# from a package the runtime stage installs (or from the base image).
# ---------------------------------------------------------------------------------------------
BASE_PACKAGES = {"libc6", "libgcc-s1"}  # in every Debian image, slim included


def owners(paths):
    """{path: package} for the libraries' paths, in one dpkg -S call (merged /usr: dpkg may
    know a file by its /lib or its /usr/lib name, and by its real name or a link's)."""
    # One name may stand for several of the paths (/lib/x/libc.so.6 and /usr/lib/x/libc.so.6,
    # as two objects resolved it): each of them gets the owner.
    candidates = {}
    for path in paths:
        for p in (path, os.path.realpath(path)):
            for q in (p, p[4:] if p.startswith("/usr/") else "/usr" + p):
                candidates.setdefault(q, set()).add(path)
    r = subprocess.run(["dpkg", "-S", *candidates], capture_output=True, text=True)
    found = {}
    for line in r.stdout.splitlines():
        m = re.match(r"([^:,\s]+)(?::[\w-]+)?(?:, [^:]+)*: (/.+)$", line)
        if m and m.group(2) in candidates:
            for path in candidates[m.group(2)]:
                found.setdefault(path, m.group(1))
    return found


def needed(path):
    r = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", r.stdout)


def resolved(path):
    r = subprocess.run(["ldd", path], capture_output=True, text=True)
    found = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\s*(\S+)\s+=>\s+(\S+)", line)
        if m:
            found[m.group(1)] = m.group(2)
    return found


EXTENSION_PACKAGES = "/out-packages/extensions"


def check_extension_packages(dockerfile, prefix, modules):
    """The builder writes the packages of the PECL extensions' libraries with
    `php-ext.sh --runtime-packages`, the runtime stage installs that list, and the list that
    command makes here covers every library the extensions built here need."""
    builder_runs = " ".join(t for _, t in dockerfile["builder"].runs())
    if not re.search(r"scripts/php-ext\.sh --runtime-packages\s*>\s*" + re.escape(EXTENSION_PACKAGES),
                     builder_runs):
        fail(f"{DOCKERFILE}: the builder must write {EXTENSION_PACKAGES} with "
             "`scripts/php-ext.sh --runtime-packages` (the PECL extensions' runtime packages)")
    runtime_runs = " ".join(t for _, t in dockerfile["runtime"].runs())
    if not re.search(r"apt-get\s+install\s[^&;]*\$\(cat /tmp/spindle-packages/extensions\)",
                     runtime_runs):
        fail(f"{DOCKERFILE}: the runtime stage must install $(cat /tmp/spindle-packages/extensions)")
    if not modules:
        return
    r = subprocess.run(["scripts/php-ext.sh", "--runtime-packages"], capture_output=True, text=True,
                       env={**os.environ, "PHP_PREFIX": prefix})
    if r.returncode != 0:
        fail(f"scripts/php-ext.sh --runtime-packages failed: {r.stderr.strip()}")
        return
    listed = set(r.stdout.split())
    uses = []
    for module in modules:
        paths = resolved(module)
        uses += [(module, lib, paths.get(lib)) for lib in needed(module)]
    package_of = owners({path for _, _, path in uses if path})
    for module, lib, path in uses:
        package = package_of.get(path)
        if package and package not in listed | BASE_PACKAGES:
            fail(f"scripts/php-ext.sh --runtime-packages leaves out {package}, which provides "
                 f"{lib} ({os.path.basename(module)})")
    note(f"PECL extensions: {len(modules)} built here, their runtime packages: {', '.join(sorted(listed))}")


def check_libraries(dockerfile, binary):
    by_lib = resolved(binary)
    libphp = by_lib.get("libphp.so")
    if not libphp or not os.path.isfile(libphp):
        fail(f"{binary}: libphp.so does not resolve (ldd); run scripts/setup.sh")
        return
    prefix = os.path.dirname(os.path.dirname(libphp))
    ext_dir = subprocess.run([os.path.join(prefix, "bin/php-config"), "--extension-dir"],
                             capture_output=True, text=True, check=True).stdout.strip()
    # Extensions scripts/php-ext.sh built (PHP_EXTENSIONS in the image; the suite's own here)
    # get their packages from the list the builder writes, checked below; the rest are PHP's.
    pecl = {os.path.basename(r)[:-len(".key")]
            for r in glob.glob(os.path.join(prefix, "etc/php-ext/*.key"))}
    modules = sorted(glob.glob(os.path.join(ext_dir, "*.so")))
    objects = [binary, libphp] + [m for m in modules if os.path.basename(m)[:-3] not in pecl]
    check_extension_packages(dockerfile, prefix, [m for m in modules
                                                  if os.path.basename(m)[:-3] in pecl])
    listed = set(runtime_installs(dockerfile["runtime"]))
    wanted, uses = {}, []
    for obj in objects:
        paths = resolved(obj)
        for lib in needed(obj):
            # Sanitizer runtimes come with an instrumented build (SPINDLE_SANITIZE), not the image's.
            if lib == "libphp.so" or lib.startswith("ld-linux") or re.match(r"lib(a|ub|t|l)san\.so", lib):
                continue
            path = paths.get(lib)
            if path is None or path == "not":
                fail(f"{obj}: {lib} does not resolve here")
                continue
            uses.append((obj, lib, path))
    package_of = owners({path for _, _, path in uses})
    for obj, lib, path in uses:
        package = package_of.get(path)
        if package is None:
            fail(f"{obj}: {lib} ({path}) belongs to no Debian package; the runtime stage cannot install it")
            continue
        wanted.setdefault(package, set()).add(f"{lib} ({os.path.basename(obj)})")
    for package in sorted(set(wanted) - listed - BASE_PACKAGES):
        fail(f"{DOCKERFILE}: the runtime stage does not install {package}, which provides "
             f"{', '.join(sorted(wanted[package]))}")
    extra = sorted(listed - set(wanted) - {"ca-certificates", "curl"})
    if extra:
        note(f"runtime packages no library needs (remove them if nothing else does): {', '.join(extra)}")
    note(f"runtime libraries: {len(wanted)} packages cover {sum(len(v) for v in wanted.values())} "
         f"NEEDED entries of {len(objects)} objects")


# ---------------------------------------------------------------------------------------------
# docker/Caddyfile with the built binary: validate, then serve it once
# ---------------------------------------------------------------------------------------------
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=5):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def check_caddyfile(dockerfile, binary):
    before = len(errors)
    if not os.path.isfile(CADDYFILE):
        fail(f"{CADDYFILE} is missing")
        return
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPINDLE_")}
    adapted = subprocess.run([binary, "adapt", "--config", CADDYFILE], capture_output=True,
                             text=True, env=env)
    if adapted.returncode != 0:
        fail(f"{CADDYFILE} does not adapt: {adapted.stderr.strip()}")
        return
    document = json.loads(adapted.stdout)
    sites = document.get("sites", [])
    ports = {int(l.rsplit(":", 1)[1]) for s in sites for l in s.get("listen", [])}
    if dockerfile:
        # The default root is where the image puts the placeholder page.
        roots = {s.get("root") for s in sites}
        for root in roots:
            if root and not any(dest.startswith(root.rstrip("/") + "/") for dest in dockerfile["copied"]):
                fail(f"{CADDYFILE}: the default root {root} is not where the Dockerfile copies a page")
        for port in sorted(ports - dockerfile["exposed"]):
            fail(f"{DOCKERFILE}: docker/Caddyfile listens on {port}, which is not EXPOSEd")
        if dockerfile["health"]:
            port, path = dockerfile["health"]
            site = [s for s in sites if any(l.endswith(f":{port}") for l in s.get("listen", []))]
            admin = document.get("admin", "127.0.0.1:2019")
            if admin != "off" and admin.endswith(f":{port}"):
                if not admin.startswith(("127.0.0.1:", "localhost:", "[::1]:")):
                    fail(f"{CADDYFILE}: the admin endpoint the HEALTHCHECK probes listens on "
                         f"{admin}; keep it on loopback inside the container")
                if path not in ("/healthz", "/readyz"):
                    fail(f"{DOCKERFILE}: the HEALTHCHECK asks the admin endpoint for {path}, "
                         f"which it does not answer (/healthz, /readyz)")
            elif site:
                if not any(r.get("path") == path and r.get("status", 200) == 200
                           for s in site for r in s.get("respond", [])):
                    fail(f"{CADDYFILE}: the HEALTHCHECK asks for {path} on :{port}, but no "
                         f"`respond {path} 200` answers it there")
            elif f":{port}" not in adapted.stdout:
                fail(f"{DOCKERFILE}: the HEALTHCHECK probes port {port}, which docker/Caddyfile "
                     f"does not configure")

    with tempfile.TemporaryDirectory(prefix="check-docker.") as tmp:
        public = os.path.join(tmp, "public")
        os.mkdir(public)
        with open("docker/public/index.php") as src, open(os.path.join(public, "index.php"), "w") as dst:
            dst.write(src.read())
        if os.path.isfile("docker/example/public/index.php"):
            with open("docker/example/public/index.php") as src, \
                    open(os.path.join(public, "example.php"), "w") as dst:
                dst.write(src.read())
        with open(os.path.join(public, "probe.php"), "w") as f:
            f.write("<?php echo extension_loaded('pdo_mysql') ? 'pdo_mysql' : 'no pdo_mysql';\n")
        env["SPINDLE_ROOT"] = public
        r = subprocess.run([binary, "validate", "--config", CADDYFILE], capture_output=True,
                           text=True, env=env)
        if r.returncode != 0:
            fail(f"{CADDYFILE} does not validate (root {public}): {(r.stderr or r.stdout).strip()}")
            return

        # Serve it: the same file with the site on a free loopback port.
        port = free_port()
        with open(CADDYFILE) as f:
            text = f.read()
        text, count = re.subn(r"(?m)^:8080(\s*\{)", rf":{port}\1\n\tbind 127.0.0.1", text)
        if count != 1:
            fail(f"{CADDYFILE}: no `:8080 {{` site line to serve it on a test port; update this check")
            return
        admin_port = free_port()
        text, count = re.subn(r"(?m)^(\s*admin\s+)127\.0\.0\.1:2019\s*$",
                              rf"\g<1>127.0.0.1:{admin_port}", text)
        if count != 1:
            fail(f"{CADDYFILE}: no `admin 127.0.0.1:2019` line to serve it on a test port; "
                 f"update this check")
            return
        config = os.path.join(tmp, "Caddyfile")
        with open(config, "w") as f:
            f.write(text)
        closed = free_port()  # nothing listens there: the example must report the database down
        env.update({"DB_HOST": "127.0.0.1", "DB_PORT": str(closed), "DB_USER": "app",
                    "DB_PASSWORD": "x", "DB_NAME": "app"})
        log = open(os.path.join(tmp, "log"), "w+")
        server = subprocess.Popen([binary, "run", "--config", config], stdout=log, stderr=log, env=env)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 20
            status = None
            while time.monotonic() < deadline and server.poll() is None:
                try:
                    status, _ = get(f"http://127.0.0.1:{admin_port}/readyz", timeout=1)
                    if status == 200:
                        break
                except OSError:
                    pass
                time.sleep(0.1)
            if status != 200:
                fail(f"{CADDYFILE}: served, the admin /readyz did not answer 200 (got {status}, "
                     f"exit {server.poll()})")
                return
            status, _ = get(f"http://127.0.0.1:{admin_port}/healthz")
            if status != 200:
                fail(f"{CADDYFILE}: served, the admin /healthz (the HEALTHCHECK) gave {status}")
            status, body = get(base + "/")
            if status != 200 or "Spindle is running" not in body:
                fail(f"{CADDYFILE}: / with the image's placeholder page gave {status}: {body[:200]!r}")
            status, body = get(base + "/probe.php")
            if body != "pdo_mysql":
                fail(f"the PHP build lacks pdo_mysql, which docker/example needs ({status}: {body[:200]!r})")
            if os.path.isfile(os.path.join(public, "example.php")):
                status, body = get(base + "/example.php", timeout=15)
                if status != 503 or "unreachable" not in body:
                    fail(f"docker/example/public/index.php without a database: expected 503 "
                         f"'unreachable', got {status}: {body[:200]!r}")
        finally:
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
                try:
                    code = server.wait(timeout=15)
                    if code != 0:
                        fail(f"{CADDYFILE}: spindle exited with {code} on SIGTERM (docker stop)")
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()
                    fail(f"{CADDYFILE}: spindle did not stop within 15 s of SIGTERM")
            if len(errors) > before:
                log.seek(0)
                sys.stderr.write("check-docker: the server's log:\n" + log.read()[-3000:])
            log.close()
    note(f"{CADDYFILE}: validates, served the admin /healthz and /readyz, the placeholder page, pdo_mysql and the "
         f"example's 503 without a database; SIGTERM exit 0")


# ---------------------------------------------------------------------------------------------
# docker/compose.yaml
# ---------------------------------------------------------------------------------------------
def check_compose(dockerfile):
    try:
        import yaml
    except ImportError:
        fail("python3 cannot import yaml: install python3-yaml (scripts/install-deps.sh lists it)")
        return
    if not os.path.isfile(COMPOSE):
        fail(f"{COMPOSE} is missing")
        return
    try:
        with open(COMPOSE) as f:
            doc = yaml.safe_load(f)
    except yaml.YAMLError as e:
        fail(f"{COMPOSE} is not valid YAML: {' '.join(str(e).split())}")
        return
    base = os.path.dirname(COMPOSE)
    services = (doc or {}).get("services") or {}
    for name in ("db", "app"):
        if name not in services:
            fail(f"{COMPOSE}: no `{name}` service (found: {', '.join(services) or 'none'})")
    if errors and not services:
        return
    db, app = services.get("db") or {}, services.get("app") or {}

    def environment(service):
        e = service.get("environment") or {}
        if isinstance(e, list):
            e = dict(item.split("=", 1) if "=" in item else (item, "") for item in e)
        return {k: str(v) for k, v in e.items()}

    if not str(db.get("image", "")).startswith("mariadb:11"):
        fail(f"{COMPOSE}: db should run mariadb:11, found {db.get('image')}")
    for name, service in (("db", db), ("app", app)):
        test = (service.get("healthcheck") or {}).get("test")
        if not test:
            fail(f"{COMPOSE}: {name} has no healthcheck")
        for volume in service.get("volumes") or []:
            source = volume.split(":")[0] if isinstance(volume, str) else volume.get("source", "")
            if source.startswith((".", "/")):
                if not os.path.exists(os.path.normpath(os.path.join(base, source))):
                    fail(f"{COMPOSE}: {name} mounts {source}, which does not exist next to {COMPOSE}")
            elif source and source not in (doc.get("volumes") or {}):
                fail(f"{COMPOSE}: {name} uses the volume {source}, not declared under volumes:")
    # The app's probe is the image's: the admin endpoint's /healthz, which never runs PHP. A probe
    # of the site would run the application (and its database) every few seconds.
    app_test = " ".join(str(w) for w in (app.get("healthcheck") or {}).get("test") or [])
    m = re.search(r"http://(127\.0\.0\.1|localhost):(\d+)(/[^\s\"']*)", app_test)
    if dockerfile and dockerfile.get("health") and (
            not m or (int(m.group(2)), m.group(3)) != dockerfile["health"]):
        port, path = dockerfile["health"]
        fail(f"{COMPOSE}: app's healthcheck should probe http://127.0.0.1:{port}{path} as the "
             f"image's HEALTHCHECK does, found: {app_test or 'none'}")
    build = app.get("build") or {}
    if isinstance(build, str):
        build = {"context": build}
    context = os.path.normpath(os.path.join(base, build.get("context", ".")))
    dockerfile = os.path.normpath(os.path.join(context, build.get("dockerfile", "Dockerfile")))
    if os.path.realpath(context) != os.path.realpath("."):
        fail(f"{COMPOSE}: app's build context is {context}; it must be the top of the tree")
    if os.path.realpath(dockerfile) != os.path.realpath(DOCKERFILE):
        fail(f"{COMPOSE}: app builds from {dockerfile}, not {DOCKERFILE}")
    depends = app.get("depends_on") or {}
    if not isinstance(depends, dict) or (depends.get("db") or {}).get("condition") != "service_healthy":
        fail(f"{COMPOSE}: app must depend on db with condition: service_healthy")
    app_env, db_env = environment(app), environment(db)
    if app_env.get("DB_HOST") != "db":
        fail(f"{COMPOSE}: app's DB_HOST should be the db service, found {app_env.get('DB_HOST')}")
    for ours, theirs in (("DB_NAME", "MARIADB_DATABASE"), ("DB_USER", "MARIADB_USER"),
                         ("DB_PASSWORD", "MARIADB_PASSWORD")):
        if app_env.get(ours) != db_env.get(theirs):
            fail(f"{COMPOSE}: app's {ours} ({app_env.get(ours)}) differs from db's {theirs} "
                 f"({db_env.get(theirs)})")
    example = "docker/example/public/index.php"
    if os.path.isfile(example):
        with open(example) as f:
            for var in sorted(set(re.findall(r"getenv\('(\w+)'\)", f.read()))):
                if var not in app_env:
                    fail(f"{COMPOSE}: {example} reads {var}, which the app service does not set")
    mounts = [v for v in app.get("volumes") or [] if isinstance(v, str) and v.split(":")[1:2] == ["/app"]]
    for mount in mounts:
        if not os.path.isfile(os.path.join(base, mount.split(":")[0], "public/index.php")):
            fail(f"{COMPOSE}: the app mounted at /app has no public/index.php (the image's root is /app/public)")
    note(f"{COMPOSE}: services {', '.join(services)}; healthchecks, depends_on, build and volumes agree")


def duration_seconds(text):
    m = re.fullmatch(r"(\d+)(ms|s|m)", text or "")
    return int(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60}[m.group(2)] if m else None


def check_kubernetes(binary):
    """docker/k8s: the manifests parse, and the Deployment agrees with the Caddyfile of its
    ConfigMap (adapted with the built binary): the ports, the probes on the admin endpoint's
    /readyz and /healthz, a drain (preStop + grace_period) inside terminationGracePeriodSeconds,
    a numeric non-root user, resource requests, and a Service that publishes only the site."""
    import yaml
    docs = {}
    for path in sorted(glob.glob("docker/k8s/*.yaml")):
        with open(path) as f:
            for doc in yaml.safe_load_all(f):
                if doc:
                    docs.setdefault(doc.get("kind"), []).append((path, doc))
    for kind in ("ConfigMap", "Deployment", "Service"):
        if len(docs.get(kind, [])) != 1:
            fail(f"docker/k8s: expected one {kind}, found {len(docs.get(kind, []))}")
            return
    (cm_path, cm), = docs["ConfigMap"]
    (dep_path, dep), = docs["Deployment"]
    (svc_path, svc), = docs["Service"]
    with tempfile.TemporaryDirectory(prefix="check-k8s.") as tmp:
        caddyfile = os.path.join(tmp, "Caddyfile")
        with open(caddyfile, "w") as f:
            f.write(cm["data"]["Caddyfile"])
        r = subprocess.run([binary, "adapt", "--config", caddyfile], capture_output=True,
                           text=True)
    if r.returncode != 0:
        fail(f"{cm_path}: its Caddyfile does not adapt: {r.stderr.strip()}")
        return
    config = json.loads(r.stdout)
    admin = config.get("admin", "127.0.0.1:2019")
    if admin == "off" or admin.split(":")[0] not in ("", "0.0.0.0", "[::]"):
        fail(f"{cm_path}: the admin endpoint ({admin}) must listen on the pod IP for the probes")
        return
    admin_port = int(admin.rsplit(":", 1)[1])
    site_ports = {int(l.rsplit(":", 1)[1]) for s in config.get("sites", [])
                  for l in s.get("listen", [])}
    pod = dep["spec"]["template"]["spec"]
    container = pod["containers"][0]
    ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
    if ports.get("admin") != admin_port:
        fail(f"{dep_path}: containerPort admin is {ports.get('admin')}, the Caddyfile's admin "
             f"endpoint {admin_port}")
    if ports.get("http") not in site_ports:
        fail(f"{dep_path}: containerPort http {ports.get('http')} is none of the Caddyfile's "
             f"site ports {sorted(site_ports)}")
    expected = {"readinessProbe": "/readyz", "livenessProbe": "/healthz", "startupProbe": "/readyz"}
    for probe, path in expected.items():
        get_ = (container.get(probe) or {}).get("httpGet") or {}
        if get_.get("path") != path or get_.get("port") not in ("admin", admin_port):
            fail(f"{dep_path}: {probe} must GET {path} on the admin port, not {get_}")
    pre_stop = ((container.get("lifecycle") or {}).get("preStop") or {}).get("exec", {})
    command = pre_stop.get("command") or []
    sleep = int(command[1]) if command[:1] == ["sleep"] and len(command) == 2 else 0
    if sleep <= 0:
        fail(f"{dep_path}: no preStop sleep: the pod would stop before leaving the endpoints")
    grace = duration_seconds(config.get("grace_period", "30s")) or 30
    total = pod.get("terminationGracePeriodSeconds", 30)
    if sleep + grace >= total:
        fail(f"{dep_path}: terminationGracePeriodSeconds {total} does not cover preStop {sleep}s "
             f"+ grace_period {grace}s")
    security = pod.get("securityContext") or {}
    if not security.get("runAsNonRoot") or not isinstance(security.get("runAsUser"), int):
        fail(f"{dep_path}: runAsNonRoot with a numeric runAsUser (the image's spindle user)")
    if not (container.get("resources") or {}).get("requests"):
        fail(f"{dep_path}: no resource requests")
    mounts = {m["mountPath"] for m in container.get("volumeMounts", [])}
    if "/etc/spindle/Caddyfile" not in mounts:
        fail(f"{dep_path}: the ConfigMap's Caddyfile is not mounted at /etc/spindle/Caddyfile")
    targets = {p.get("targetPort") for p in svc["spec"].get("ports", [])}
    if "admin" in targets or admin_port in targets:
        fail(f"{svc_path}: the Service publishes the admin port")
    if not targets & {"http", ports.get("http")}:
        fail(f"{svc_path}: the Service does not reach the http port")
    note("docker/k8s: the Deployment's ports, probes, drain and user agree with its Caddyfile")


# ---------------------------------------------------------------------------------------------
binary = os.path.join(BUILD_DIR, "spindle")
dockerfile = check_dockerfile()
if not os.access(binary, os.X_OK):
    fail(f"{binary} is missing: run scripts/setup.sh first (BUILD_DIR={BUILD_DIR})")
else:
    if dockerfile:
        check_libraries(dockerfile, binary)
    check_caddyfile(dockerfile, binary)
    check_kubernetes(binary)
check_compose(dockerfile)

for line in notes:
    print(f"check-docker: {line}", file=sys.stderr)
if errors:
    for line in errors:
        print(f"check-docker: FAIL: {line}", file=sys.stderr)
    print(f"check-docker: {len(errors)} problem(s) in docker/ (the image is not built here; "
          f"these checks stand in for it, docs/docker.md)", file=sys.stderr)
    sys.exit(1)
print("check-docker: docker/Dockerfile, docker/Caddyfile, docker/compose.yaml and docker/k8s "
      "agree with the tree (the image itself is not built here)", file=sys.stderr)
PY

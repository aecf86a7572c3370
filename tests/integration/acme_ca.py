"""A real ACME CA for the tests: Debian's `pebble` (the ACME test server) on 127.0.0.1 with
`pebble-challtestsrv` as its DNS server, answering A 127.0.0.1 for every name, so that pebble
validates HTTP-01 and TLS-ALPN-01 challenges against the Spindle under test. Missing binaries
fail the test (scripts/install-deps.sh installs the `pebble` package)."""

import json
import shutil
import ssl
import subprocess
import time
import urllib.request
from pathlib import Path

from spindle_harness import free_port


def _openssl(*args, cwd):
    result = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr


def _binary(name):
    path = shutil.which(name)
    assert path, f"{name} is not installed: apt-get install pebble (scripts/install-deps.sh)"
    return path


class AcmeCA:
    """pebble + challtestsrv. `directory` is the ACME directory URL, `tls_root` the CA file
    Spindle's acme_ca_root must trust (pebble's own HTTPS), `issuing_root()` the root that
    signs the certificates pebble issues (what clients trust)."""

    def __init__(self, work, http_port, https_port, validity=None, port=None):
        self.work = Path(work)
        self.work.mkdir(parents=True, exist_ok=True)
        self.http_port = http_port
        self.https_port = https_port
        self.validity = validity
        self.port = port or free_port()
        self.management_port = free_port()
        self.dns_port = free_port()
        self.procs = []
        self.tls_root = self.work / "pebble-ca.crt"
        if not self.tls_root.exists():
            _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                     "-nodes", "-keyout", "pebble-ca.key", "-out", "pebble-ca.crt", "-days", "2",
                     "-subj", "/CN=pebble test TLS CA",
                     "-addext", "basicConstraints=critical,CA:TRUE", cwd=self.work)
            _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                     "-nodes", "-keyout", "pebble.key", "-out", "pebble.crt", "-days", "2",
                     "-subj", "/CN=127.0.0.1",
                     "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                     "-addext", "basicConstraints=critical,CA:FALSE",
                     "-CA", "pebble-ca.crt", "-CAkey", "pebble-ca.key", cwd=self.work)

    @property
    def directory(self):
        return f"https://127.0.0.1:{self.port}/dir"

    def start(self):
        pebble, challtestsrv = _binary("pebble"), _binary("pebble-challtestsrv")
        config = {"pebble": {
            "listenAddress": f"127.0.0.1:{self.port}",
            "managementListenAddress": f"127.0.0.1:{self.management_port}",
            "certificate": str(self.work / "pebble.crt"),
            "privateKey": str(self.work / "pebble.key"),
            "httpPort": self.http_port,
            "tlsPort": self.https_port,
            "ocspResponderURL": "",
            "externalAccountBindingRequired": False,
        }}
        if self.validity is not None:
            config["pebble"]["certificateValidityPeriod"] = self.validity
        (self.work / "pebble.json").write_text(json.dumps(config))
        dns = subprocess.Popen(
            [challtestsrv, "-dns01", f"127.0.0.1:{self.dns_port}", "-http01", "", "-https01", "",
             "-tlsalpn01", "", "-management", f"127.0.0.1:{free_port()}",
             "-defaultIPv4", "127.0.0.1", "-defaultIPv6", ""],
            stdout=subprocess.DEVNULL, stderr=open(self.work / "challtestsrv.log", "ab"))
        self.procs.append(dns)
        env = {"PEBBLE_VA_NOSLEEP": "1", "PEBBLE_VA_ALWAYS_VALID": "0",
               # 10 % of nonces refused: every run exercises the client's badNonce retry.
               "PEBBLE_WFE_NONCEREJECT": "10", "PATH": "/usr/bin:/bin"}
        self.log_file = self.work / "pebble.log"
        proc = subprocess.Popen(
            [pebble, "-config", str(self.work / "pebble.json"), "-dnsserver",
             f"127.0.0.1:{self.dns_port}"],
            env=env, stdout=open(self.log_file, "ab"), stderr=subprocess.STDOUT)
        self.procs.append(proc)
        deadline = time.monotonic() + 15
        while True:
            try:
                self._get(self.directory)
                return self
            except OSError:
                assert proc.poll() is None, self.log_file.read_text()
                assert time.monotonic() < deadline, "pebble did not answer within 15 s"
                time.sleep(0.1)

    def stop(self):
        for proc in reversed(self.procs):
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs = []

    def _get(self, url):
        context = ssl.create_default_context(cafile=str(self.tls_root))
        with urllib.request.urlopen(url, context=context, timeout=5) as response:
            return response.read()

    def issuing_root(self):
        """The root of the chains pebble issues (a new one each pebble run), as a file."""
        path = self.work / f"issuing-root-{self.management_port}.pem"
        path.write_bytes(self._get(f"https://127.0.0.1:{self.management_port}/roots/0"))
        return path

    def log(self):
        return self.log_file.read_text() if self.log_file.exists() else ""

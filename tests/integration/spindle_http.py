"""A small raw-socket HTTP/1.x client for the integration tests.

The tests need what ordinary client libraries hide or refuse: pipelining, interim (1xx)
responses, half-sent header blocks, malformed request targets, and exact framing (chunked or
Content-Length). Everything here talks to 127.0.0.1 only, and every socket operation is
bounded by a timeout.
"""

import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

DEFAULT_TIMEOUT = 10.0


class Response:
    """One parsed HTTP response; interim holds the 1xx responses that came before it."""

    def __init__(self, version, status, reason, headers):
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers  # list of (name, value), in order
        self.body = b""
        self.chunked = False
        self.interim = []

    def header(self, name, default=None):
        """The first value of a header (case-insensitive), or default."""
        lowered = name.lower()
        for key, value in self.headers:
            if key.lower() == lowered:
                return value
        return default

    def header_all(self, name):
        lowered = name.lower()
        return [value for key, value in self.headers if key.lower() == lowered]

    def has_header(self, name):
        return self.header(name) is not None

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")

    def json(self):
        import json

        return json.loads(self.body)

    def __repr__(self):
        preview = self.body[:300]
        return (
            f"<Response {self.status} {self.reason!r} headers={self.headers!r} "
            f"body[{len(self.body)}]={preview!r}>"
        )


class ConnectionClosed(Exception):
    """The server closed the connection before a complete response arrived."""


def build_request(method, target, headers=None, body=None, version="1.1", host=None):
    """Bytes of one request. `headers` is a dict or a list of pairs, sent as given; Host is
    added for HTTP/1.1 unless host is False or a Host header is present; Content-Length is
    added for a body unless a Content-Length or Transfer-Encoding header is present."""
    if isinstance(headers, dict):
        pairs = list(headers.items())
    else:
        pairs = list(headers or [])
    names = {name.lower() for name, _ in pairs}
    if isinstance(body, str):
        body = body.encode()
    lines = [f"{method} {target} HTTP/{version}"]
    if host is not False and "host" not in names and (version == "1.1" or host):
        lines.append(f"Host: {host or '127.0.0.1'}")
    for name, value in pairs:
        lines.append(f"{name}: {value}")
    if body is not None and "content-length" not in names and "transfer-encoding" not in names:
        lines.append(f"Content-Length: {len(body)}")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head + (body or b"")


def chunked(parts):
    """A chunked transfer-coded body made of the given byte strings."""
    out = b""
    for part in parts:
        if isinstance(part, str):
            part = part.encode()
        if part:
            out += f"{len(part):x}\r\n".encode() + part + b"\r\n"
    return out + b"0\r\n\r\n"


def multipart(fields, files, boundary="----spindle-test-boundary-7MA4YWxkTrZu0gW"):
    """A multipart/form-data body: fields is {name: value}, files is {name: (filename,
    content_type, bytes)}. Returns (content_type, body)."""
    out = b""
    for name, value in fields.items():
        out += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n"
                .encode() + value.encode() + b"\r\n")
    for name, (filename, content_type, data) in files.items():
        out += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; "
                f"filename=\"{filename}\"\r\nContent-Type: {content_type}\r\n\r\n".encode()
                + data + b"\r\n")
    out += f"--{boundary}--\r\n".encode()
    return f"multipart/form-data; boundary={boundary}", out


class Conn:
    """One client connection with its own read buffer."""

    def __init__(self, port, timeout=DEFAULT_TIMEOUT, host_header=None, narrow=False,
                 unix_path=None, source=None):
        self.port = port
        self.host_header = host_header or (f"127.0.0.1:{port}" if unix_path is None else "localhost")
        if unix_path is not None:
            # A Unix domain socket listener (--listen unix/PATH); `port` is unused.
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(timeout)
            self.sock.connect(str(unix_path))
        elif not narrow:
            # `source`: another loopback address to connect from (127.0.0.2, ...), so that a
            # server can tell this client from one on 127.0.0.1.
            self.sock = socket.create_connection(
                ("127.0.0.1", port), timeout=timeout,
                source_address=None if source is None else (source, 0))
        else:
            # A connection as narrow as a slow real network's: small segments and a small
            # receive window, so the server's socket buffer fills after tens of KB (on loopback
            # its 64 KB segments would make it megabytes). Set before connecting: both are
            # agreed at the handshake.
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
            self.sock.settimeout(timeout)
            self.sock.connect(("127.0.0.1", port))
        self.sock.settimeout(timeout)
        self.buffer = b""
        self.closed = False

    # --- plumbing -----------------------------------------------------------------------

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if not self.closed:
            self.closed = True
            try:
                self.sock.close()
            except OSError:
                pass

    def settimeout(self, timeout):
        self.sock.settimeout(timeout)

    def send(self, data):
        if isinstance(data, str):
            data = data.encode("latin-1")
        self.sock.sendall(data)

    def _fill(self):
        """Reads more bytes into the buffer; raises ConnectionClosed at EOF."""
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError as e:
            raise ConnectionClosed(f"connection reset: {e}") from e
        if not data:
            raise ConnectionClosed("connection closed by the server")
        self.buffer += data

    def read_exact(self, n):
        while len(self.buffer) < n:
            self._fill()
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def read_line(self, limit=1 << 20):
        while b"\r\n" not in self.buffer:
            if len(self.buffer) > limit:
                raise ValueError("line too long")
            self._fill()
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def read_until_close(self, limit=64 << 20):
        """Everything until the server closes (or resets) the connection."""
        while len(self.buffer) < limit:
            try:
                self._fill()
            except ConnectionClosed:
                break
        data, self.buffer = self.buffer, b""
        return data

    def wait_closed(self, timeout):
        """True if the server closes the connection within timeout seconds (data sent in the
        meantime is discarded), False if it is still open."""
        deadline = time.monotonic() + timeout
        previous = self.sock.gettimeout()
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.sock.settimeout(left)
                try:
                    data = self.sock.recv(65536)
                except socket.timeout:
                    return False
                except (ConnectionResetError, BrokenPipeError):
                    return True
                if not data:
                    return True
        finally:
            self.sock.settimeout(previous)

    # --- HTTP ---------------------------------------------------------------------------

    def send_request(self, method="GET", target="/", headers=None, body=None, version="1.1",
                     host=None):
        self.send(build_request(method, target, headers, body, version,
                                self.host_header if host is None else host))

    def read_head(self, keep_interim=True):
        """Reads a status line and header block; 1xx responses are collected in .interim of
        the final response (101 counts as final)."""
        interim = []
        while True:
            status_line = self.read_line().decode("latin-1")
            parts = status_line.split(" ", 2)
            if len(parts) < 2 or not parts[0].startswith("HTTP/"):
                raise ValueError(f"bad status line {status_line!r}")
            version = parts[0]
            status = int(parts[1])
            reason = parts[2] if len(parts) > 2 else ""
            headers = []
            while True:
                line = self.read_line().decode("latin-1")
                if line == "":
                    break
                name, _, value = line.partition(":")
                headers.append((name.strip(), value.strip()))
            response = Response(version, status, reason, headers)
            if 100 <= status < 200 and status != 101:
                interim.append(response)
                continue
            response.interim = interim if keep_interim else []
            return response

    def read_chunk(self):
        """One chunk of a chunked body: its data, b"" for the last chunk (trailers consumed)."""
        size_line = self.read_line().decode("latin-1")
        size = int(size_line.split(";", 1)[0].strip(), 16)
        if size == 0:
            while self.read_line() != b"":
                pass
            return b""
        data = self.read_exact(size)
        if self.read_exact(2) != b"\r\n":
            raise ValueError("chunk not followed by CRLF")
        return data

    def read_body(self, response, method="GET"):
        status = response.status
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            return response
        te = (response.header("Transfer-Encoding") or "").lower()
        length = response.header("Content-Length")
        if "chunked" in te:
            response.chunked = True
            body = []
            while True:
                data = self.read_chunk()
                if not data:
                    break
                body.append(data)
            response.body = b"".join(body)
        elif length is not None:
            response.body = self.read_exact(int(length))
        else:
            response.body = self.read_until_close()
        return response

    def read_response(self, method="GET"):
        return self.read_body(self.read_head(), method)

    def request(self, method="GET", target="/", headers=None, body=None, version="1.1",
                host=None):
        self.send_request(method, target, headers, body, version, host)
        return self.read_response(method)


def concurrent_echo_requests(port, count=200, target="/echo_id.php"):
    """Opens `count` connections, releases their requests at once (a barrier) and returns
    [(ident, response)]: each asks `target?id=IDENT`, whose answer must be its ident only."""
    barrier = threading.Barrier(count, timeout=20)

    def one(i):
        ident = f"req-{i:03d}-{i * 7919 % 1000:03d}"
        with Conn(port, timeout=30) as conn:
            barrier.wait()
            return ident, conn.request("GET", f"{target}?id={ident}")

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(one, range(count)))


def wrong_echo_responses(results):
    """The (ident, response) pairs whose response is not the echo fixture's answer for ident."""
    return [(ident, r) for ident, r in results
            if r.status != 200 or r.body != f"{ident}\n".encode() * 50]

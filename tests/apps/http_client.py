"""A small browser-like HTTP client for the app tests: one keep-alive connection to a server on
127.0.0.1, a cookie jar that honours Path, Max-Age and Expires, form and multipart posts, and
redirects followed only when asked (the tests check the redirects themselves)."""

import http.client
import json
import time
import uuid
from email.utils import parsedate_to_datetime
from urllib.parse import urlencode, urljoin, urlsplit

from app_client import Response

DEFAULT_TIMEOUT = 30.0


class Cookie:
    def __init__(self, name, value, path, expires):
        self.name = name
        self.value = value
        self.path = path
        self.expires = expires  # a time.time() value, or None for a session cookie

    def matches(self, path, now):
        if self.expires is not None and self.expires <= now:
            return False
        if path == self.path or self.path == "/":
            return True
        prefix = self.path if self.path.endswith("/") else self.path + "/"
        return path.startswith(prefix)


def default_cookie_path(request_path):
    # RFC 6265 5.1.4: the directory of the request path.
    if not request_path.startswith("/") or request_path.count("/") == 1:
        return "/"
    return request_path[: request_path.rfind("/")]


def parse_set_cookie(line, request_path, now):
    """A Cookie from one Set-Cookie value (RFC 6265 5.2), or None if it has no name."""
    parts = line.split(";")
    name, sep, value = parts[0].partition("=")
    name = name.strip()
    if not sep or not name:
        return None
    path = default_cookie_path(request_path)
    expires = None
    max_age = None
    for attribute in parts[1:]:
        key, _, attr_value = attribute.partition("=")
        key = key.strip().lower()
        attr_value = attr_value.strip()
        if key == "path" and attr_value.startswith("/"):
            path = attr_value
        elif key == "max-age":
            try:
                max_age = int(attr_value)
            except ValueError:
                pass
        elif key == "expires":
            try:
                expires = parsedate_to_datetime(attr_value).timestamp()
            except (TypeError, ValueError):
                pass
    if max_age is not None:
        expires = now + max_age  # Max-Age wins over Expires
    return Cookie(name, value.strip(), path, expires)


class Client:
    """One browser: its cookies and one keep-alive connection to http://127.0.0.1:port."""

    def __init__(self, port, host=None, timeout=DEFAULT_TIMEOUT, source_address=None):
        self.port = port
        self.host = host or f"127.0.0.1:{port}"
        self.timeout = timeout
        # Another loopback address (e.g. "127.0.0.2") to connect from: a different REMOTE_ADDR.
        self.source_address = source_address
        self.cookies = {}  # (name, path) -> Cookie
        self.conn = None

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- cookies --------------------------------------------------------------------------

    def cookie(self, name):
        """The value of a live cookie by name (any path), or None."""
        now = time.time()
        for cookie in self.cookies.values():
            if cookie.name == name and (cookie.expires is None or cookie.expires > now):
                return cookie.value
        return None

    def cookie_names(self):
        now = time.time()
        return sorted({c.name for c in self.cookies.values()
                       if c.expires is None or c.expires > now})

    def cookie_header(self, path):
        now = time.time()
        live = [c for c in self.cookies.values() if c.matches(path, now)]
        # Longer paths first, as browsers send them (RFC 6265 5.4).
        live.sort(key=lambda c: -len(c.path))
        return "; ".join(f"{c.name}={c.value}" for c in live)

    def store_cookies(self, response, request_path):
        now = time.time()
        for line in response.header_all("Set-Cookie"):
            cookie = parse_set_cookie(line, request_path, now)
            if cookie is None:
                continue
            key = (cookie.name, cookie.path)
            if cookie.expires is not None and cookie.expires <= now:
                self.cookies.pop(key, None)
            else:
                self.cookies[key] = cookie

    # --- requests -------------------------------------------------------------------------

    def request(self, method, target, body=None, headers=None, follow=False):
        """Sends one request (a path, or an absolute URL on this server) and returns the
        Response; with follow=True, 301/302/303/307/308 are followed up to 10 times."""
        for _ in range(11):
            response = self._send(method, target, body, headers)
            location = response.header("Location")
            if not follow or response.status not in (301, 302, 303, 307, 308) or not location:
                return response
            target = urljoin(response.url, location)
            if response.status in (301, 302, 303) and method != "HEAD":
                method, body = "GET", None
                headers = {k: v for k, v in (headers or {}).items()
                           if k.lower() != "content-type"}
        raise AssertionError(f"more than 10 redirects, last: {response!r}")

    def _send(self, method, target, body, headers):
        parts = urlsplit(target)
        if parts.scheme:
            if parts.netloc != self.host:
                raise AssertionError(f"{target} is not on this server ({self.host})")
            target = parts.path + (f"?{parts.query}" if parts.query else "")
        path = urlsplit(target).path or "/"
        all_headers = {"Host": self.host, "User-Agent": "spindle-app-tests"}
        all_headers.update(headers or {})
        cookies = self.cookie_header(path)
        if cookies:
            all_headers["Cookie"] = cookies
        if isinstance(body, str):
            body = body.encode()
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(
                    "127.0.0.1", self.port, timeout=self.timeout,
                    source_address=(self.source_address, 0) if self.source_address else None)
            try:
                self.conn.request(method, target, body=body, headers=all_headers)
                raw = self.conn.getresponse()
                data = raw.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # The server closed an idle keep-alive connection: retry once on a new one.
                self.close()
                if attempt == 1:
                    raise
        if raw.will_close:
            self.close()
        response = Response(f"http://{self.host}{target}", raw.status, raw.reason,
                            raw.getheaders(), data)
        self.store_cookies(response, path)
        return response

    def get(self, target, headers=None, follow=False):
        return self.request("GET", target, headers=headers, follow=follow)

    def post_form(self, target, fields, headers=None, follow=False):
        """A urlencoded form post; fields is a dict or a list of pairs."""
        all_headers = {"Content-Type": "application/x-www-form-urlencoded"}
        all_headers.update(headers or {})
        return self.request("POST", target, urlencode(fields), all_headers, follow)

    def post_json(self, target, document, headers=None):
        all_headers = {"Content-Type": "application/json"}
        all_headers.update(headers or {})
        return self.request("POST", target, json.dumps(document), all_headers)

    def post_multipart(self, target, fields, files, headers=None, follow=False):
        """fields: {name: value}; files: {name: (filename, content_type, bytes)}."""
        content_type, body = multipart_body(fields, files)
        all_headers = {"Content-Type": content_type}
        all_headers.update(headers or {})
        return self.request("POST", target, body, all_headers, follow)


def multipart_body(fields, files):
    boundary = "----spindle-app-" + uuid.uuid4().hex
    out = []
    for name, value in fields.items():
        out.append(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n"
                   .encode() + str(value).encode() + b"\r\n")
    for name, (filename, content_type, data) in files.items():
        out.append(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; "
                   f"filename=\"{filename}\"\r\nContent-Type: {content_type}\r\n\r\n".encode()
                   + data + b"\r\n")
    out.append(f"--{boundary}--\r\n".encode())
    return f"multipart/form-data; boundary={boundary}", b"".join(out)

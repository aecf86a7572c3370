"""A browser-like HTTP client for driving real PHP applications in tests: it keeps cookies,
follows redirects when asked (and records them), and reads HTML forms so a test submits what
the page really offers (hidden security tokens included) instead of a hard-coded body.

Built on http.client and html.parser only, so it needs nothing beyond the standard library.
One Client talks to one origin (http://127.0.0.1:PORT), as the app tests do.
"""

import http.client
import json
import uuid
from html.parser import HTMLParser
from http.cookies import SimpleCookie
from urllib.parse import urlencode, urljoin, urlsplit

DEFAULT_TIMEOUT = 30.0
MAX_REDIRECTS = 10


class Response:
    """One response: status, headers (list of pairs, in order), body, and the URL it came
    from; `history` holds the redirects followed to reach it."""

    def __init__(self, url, status, reason, headers, body):
        self.url = url
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.history = []

    def header(self, name, default=None):
        lowered = name.lower()
        for key, value in self.headers:
            if key.lower() == lowered:
                return value
        return default

    def header_all(self, name):
        lowered = name.lower()
        return [value for key, value in self.headers if key.lower() == lowered]

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.body)

    def forms(self):
        return parse_forms(self.text, self.url)

    def assets(self):
        """URLs (absolute) of the page's stylesheets, scripts and images, in document order,
        as (kind, url) with kind "stylesheet", "script" or "image"."""
        return parse_assets(self.text, self.url)

    def form(self, **attributes):
        """The first form whose attributes (id=, name=, action containing action=) match."""
        for form in self.forms():
            if form.matches(**attributes):
                return form
        raise AssertionError(f"no form matching {attributes} at {self.url}; forms: "
                             f"{[f.attributes for f in self.forms()]}\n{self.text[:2000]}")

    def __repr__(self):
        return (f"<Response {self.status} {self.url} headers={self.headers!r} "
                f"body[{len(self.body)}]={self.body[:500]!r}>")


class Client:
    """Cookie-keeping client for one origin. Cookies are kept by name: the app tests talk to
    one host, so domain and path scoping would add nothing but code."""

    def __init__(self, base_url, timeout=DEFAULT_TIMEOUT, headers=None):
        parts = urlsplit(base_url)
        self.base_url = f"{parts.scheme}://{parts.netloc}/"
        self.host = parts.hostname
        self.port = parts.port or 80
        self.timeout = timeout
        self.cookies = {}
        self.default_headers = dict(headers or {})

    def url(self, target):
        return urljoin(self.base_url, target)

    def request(self, method, target, body=None, headers=None, follow=True):
        """Sends one request (and, when follow is true, the GETs its redirects lead to)."""
        url = self.url(target)
        history = []
        while True:
            response = self._send(method, url, body, headers)
            location = response.header("Location")
            if not follow or response.status not in (301, 302, 303, 307, 308) or not location:
                response.history = history
                return response
            history.append(response)
            if len(history) > MAX_REDIRECTS:
                raise AssertionError(f"more than {MAX_REDIRECTS} redirects: "
                                     f"{[r.url for r in history]}")
            url = urljoin(url, location)
            if response.status in (301, 302, 303):
                method, body = "GET", None

    def get(self, target, params=None, **kwargs):
        if params:
            target += ("&" if "?" in target else "?") + urlencode(params)
        return self.request("GET", target, **kwargs)

    def post(self, target, fields=None, files=None, headers=None, **kwargs):
        """POSTs fields (a dict or list of pairs) url-encoded, or as multipart/form-data when
        files ({field: (filename, bytes, content_type)}) are given."""
        headers = dict(headers or {})
        if files:
            body, content_type = encode_multipart(fields or [], files)
        else:
            body, content_type = urlencode(list(_pairs(fields))).encode(), \
                "application/x-www-form-urlencoded"
        headers.setdefault("Content-Type", content_type)
        return self.request("POST", target, body=body, headers=headers, **kwargs)

    def submit(self, form, overrides=None, submit=None, files=None, **kwargs):
        """Submits a parsed form with its own fields, `overrides` replacing or adding values,
        and the named submit button (the first one when submit is None)."""
        fields = form.values(overrides, submit)
        if form.method == "POST":
            return self.post(form.action, fields, files=files, **kwargs)
        return self.get(form.action.split("?")[0] + "?" + urlencode(fields), **kwargs)

    # --- wire ----------------------------------------------------------------------------

    def _send(self, method, url, body, headers):
        parts = urlsplit(url)
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        all_headers = {**self.default_headers, **(headers or {})}
        if self.cookies:
            all_headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        conn = http.client.HTTPConnection(parts.hostname, parts.port or 80,
                                          timeout=self.timeout)
        try:
            conn.request(method, target, body=body, headers=all_headers)
            raw = conn.getresponse()
            response = Response(url, raw.status, raw.reason, raw.getheaders(), raw.read())
        finally:
            conn.close()
        for value in response.header_all("Set-Cookie"):
            self._store_cookie(value)
        return response

    def _store_cookie(self, header):
        jar = SimpleCookie()
        jar.load(header)
        for name, morsel in jar.items():
            expires = morsel["expires"]
            max_age = morsel["max-age"]
            deleted = (max_age not in ("", None) and int(max_age) <= 0) or (
                expires and ("1970" in expires or "deleted" == morsel.value))
            if deleted:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = morsel.coded_value


def _pairs(fields):
    if fields is None:
        return []
    if isinstance(fields, dict):
        return list(fields.items())
    return list(fields)


def encode_multipart(fields, files):
    """(body, content type) of a multipart/form-data request."""
    boundary = "----spindle-" + uuid.uuid4().hex
    chunks = []
    for name, value in _pairs(fields):
        chunks.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                      .encode() + str(value).encode() + b"\r\n")
    for name, (filename, data, content_type) in files.items():
        chunks.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
            f'filename="{filename}"\r\nContent-Type: {content_type}\r\n\r\n'.encode()
            + data + b"\r\n")
    chunks.append(f"--{boundary}--\r\n".encode())
    return b"".join(chunks), f"multipart/form-data; boundary={boundary}"


# --- HTML forms ----------------------------------------------------------------------------


class Form:
    """A form as a browser would submit it: its action (absolute), method, and its fields in
    document order as (name, value, type) with unchecked boxes and unselected options left
    out, as HTML specifies."""

    def __init__(self, attributes, base_url):
        self.attributes = attributes
        self.action = urljoin(base_url, attributes.get("action") or base_url)
        self.method = (attributes.get("method") or "GET").upper()
        self.fields = []  # (name, value, type)

    def matches(self, **wanted):
        for key, value in wanted.items():
            if key == "action":
                if value not in self.action:
                    return False
            elif self.attributes.get(key) != value:
                return False
        return True

    def field(self, name, default=None):
        for field_name, value, _ in self.fields:
            if field_name == name:
                return value
        return default

    def values(self, overrides=None, submit=None):
        """The pairs a submission sends: every field but the submit buttons that were not
        pressed; `overrides` replaces values by name (and adds names the form lacks)."""
        overrides = dict(overrides or {})
        pairs = []
        pressed = submit
        for name, value, kind in self.fields:
            if kind == "submit":
                if pressed is None:
                    pressed = name
                if name != pressed:
                    continue
            if name in overrides:
                if overrides[name] is None:
                    continue
                value = overrides.pop(name)
            pairs.append((name, value))
        pairs.extend((k, v) for k, v in overrides.items() if v is not None)
        return pairs


class _FormParser(HTMLParser):
    def __init__(self, base_url):
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.forms = []
        self.current = None
        self.textarea = None  # [name, text parts]
        self.select = None  # [name, first option value, selected value, multiple]
        self.option = None  # [value or None, text parts, selected]

    def handle_starttag(self, tag, attrs):
        attributes = {k: (v if v is not None else "") for k, v in attrs}
        if tag == "form":
            self.current = Form(attributes, self.base_url)
            self.forms.append(self.current)
            return
        if self.current is None:
            return
        name = attributes.get("name")
        if tag == "input" and name is not None and "disabled" not in attributes:
            kind = attributes.get("type", "text").lower()
            if kind in ("checkbox", "radio") and "checked" not in attributes:
                return
            if kind in ("image", "reset", "button", "file"):
                return
            default = "on" if kind in ("checkbox", "radio") else ""
            self.current.fields.append((name, attributes.get("value", default),
                                        "submit" if kind == "submit" else kind))
        elif tag == "button" and name is not None:
            if attributes.get("type", "submit").lower() == "submit":
                self.current.fields.append((name, attributes.get("value", ""), "submit"))
        elif tag == "textarea" and name is not None:
            self.textarea = [name, []]
        elif tag == "select" and name is not None:
            self.select = [name, None, None, "multiple" in attributes]
        elif tag == "option" and self.select is not None:
            self.option = [attributes.get("value"), [], "selected" in attributes]

    def handle_data(self, data):
        if self.textarea is not None:
            self.textarea[1].append(data)
        if self.option is not None:
            self.option[1].append(data)

    def handle_endtag(self, tag):
        if tag == "form":
            self.current = None
        elif tag == "textarea" and self.textarea is not None:
            text = "".join(self.textarea[1])
            # HTML drops one newline right after <textarea>.
            if text.startswith("\r\n"):
                text = text[2:]
            elif text.startswith("\n"):
                text = text[1:]
            self.current.fields.append((self.textarea[0], text, "textarea"))
            self.textarea = None
        elif tag == "option" and self.option is not None:
            self._end_option()
        elif tag == "select" and self.select is not None:
            if self.option is not None:
                self._end_option()
            name, first, selected, _ = self.select
            value = selected if selected is not None else first
            if value is not None and self.current is not None:
                self.current.fields.append((name, value, "select"))
            self.select = None

    def _end_option(self):
        value, text, selected = self.option
        if value is None:
            value = "".join(text).strip()
        if self.select[1] is None:
            self.select[1] = value
        if selected and self.select[2] is None:
            self.select[2] = value
        self.option = None


def parse_forms(html, base_url):
    """Every <form> of a page, with the fields a browser would submit by default."""
    parser = _FormParser(base_url)
    parser.feed(html)
    parser.close()
    return parser.forms


class _AssetParser(HTMLParser):
    def __init__(self, base_url):
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.assets = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "link" and "stylesheet" in (attributes.get("rel") or "").split():
            if attributes.get("href"):
                self.assets.append(("stylesheet", urljoin(self.base_url, attributes["href"])))
        elif tag == "script" and attributes.get("src"):
            self.assets.append(("script", urljoin(self.base_url, attributes["src"])))
        elif tag == "img" and attributes.get("src"):
            self.assets.append(("image", urljoin(self.base_url, attributes["src"])))


def parse_assets(html, base_url):
    """The stylesheets, scripts and images a page links to (see Response.assets)."""
    parser = _AssetParser(base_url)
    parser.feed(html)
    parser.close()
    return parser.assets

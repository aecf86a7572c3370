"""HTTP/2 clients of the integration tests, on Debian's python3-h2 (and its hpack and hyperframe):

- H2Client: a well-behaved client (h2c with prior knowledge, or TLS with ALPN h2) that sends
  requests on many streams of one connection and records every event in arrival order, so a
  test can check what came before what (a 103 before the final HEADERS, a DATA frame before the
  script ended, a GOAWAY).
- RawH2: writes frames byte by byte (hyperframe), for the abuse tests: frames a well-behaved
  client library refuses to send (streams over the peer's limit, endless CONTINUATION, a
  content-length that lies), and floods sent without reading the answers.
"""

import select
import socket
import ssl
import time

import h2.config
import h2.connection
import h2.events
import h2.settings
import hpack
import hyperframe.frame as hf

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

# RFC 9113 7: the error codes the tests send or expect.
PROTOCOL_ERROR = 0x1
REFUSED_STREAM = 0x7
CANCEL = 0x8

# RFC 9113 8.2.2: fields an HTTP/2 message must not carry.
CONNECTION_SPECIFIC = {"connection", "keep-alive", "proxy-connection", "transfer-encoding",
                       "upgrade"}


def open_socket(port, tls_context=None, server_hostname="127.0.0.1", timeout=10.0):
    """A TCP connection to 127.0.0.1:port, wrapped in TLS offering ALPN h2 alone when a context
    is given."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if tls_context is None:
        return raw
    tls_context.set_alpn_protocols(["h2"])
    try:
        return tls_context.wrap_socket(raw, server_hostname=server_hostname)
    except Exception:
        raw.close()
        raise


class Response:
    """One stream as the client saw it."""

    def __init__(self, stream_id):
        self.stream_id = stream_id
        self.interim = []  # header lists of 1xx responses, in order
        self.headers = None  # the final response's header list [(name, value)], str
        self.chunks = []  # DATA payloads in order
        self.ended = False
        self.reset = None  # error code of a RST_STREAM from the server

    @property
    def status(self):
        return int(self.header(":status")) if self.headers is not None else None

    @property
    def body(self):
        return b"".join(self.chunks)

    def json(self):
        import json

        return json.loads(self.body)

    def header(self, name):
        values = self.header_all(name)
        return values[0] if values else None

    def header_all(self, name):
        return [v for n, v in (self.headers or []) if n == name.lower()]

    @property
    def done(self):
        return self.ended or self.reset is not None

    def __repr__(self):
        return (f"<h2 stream {self.stream_id} status={self.status} reset={self.reset} "
                f"ended={self.ended} headers={self.headers} body={self.body[:200]!r}>")


def decoded(headers):
    return [(n.decode("latin-1") if isinstance(n, bytes) else n,
             v.decode("latin-1") if isinstance(v, bytes) else v) for n, v in headers]


class H2Client:
    """A client connection through python3-h2, which opens the flow-control windows again as
    it reads."""

    def __init__(self, port, tls_context=None, timeout=10.0):
        self.sock = open_socket(port, tls_context, timeout=timeout)
        if tls_context is not None:
            self.alpn = self.sock.selected_alpn_protocol()
            assert self.alpn == "h2", f"ALPN chose {self.alpn!r}, not h2"
        self.scheme = "https" if tls_context is not None else "http"
        self.authority = f"127.0.0.1:{port}"
        self.timeout = timeout
        config = h2.config.H2Configuration(client_side=True, header_encoding=None,
                                           validate_inbound_headers=False)
        self.conn = h2.connection.H2Connection(config=config)
        self.conn.initiate_connection()
        # No server push (a browser's default is on, but nothing here wants pushed streams).
        self.conn.update_settings({h2.settings.SettingCodes.ENABLE_PUSH: 0})
        self.responses = {}
        self.events = []  # (kind, stream_id) in arrival order, kind as the event class name
        self.goaway = None  # the ConnectionTerminated event, once one came
        self.closed = False  # the server closed the TCP connection
        self.flush()

    # --- plumbing ---------------------------------------------------------------------------

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def pump(self, timeout=None):
        """Reads what arrives within `timeout` seconds (at least one read), handles its events.
        Returns False once the connection is closed."""
        if self.closed:
            return False
        if not isinstance(self.sock, ssl.SSLSocket) or not self.sock.pending():
            ready, _, _ = select.select([self.sock], [], [], self.timeout if timeout is None
                                        else timeout)
            if not ready:
                return True
        try:
            data = self.sock.recv(1 << 20)
        except (ConnectionResetError, BrokenPipeError, ssl.SSLError):
            data = b""
        if not data:
            self.closed = True
            return False
        for event in self.conn.receive_data(data):
            self.handle(event)
        try:
            self.flush()
        except OSError:
            self.closed = True
        return True

    def handle(self, event):
        sid = getattr(event, "stream_id", None)
        self.events.append((type(event).__name__, sid))
        if sid and sid not in self.responses:
            self.responses[sid] = Response(sid)  # a stream the client did not open
        if isinstance(event, h2.events.InformationalResponseReceived):
            self.responses[sid].interim.append(decoded(event.headers))
        elif isinstance(event, h2.events.ResponseReceived):
            self.responses[sid].headers = decoded(event.headers)
        elif isinstance(event, h2.events.DataReceived):
            self.responses[sid].chunks.append(event.data)
            if event.flow_controlled_length:
                self.conn.acknowledge_received_data(event.flow_controlled_length, sid)
        elif isinstance(event, h2.events.StreamEnded):
            self.responses[sid].ended = True
        elif isinstance(event, h2.events.StreamReset):
            if sid in self.responses:
                self.responses[sid].reset = int(event.error_code)
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.goaway = event

    def wait_for(self, predicate, timeout=None, what="the condition"):
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while not predicate():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {what}; events: {self.events[-30:]}")
            if not self.pump(min(left, 0.5)) and not predicate():
                raise AssertionError(f"connection closed while waiting for {what}; "
                                     f"goaway={self.goaway}; events: {self.events[-30:]}")

    # --- requests -----------------------------------------------------------------------------

    def send_request(self, method="GET", path="/", headers=(), body=None, end_stream=None):
        """Opens a stream with this request; returns its Response (filled in by pump())."""
        sid = self.conn.get_next_available_stream_id()
        head = [(":method", method), (":scheme", self.scheme), (":authority", self.authority),
                (":path", path)]
        head += [(n.lower(), v) for n, v in headers]
        if body is not None and not any(n.lower() == "content-length" for n, _ in headers):
            head.append(("content-length", str(len(body))))
        self.responses[sid] = Response(sid)
        self.conn.send_headers(sid, head, end_stream=(body is None) if end_stream is None
                               else end_stream)
        self.flush()
        if body is not None:
            self.send_body(sid, body)
        return self.responses[sid]

    def send_body(self, sid, body, end_stream=True):
        """Sends `body` on stream `sid` as the flow-control windows allow, in DATA frames of at
        most the peer's frame size."""
        view = memoryview(body)
        while view:
            window = min(self.conn.local_flow_control_window(sid),
                         self.conn.max_outbound_frame_size)
            if window <= 0:
                sent_before = len(self.events)
                self.wait_for(lambda: len(self.events) > sent_before
                              and self.conn.local_flow_control_window(sid) > 0,
                              what=f"a window update for stream {sid}")
                continue
            chunk, view = view[:window], view[window:]
            self.conn.send_data(sid, bytes(chunk), end_stream=end_stream and not view)
            self.flush()
        if not body and end_stream:
            self.conn.end_stream(sid)
            self.flush()

    def response(self, stream, timeout=None):
        """Waits until `stream` (a Response) ended or was reset, and returns it."""
        self.wait_for(lambda: stream.done, timeout, what=f"the end of stream {stream.stream_id}")
        return stream

    def request(self, method="GET", path="/", headers=(), body=None, timeout=None):
        return self.response(self.send_request(method, path, headers, body), timeout)

    def get(self, path="/", headers=(), timeout=None):
        return self.request("GET", path, headers, timeout=timeout)


# --- raw frames ------------------------------------------------------------------------------


def request_fields(path, method="GET", authority="127.0.0.1", scheme="http", extra=()):
    return [(":method", method), (":scheme", scheme), (":authority", authority),
            (":path", path), *extra]


class RawH2:
    """Frames written by hand over a plain (h2c) or TLS socket. read_frames() parses what the
    server sends: every frame, with HEADERS blocks decoded."""

    def __init__(self, port, tls_context=None, timeout=10.0, settings=None):
        self.sock = open_socket(port, tls_context, timeout=timeout)
        self.buffer = b""
        self.decoder = hpack.Decoder()
        self.decoder.max_allowed_table_size = 1 << 16
        self.frames = []  # every frame read, in order
        self.headers = {}  # stream id -> list of decoded header lists
        self.closed = False
        self.encoder = hpack.Encoder()
        settings_frame = hf.SettingsFrame(0)
        for key, value in (settings or {}).items():
            settings_frame.settings[key] = value
        self.send(PREFACE + settings_frame.serialize())

    def send(self, data):
        self.sock.sendall(data)

    def send_frames(self, *frames):
        self.send(b"".join(f.serialize() for f in frames))

    def ack_settings(self):
        ack = hf.SettingsFrame(0)
        ack.flags.add("ACK")
        self.send_frames(ack)

    def headers_frame(self, sid, fields, end_stream=True, end_headers=True):
        frame = hf.HeadersFrame(sid)
        frame.data = self.encoder.encode(fields)
        if end_headers:
            frame.flags.add("END_HEADERS")
        if end_stream:
            frame.flags.add("END_STREAM")
        return frame

    def headers_frames(self, sid, fields, end_stream=True, frame_size=16384):
        """HEADERS and as many CONTINUATION frames as a block of `fields` needs at the default
        SETTINGS_MAX_FRAME_SIZE."""
        block = self.encoder.encode(fields)
        frames = [hf.HeadersFrame(sid, data=block[:frame_size])]
        for offset in range(frame_size, len(block), frame_size):
            frames.append(hf.ContinuationFrame(sid, data=block[offset:offset + frame_size]))
        if end_stream:
            frames[0].flags.add("END_STREAM")
        frames[-1].flags.add("END_HEADERS")
        return frames

    def data_frame(self, sid, data, end_stream=False):
        frame = hf.DataFrame(sid)
        frame.data = data
        if end_stream:
            frame.flags.add("END_STREAM")
        return frame

    def rst_frame(self, sid, code=CANCEL):
        frame = hf.RstStreamFrame(sid)
        frame.error_code = code
        return frame

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def read_frames(self, timeout=1.0, until=None):
        """Reads frames for up to `timeout` seconds, or until `until(frame)` is true for a new
        frame, or the connection closes. Returns the frames read in this call."""
        new = []
        deadline = time.monotonic() + timeout
        while not self.closed:
            while len(self.buffer) >= 9:
                frame, length = hf.Frame.parse_frame_header(memoryview(self.buffer[:9]))
                if len(self.buffer) < 9 + length:
                    break
                frame.parse_body(memoryview(self.buffer[9:9 + length]))
                self.buffer = self.buffer[9 + length:]
                self._record(frame)
                new.append(frame)
                if until is not None and until(frame):
                    return new
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if not isinstance(self.sock, ssl.SSLSocket) or not self.sock.pending():
                ready, _, _ = select.select([self.sock], [], [], left)
                if not ready:
                    break
            try:
                data = self.sock.recv(1 << 20)
            except (ConnectionResetError, BrokenPipeError, ssl.SSLError):
                data = b""
            except socket.timeout:
                continue
            if not data:
                self.closed = True
                break
            self.buffer += data
        return new

    def _record(self, frame):
        self.frames.append(frame)
        if isinstance(frame, (hf.HeadersFrame, hf.ContinuationFrame)):
            # Server header blocks here are small: one HEADERS frame each (END_HEADERS).
            if isinstance(frame, hf.HeadersFrame):
                self._pending = frame.data
            else:
                self._pending += frame.data
            if "END_HEADERS" in frame.flags:
                fields = decoded(self.decoder.decode(self._pending, raw=True))
                self.headers.setdefault(frame.stream_id, []).append(fields)

    def goaway(self):
        for frame in self.frames:
            if isinstance(frame, hf.GoAwayFrame):
                return frame
        return None

    def resets(self):
        """{stream id: error code} of every RST_STREAM received."""
        return {f.stream_id: f.error_code for f in self.frames if isinstance(f, hf.RstStreamFrame)}

    def statuses(self):
        """{stream id: final :status} of every response received."""
        found = {}
        for sid, blocks in self.headers.items():
            for fields in blocks:
                status = dict(fields).get(":status")
                if status and not status.startswith("1"):
                    found[sid] = int(status)
        return found

    def ended_streams(self):
        return {f.stream_id for f in self.frames
                if isinstance(f, (hf.DataFrame, hf.HeadersFrame)) and "END_STREAM" in f.flags}

    def data_of(self, sid):
        return b"".join(f.data for f in self.frames
                        if isinstance(f, hf.DataFrame) and f.stream_id == sid)

    def flood(self, chunk, total_bytes, seconds=10.0, read=False):
        """Writes `chunk` again and again, `total_bytes` at most, for `seconds` at most. With
        read False it never reads what the server answers (the acks of a flood pile up on the
        server's side); with read True it keeps it. Returns (bytes sent, how it ended):
        "closed" (the server closed or reset the connection), "blocked" (the server stopped
        reading: the socket stayed unwritable for 3 s), "sent" (all of it was sent), "time"
        (the time ran out)."""
        sent = 0
        deadline = time.monotonic() + seconds
        self.sock.setblocking(False)
        blocked_since = None
        pending = chunk
        try:
            while sent < total_bytes:
                if time.monotonic() > deadline:
                    return sent, "time"
                readable, writable, _ = select.select([self.sock] if read else [], [self.sock],
                                                      [], 0.2)
                if readable:
                    try:
                        data = self.sock.recv(1 << 20)
                    except (ConnectionResetError, BrokenPipeError):
                        self.closed = True
                        return sent, "closed"
                    except (BlockingIOError, ssl.SSLWantReadError):
                        data = None
                    if data == b"":
                        self.closed = True
                        return sent, "closed"
                    if data:
                        self.buffer += data
                if writable:
                    blocked_since = None
                    try:
                        written = self.sock.send(pending)
                        sent += written
                        pending = pending[written:] or chunk
                    except (BlockingIOError, ssl.SSLWantWriteError):
                        pass
                    except (ConnectionResetError, BrokenPipeError):
                        self.closed = True
                        return sent, "closed"
                else:
                    blocked_since = blocked_since or time.monotonic()
                    if time.monotonic() - blocked_since > 3.0:
                        return sent, "blocked"
            return sent, "sent"
        finally:
            self.sock.setblocking(True)
            self.sock.settimeout(10.0)

    def wait_closed(self, timeout=5.0):
        """Reads (and parses) until the server closes the connection; whether it did within
        `timeout` seconds. A reset counts as closed."""
        deadline = time.monotonic() + timeout
        while not self.closed and time.monotonic() < deadline:
            self.read_frames(min(0.5, max(0.0, deadline - time.monotonic())))
        return self.closed

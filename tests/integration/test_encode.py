"""Response compression (`encode`): every coding is decoded and compared byte for byte with the
identity response, for PHP output (buffered, streamed past the buffer, flushed) in classic and
worker mode and for static files; negotiation by Accept-Encoding q-values; the responses that
must never be compressed; HEAD, Range, validators and Vary; php-server's default and
--no-compress; the Caddyfile directive."""

import gzip
import time
import zlib
from pathlib import Path

import brotli
import pytest
import zstandard

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "encode"
CODINGS = ["gzip", "br", "zstd"]
classic_only = pytest.mark.classic_only


def decode(coding, body):
    if coding == "gzip":
        return gzip.decompress(body)
    if coding == "br":
        return brotli.decompress(body)
    if coding == "zstd":
        # A streamed frame has no content size in its header: decode as a stream.
        return zstandard.ZstdDecompressor().decompressobj().decompress(body)
    raise ValueError(coding)


def stream_decoder(coding):
    """A function taking compressed bytes and returning what they decode to so far."""
    if coding == "gzip":
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress
    if coding == "br":
        return brotli.Decompressor().process
    return zstandard.ZstdDecompressor().decompressobj().decompress


def varies(response):
    """Whether Vary (all its field lines) names Accept-Encoding."""
    items = [item.strip().lower() for line in response.header_all("Vary") for item in line.split(",")]
    return "accept-encoding" in items


def accept(coding):
    return {"Accept-Encoding": coding}


# --- PHP responses -----------------------------------------------------------------------------


def test_php_every_coding_decodes_to_the_identity_body(spindle):
    srv = spindle("encode", warmup="/page.php")
    with srv.connect() as conn:
        plain = conn.request("GET", "/page.php")
        assert plain.status == 200, plain
        assert plain.header("Content-Encoding") is None
        assert len(plain.body) == 20000
        assert plain.header("Content-Length") == "20000"
        assert varies(plain), "an identity response that could have been compressed varies too"
        # Keep-alive across codings: each response is framed on its own.
        for coding in CODINGS * 2:
            r = conn.request("GET", "/page.php", headers=accept(coding))
            assert r.status == 200, r
            assert r.header("Content-Encoding") == coding
            assert r.header("Content-Length") == str(len(r.body))
            assert len(r.body) < len(plain.body) / 3
            assert varies(r)
            assert decode(coding, r.body) == plain.body


def test_php_negotiation_follows_q_values_and_server_order(spindle):
    srv = spindle("encode", warmup="/page.php")
    cases = {
        "gzip, deflate, br, zstd": "zstd",
        "gzip, br": "br",
        "GZIP": "gzip",
        "gzip;q=1, br;q=0.5, zstd;q=0.2": "gzip",
        "*": "zstd",
        "zstd;q=0, *": "br",
        "zstd;q=0, br;q=0, gzip;q=0": None,
        "*;q=0": None,
        "identity": None,
        "identity;q=0": None,
        "gzip;q=0.5, identity": None,
        "deflate, compress": None,
        "": None,
    }
    expected_body = srv.get("/page.php").body
    for header, coding in cases.items():
        r = srv.get("/page.php", headers=accept(header))
        assert r.status == 200, r
        assert r.header("Content-Encoding") == coding, header
        assert varies(r), header
        body = decode(coding, r.body) if coding else r.body
        assert body == expected_body, header


def test_php_body_streamed_past_the_buffer(spindle):
    srv = spindle("encode", warmup="/page.php")
    plain = srv.get("/big_stream.php", timeout=30)
    assert plain.status == 200, plain
    assert len(plain.body) == 128 * 8192
    for coding in CODINGS:
        r = srv.get("/big_stream.php", headers=accept(coding), timeout=30)
        assert r.status == 200, r
        assert r.header("Content-Encoding") == coding
        assert r.chunked and r.header("Content-Length") is None, r
        assert decode(coding, r.body) == plain.body


def test_php_flush_reaches_the_client_through_the_compressor(spindle):
    srv = spindle("encode", warmup="/page.php")
    first_part = b"first part of the stream\n" * 100
    second_part = b"second part of the stream\n" * 100
    for coding in CODINGS:
        with srv.connect() as conn:
            start = time.monotonic()
            conn.send_request("GET", "/stream_flush.php?ms=1200", headers=accept(coding))
            head = conn.read_head()
            assert head.status == 200, head
            assert head.header("Content-Encoding") == coding
            assert (head.header("Transfer-Encoding") or "").lower() == "chunked", head
            feed = stream_decoder(coding)
            decoded = b""
            while len(decoded) < len(first_part):
                chunk = conn.read_chunk()
                assert chunk, f"{coding}: the stream ended before the flushed part decoded"
                decoded += feed(chunk)
            first_at = time.monotonic() - start
            assert decoded == first_part, coding
            assert first_at < 0.9, f"{coding}: flushed part decoded after {first_at:.2f}s"
            while True:
                chunk = conn.read_chunk()
                if not chunk:
                    break
                decoded += feed(chunk)
            assert time.monotonic() - start >= 1.1
            assert decoded == first_part + second_part, coding


def test_php_small_bodies_stay_uncompressed(spindle):
    srv = spindle("encode", warmup="/page.php")
    r = srv.get("/page.php?size=511", headers=accept("gzip, br, zstd"))
    assert r.status == 200, r
    assert r.header("Content-Encoding") is None
    assert len(r.body) == 511
    assert varies(r)
    r = srv.get("/page.php?size=512", headers=accept("gzip"))
    assert r.header("Content-Encoding") == "gzip"
    assert len(decode("gzip", r.body)) == 512


def test_php_incompressible_types_stay_uncompressed(spindle):
    srv = spindle("encode", warmup="/page.php")
    for content_type in ["image/png", "application/octet-stream", "font/woff2"]:
        r = srv.get(f"/page.php?type={content_type}", headers=accept("gzip, br, zstd"))
        assert r.status == 200, r
        assert r.header("Content-Encoding") is None, content_type
        assert not varies(r), content_type
        assert len(r.body) == 20000
    for content_type in ["application/json", "application/problem%2Bjson", "image/svg%2Bxml"]:
        r = srv.get(f"/page.php?type={content_type}", headers=accept("gzip"))
        assert r.header("Content-Encoding") == "gzip", content_type


def test_php_self_encoded_response_is_not_compressed_again(spindle):
    srv = spindle("encode", warmup="/page.php")
    for header in ["gzip, br, zstd", "zstd", ""]:
        r = srv.get("/self_encoded.php", headers=accept(header))
        assert r.status == 200, r
        assert r.header("Content-Encoding") == "gzip"
        assert r.header_all("Vary") == ["Accept-Encoding"]
        assert gzip.decompress(r.body) == b"already compressed by the application\n" * 500


def test_php_bodiless_and_partial_statuses_are_never_compressed(spindle):
    srv = spindle("encode", warmup="/page.php")
    for code in [204, 304]:
        r = srv.get(f"/status.php?code={code}", headers=accept("gzip, br, zstd"))
        assert r.status == code, r
        assert r.header("Content-Encoding") is None
        assert r.body == b""
    r = srv.get("/status.php?code=206", headers=accept("gzip, br, zstd"))
    assert r.status == 206, r
    assert r.header("Content-Encoding") is None
    assert r.body == b"body of a 206 response\n" * 400
    # An error page with a body is compressed like any other.
    r = srv.get("/status.php?code=404", headers=accept("br"))
    assert r.status == 404, r
    assert r.header("Content-Encoding") == "br"
    assert decode("br", r.body) == b"body of a 404 response\n" * 400


def test_php_head_has_the_headers_get_would_have(spindle):
    srv = spindle("encode", warmup="/page.php")
    for coding in CODINGS + ["identity"]:
        get = srv.get("/page.php", headers=accept(coding))
        head = srv.request("HEAD", "/page.php", headers=accept(coding))
        assert head.status == 200, head
        assert head.body == b""
        for name in ["Content-Encoding", "Content-Length", "Vary", "Content-Type"]:
            assert head.header(name) == get.header(name), (coding, name)


def test_php_headers_of_a_compressed_response(spindle):
    srv = spindle("encode", warmup="/page.php")
    body = b"a body with headers set by the script\n" * 500
    # A strong ETag becomes weak once compressed; identity keeps it strong.
    r = srv.get('/headers.php?etag="v1"', headers=accept("gzip"))
    assert r.header("ETag") == 'W/"v1"'
    assert decode("gzip", r.body) == body
    assert srv.get('/headers.php?etag="v1"').header("ETag") == '"v1"'
    assert srv.get('/headers.php?etag=W/"v1"', headers=accept("br")).header("ETag") == 'W/"v1"'
    # The script's Vary is kept and Accept-Encoding joins it once.
    r = srv.get("/headers.php?vary=Cookie", headers=accept("zstd"))
    assert r.header_all("Vary") == ["Cookie", "Accept-Encoding"]
    r = srv.get("/headers.php?vary=accept-encoding", headers=accept("zstd"))
    assert r.header_all("Vary") == ["accept-encoding"]
    # A length the script set is replaced by the compressed one.
    r = srv.get("/headers.php?length=1", headers=accept("gzip"))
    assert r.header("Content-Encoding") == "gzip"
    assert r.header("Content-Length") == str(len(r.body))
    assert decode("gzip", r.body) == body
    plain = srv.get("/headers.php?length=1")
    assert plain.header("Content-Length") == str(len(body)) and plain.body == body
    # Byte ranges of the identity body do not apply to the compressed one.
    assert srv.get("/headers.php?accept_ranges=1", headers=accept("br")).header(
        "Accept-Ranges") is None
    assert srv.get("/headers.php?accept_ranges=1").header("Accept-Ranges") == "bytes"
    # Cache-Control: no-transform forbids it.
    r = srv.get("/headers.php?cache_control=public,%20no-transform", headers=accept("gzip"))
    assert r.header("Content-Encoding") is None and r.body == body


# --- static files ------------------------------------------------------------------------------


def test_static_every_coding_decodes_to_the_file(spindle):
    srv = spindle("encode", warmup="/page.php")
    expected = (FIXTURE / "style.css").read_bytes()
    plain = srv.get("/style.css")
    assert plain.body == expected
    assert plain.header("Accept-Ranges") == "bytes"
    assert varies(plain)
    strong = plain.header("ETag")
    assert strong.startswith('"')
    with srv.connect() as conn:
        for coding in CODINGS * 2:  # the second round comes from the cache
            r = conn.request("GET", "/style.css", headers=accept(coding))
            assert r.status == 200, r
            assert r.header("Content-Encoding") == coding
            assert r.header("Content-Length") == str(len(r.body))
            assert r.header("ETag") == "W/" + strong
            assert r.header("Accept-Ranges") is None
            assert r.header("Content-Type") == plain.header("Content-Type")
            assert varies(r)
            assert decode(coding, r.body) == expected
            head = conn.request("HEAD", "/style.css", headers=accept(coding))
            assert head.body == b""
            for name in ["Content-Encoding", "Content-Length", "ETag", "Vary"]:
                assert head.header(name) == r.header(name), (coding, name)


def test_static_range_requests_are_served_from_the_identity_file(spindle):
    srv = spindle("encode", warmup="/page.php")
    expected = (FIXTURE / "style.css").read_bytes()
    r = srv.get("/style.css", headers={"Accept-Encoding": "gzip, br, zstd", "Range": "bytes=100-199"})
    assert r.status == 206, r
    assert r.header("Content-Encoding") is None
    assert r.header("Content-Range") == f"bytes 100-199/{len(expected)}"
    assert r.body == expected[100:200]
    # If-Range with the weak tag of a compressed response never matches: the whole file.
    weak = srv.get("/style.css", headers=accept("gzip")).header("ETag")
    r = srv.get("/style.css", headers={"Accept-Encoding": "gzip", "Range": "bytes=0-9",
                                       "If-Range": weak})
    assert r.status == 200, r
    assert decode("gzip", r.body) == expected


def test_static_conditional_requests_with_either_tag(spindle):
    srv = spindle("encode", warmup="/page.php")
    strong = srv.get("/style.css").header("ETag")
    for tag in [strong, "W/" + strong]:
        for coding in ["gzip", "identity"]:
            r = srv.get("/style.css", headers={"Accept-Encoding": coding, "If-None-Match": tag})
            assert r.status == 304, (tag, coding, r)
            assert r.body == b""
            assert r.header("Content-Encoding") is None
            assert varies(r)
            assert r.header("ETag") == ("W/" + strong if coding == "gzip" else strong)


def test_static_small_and_incompressible_files_stay_as_they_are(spindle):
    srv = spindle("encode", warmup="/page.php")
    for name in ["small.txt", "noise.bin"]:
        r = srv.get(f"/{name}", headers=accept("gzip, br, zstd"))
        assert r.status == 200, r
        assert r.header("Content-Encoding") is None, name
        assert not varies(r), name
        assert r.body == (FIXTURE / name).read_bytes()


@classic_only
def test_static_files_too_large_to_compress_on_the_fly_go_out_as_they_are(spindle, tmp_root):
    root = tmp_root("encode")
    large = (b"a large text file, above the on-the-fly limit\n" * 70000)[: 3 * 1024 * 1024]
    (root / "large.txt").write_bytes(large)
    (root / "medium.txt").write_bytes(large[: 2 * 1024 * 1024])
    srv = spindle(root, warmup="/page.php")
    r = srv.get("/large.txt", headers=accept("gzip"), timeout=30)
    assert r.header("Content-Encoding") is None
    assert not varies(r)
    assert r.body == large
    r = srv.get("/medium.txt", headers=accept("gzip"), timeout=30)
    assert r.header("Content-Encoding") == "gzip"
    assert decode("gzip", r.body) == large[: 2 * 1024 * 1024]


@classic_only
def test_static_file_changed_on_disk_is_compressed_again(spindle, tmp_root):
    root = tmp_root("encode")
    page = root / "changing.html"
    page.write_bytes(b"<p>version one</p>\n" * 200)
    srv = spindle(root, warmup="/page.php")
    assert decode("zstd", srv.get("/changing.html", headers=accept("zstd")).body) == \
        b"<p>version one</p>\n" * 200
    page.write_bytes(b"<p>version two, longer</p>\n" * 200)
    assert decode("zstd", srv.get("/changing.html", headers=accept("zstd")).body) == \
        b"<p>version two, longer</p>\n" * 200


# --- configuration -----------------------------------------------------------------------------


def test_no_compress_turns_it_off(spindle):
    srv = spindle("encode", "--no-compress", warmup="/page.php")
    for target in ["/page.php", "/style.css", "/big_stream.php"]:
        r = srv.get(target, headers=accept("gzip, br, zstd"), timeout=30)
        assert r.status == 200, r
        assert r.header("Content-Encoding") is None, target
        assert not varies(r), target


@classic_only
def test_caddyfile_encode_formats_minimum_and_types(spindle_run, tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    (root / "page.html").write_bytes(b"<p>a static page</p>\n" * 100)
    (root / "style.css").write_bytes((FIXTURE / "style.css").read_bytes())
    (root / "index.php").write_text("<?php echo str_repeat(\"php output line\\n\", 200);\n")
    server = spindle_run(f"""
http://127.0.0.1:0 {{
    bind 127.0.0.1
    root * {root}
    php_server
    encode gzip {{
        br 4
        minimum_length 1000
        match {{
            header Content-Type text/css* text/html*
        }}
    }}
}}
http://localhost:0 {{
    bind 127.0.0.1
    root * {root}
    php_server
}}
""")
    r = server.get("/page.html", headers=accept("br, gzip"))
    assert r.header("Content-Encoding") == "gzip", r  # the configured order decides the tie
    assert decode("gzip", r.body) == b"<p>a static page</p>\n" * 100
    r = server.get("/style.css", headers=accept("br"))
    assert r.header("Content-Encoding") == "br"
    assert decode("br", r.body) == (root / "style.css").read_bytes()
    r = server.get("/", headers=accept("zstd"))
    assert r.header("Content-Encoding") is None and varies(r)
    r = server.get("/", headers=accept("gzip"))
    assert decode("gzip", r.body) == b"php output line\n" * 200
    # 21 bytes x 40: under the minimum of 1000.
    (root / "short.html").write_bytes(b"<p>a static page</p>\n" * 40)
    assert server.get("/short.html", headers=accept("gzip")).header("Content-Encoding") is None
    # A site without `encode` does not compress, as in Caddy.
    with server.connect(host_header="localhost") as conn:
        r = conn.request("GET", "/page.html", headers=accept("gzip, br, zstd"))
        assert r.status == 200, r
        assert r.header("Content-Encoding") is None and not varies(r)

"""Small valid PNG images made with the standard library, for upload tests."""

import struct
import zlib


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def gradient_png(width, height):
    """An 8-bit RGB PNG of a colour gradient (so resampling has something to keep)."""
    rows = []
    for y in range(height):
        row = bytearray([0])  # filter type: None
        for x in range(width):
            row += bytes((x * 255 // max(width - 1, 1), y * 255 // max(height - 1, 1), 128))
        rows.append(bytes(row))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b""))


def png_size(data):
    """(width, height) of a PNG, after checking its signature and IHDR chunk."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError(f"not a PNG: {data[:16]!r}")
    return struct.unpack(">II", data[16:24])

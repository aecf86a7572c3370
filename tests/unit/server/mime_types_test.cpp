#include "server/static/mime_types.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace spindle::server {
namespace {

TEST(MimeTypeFor, KnowsCommonWebTypes) {
    const std::pair<const char*, const char*> expected[] = {
        {"a.html", "text/html; charset=utf-8"},
        {"a.htm", "text/html; charset=utf-8"},
        {"a.css", "text/css; charset=utf-8"},
        {"a.js", "text/javascript; charset=utf-8"},
        {"a.mjs", "text/javascript; charset=utf-8"},
        {"a.json", "application/json"},
        {"a.xml", "text/xml; charset=utf-8"},
        {"a.txt", "text/plain; charset=utf-8"},
        {"a.csv", "text/csv; charset=utf-8"},
        {"a.md", "text/markdown; charset=utf-8"},
        {"a.svg", "image/svg+xml"},
        {"a.png", "image/png"},
        {"a.jpg", "image/jpeg"},
        {"a.jpeg", "image/jpeg"},
        {"a.gif", "image/gif"},
        {"a.webp", "image/webp"},
        {"a.avif", "image/avif"},
        {"a.ico", "image/x-icon"},
        {"a.bmp", "image/bmp"},
        {"a.tif", "image/tiff"},
        {"a.tiff", "image/tiff"},
        {"a.woff", "font/woff"},
        {"a.woff2", "font/woff2"},
        {"a.ttf", "font/ttf"},
        {"a.otf", "font/otf"},
        {"a.eot", "application/vnd.ms-fontobject"},
        {"a.pdf", "application/pdf"},
        {"a.zip", "application/zip"},
        {"a.gz", "application/gzip"},
        {"a.tar", "application/x-tar"},
        {"a.wasm", "application/wasm"},
        {"a.mp3", "audio/mpeg"},
        {"a.mp4", "video/mp4"},
        {"a.webm", "video/webm"},
        {"a.ogg", "audio/ogg"},
        {"a.wav", "audio/wav"},
        {"a.map", "application/json"},
        {"a.webmanifest", "application/manifest+json"},
    };
    for (const auto& [path, type] : expected) {
        EXPECT_EQ(mime_type_for(path), type) << path;
    }
}

TEST(MimeTypeFor, IgnoresCaseOfExtension) {
    EXPECT_EQ(mime_type_for("PHOTO.JPG"), "image/jpeg");
    EXPECT_EQ(mime_type_for("Index.Html"), "text/html; charset=utf-8");
    EXPECT_EQ(mime_type_for("font.WOFF2"), "font/woff2");
}

TEST(MimeTypeFor, UsesTheLastExtensionOfTheLastSegment) {
    EXPECT_EQ(mime_type_for("/var/www/archive.tar.gz"), "application/gzip");
    EXPECT_EQ(mime_type_for("/assets/app.min.js"), "text/javascript; charset=utf-8");
    EXPECT_EQ(mime_type_for("/assets.css/logo"), "application/octet-stream");
    EXPECT_EQ(mime_type_for("/v1.2/data.json"), "application/json");
}

TEST(MimeTypeFor, FallsBackToOctetStream) {
    for (const char* path : {"", "README", "/dir/", "file.", "a.exe", "a.unknownext",
                             "a.webmanifests", "a.j", "a.jsx", "a.htmlx", "/a.html/"}) {
        EXPECT_EQ(mime_type_for(path), "application/octet-stream") << path;
    }
}

}  // namespace
}  // namespace spindle::server

#include "encode/compressible_types.hpp"

#include <gtest/gtest.h>

namespace spindle::encode {
namespace {

const std::vector<std::string> defaults;

TEST(CompressibleTypes, DefaultsCoverTextJsonXmlAndScripts) {
    for (const char* type :
         {"text/html; charset=UTF-8", "text/css", "text/plain", "text/event-stream",
          "application/json", "application/javascript; charset=utf-8", "application/xml",
          "application/problem+json", "application/ld+json", "application/atom+xml",
          "image/svg+xml", "application/wasm", "TEXT/HTML", " text/html ;charset=utf-8"}) {
        EXPECT_TRUE(is_compressible_type(type, defaults)) << type;
    }
}

TEST(CompressibleTypes, DefaultsLeaveOutCompressedAndBinaryTypes) {
    for (const char* type : {"image/png", "image/jpeg", "application/zip", "application/gzip",
                             "font/woff2", "video/mp4", "application/octet-stream",
                             "application/pdf", "", "  ", "; charset=utf-8", "textual/html"}) {
        EXPECT_FALSE(is_compressible_type(type, defaults)) << type;
    }
}

TEST(CompressibleTypes, PatternsReplaceTheDefaults) {
    const std::vector<std::string> patterns{"text/html", "application/*", "*+yaml"};
    EXPECT_TRUE(is_compressible_type("text/html; charset=utf-8", patterns));
    EXPECT_TRUE(is_compressible_type("Application/PDF", patterns));
    EXPECT_TRUE(is_compressible_type("application/x+yaml", patterns));
    EXPECT_FALSE(is_compressible_type("text/css", patterns));
    EXPECT_FALSE(is_compressible_type("text/htmlx", patterns));
    EXPECT_TRUE(is_compressible_type("image/png", std::vector<std::string>{"*"}));
}

}  // namespace
}  // namespace spindle::encode

#include "encode/content_encoder.hpp"

#include <gtest/gtest.h>

#include <brotli/decode.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>

// Every encoder's output is decoded with the library's own decoder and compared byte for byte
// with the input, whole and at each flush: a flush must make everything written so far
// decodable, or streamed PHP output would stall inside the compressor.

namespace spindle::encode {
namespace {

/// A streaming decoder of one coding: feed() returns the bytes decoded from the input so far.
class decoder {
  public:
    explicit decoder(content_coding coding) : coding_(coding) {
        switch (coding) {
            case content_coding::gzip: inflateInit2(&zlib_, 15 + 16); break;
            case content_coding::zstd: zstd_ = ZSTD_createDStream(); break;
            case content_coding::br:
                brotli_ = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
                break;
            case content_coding::identity: break;
        }
    }
    ~decoder() {
        inflateEnd(&zlib_);
        ZSTD_freeDStream(zstd_);
        if (brotli_ != nullptr) {
            BrotliDecoderDestroyInstance(brotli_);
        }
    }

    std::string feed(const std::string& input) {
        std::string out;
        char buffer[16384];
        if (coding_ == content_coding::gzip) {
            zlib_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
            zlib_.avail_in = static_cast<uInt>(input.size());
            do {
                zlib_.next_out = reinterpret_cast<Bytef*>(buffer);
                zlib_.avail_out = sizeof buffer;
                const int rc = inflate(&zlib_, Z_NO_FLUSH);
                EXPECT_TRUE(rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR) << rc;
                out.append(buffer, sizeof buffer - zlib_.avail_out);
                finished_ = rc == Z_STREAM_END;
                if (rc != Z_OK) {
                    break;
                }
            } while (zlib_.avail_in > 0 || zlib_.avail_out == 0);
        } else if (coding_ == content_coding::zstd) {
            ZSTD_inBuffer in{input.data(), input.size(), 0};
            for (;;) {
                ZSTD_outBuffer buf{buffer, sizeof buffer, 0};
                const std::size_t rc = ZSTD_decompressStream(zstd_, &buf, &in);
                EXPECT_FALSE(ZSTD_isError(rc)) << ZSTD_getErrorName(rc);
                out.append(buffer, buf.pos);
                finished_ = rc == 0;
                if (ZSTD_isError(rc) || (in.pos == in.size && buf.pos < buf.size)) {
                    break;
                }
            }
        } else {
            std::size_t available_in = input.size();
            const auto* next_in = reinterpret_cast<const std::uint8_t*>(input.data());
            for (;;) {
                std::size_t available_out = sizeof buffer;
                auto* next_out = reinterpret_cast<std::uint8_t*>(buffer);
                const BrotliDecoderResult rc = BrotliDecoderDecompressStream(
                    brotli_, &available_in, &next_in, &available_out, &next_out, nullptr);
                EXPECT_NE(rc, BROTLI_DECODER_RESULT_ERROR);
                out.append(buffer, sizeof buffer - available_out);
                finished_ = rc == BROTLI_DECODER_RESULT_SUCCESS;
                // All input taken may still leave decoded bytes inside the decoder.
                if (rc != BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT &&
                    !BrotliDecoderHasMoreOutput(brotli_)) {
                    break;
                }
            }
        }
        return out;
    }

    bool is_finished() const { return finished_; }

  private:
    content_coding coding_;
    z_stream zlib_{};
    ZSTD_DStream* zstd_ = nullptr;
    BrotliDecoderState* brotli_ = nullptr;
    bool finished_ = false;
};

/// Text with some repetition, like HTML, and some noise, so no coding gets it for free.
std::string sample(std::size_t size) {
    std::mt19937 random(7);
    const char* words[] = {"<div class=\"item\">", "</div>\n",        "spindle ",
                           "compression ",         "<a href=\"/x\">", "</a>"};
    std::string text;
    while (text.size() < size) {
        text += words[random() % 6];
        text += static_cast<char>('a' + random() % 26);
    }
    text.resize(size);
    return text;
}

class EncoderRoundTrip : public ::testing::TestWithParam<content_coding> {};

TEST_P(EncoderRoundTrip, WholeBodyInOneCall) {
    const std::string input = sample(200'000);
    std::string out;
    ASSERT_TRUE(encode_all(GetParam(), 0, input, out));
    EXPECT_LT(out.size(), input.size() / 2);
    decoder d(GetParam());
    EXPECT_EQ(d.feed(out), input);
    EXPECT_TRUE(d.is_finished());
}

TEST_P(EncoderRoundTrip, StreamedPiecesWithFlushes) {
    const std::string input = sample(300'000);
    const std::unique_ptr<content_encoder> encoder = make_encoder(GetParam(), 0);
    ASSERT_NE(encoder, nullptr);
    EXPECT_EQ(encoder->coding(), GetParam());
    decoder d(GetParam());
    std::string decoded;
    std::size_t at = 0;
    std::size_t piece = 1;
    for (int round = 0; at < input.size(); ++round) {
        const std::string_view part = std::string_view(input).substr(at, piece);
        at += part.size();
        piece = piece * 3 + 7;
        std::string out;
        const bool is_flush = round % 2 == 1;
        ASSERT_TRUE(
            encoder->encode(part, is_flush ? encode_step::flush : encode_step::process, out));
        decoded += d.feed(out);
        if (is_flush) {
            // Everything up to the flush is decodable now.
            ASSERT_EQ(decoded.size(), at) << "round " << round;
            EXPECT_EQ(decoded, input.substr(0, at));
        }
    }
    std::string out;
    ASSERT_TRUE(encoder->encode({}, encode_step::finish, out));
    decoded += d.feed(out);
    EXPECT_EQ(decoded, input);
    EXPECT_TRUE(d.is_finished());
}

TEST_P(EncoderRoundTrip, EmptyBodyIsAValidStream) {
    std::string out;
    ASSERT_TRUE(encode_all(GetParam(), 0, {}, out));
    EXPECT_FALSE(out.empty());
    decoder d(GetParam());
    EXPECT_EQ(d.feed(out), "");
    EXPECT_TRUE(d.is_finished());
}

TEST_P(EncoderRoundTrip, EveryLevelDecodes) {
    const std::string input = sample(20'000);
    for (const int level : {1, 5, 9, 11, 19, 99}) {
        std::string out;
        ASSERT_TRUE(encode_all(GetParam(), level, input, out)) << level;
        decoder d(GetParam());
        EXPECT_EQ(d.feed(out), input) << level;
    }
}

INSTANTIATE_TEST_SUITE_P(Codings, EncoderRoundTrip,
                         ::testing::Values(content_coding::gzip, content_coding::zstd,
                                           content_coding::br),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(ContentEncoder, IdentityHasNoEncoder) {
    EXPECT_EQ(make_encoder(content_coding::identity, 0), nullptr);
}

}  // namespace
}  // namespace spindle::encode

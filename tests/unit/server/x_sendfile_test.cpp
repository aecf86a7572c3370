#include "server/http/x_sendfile.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace spindle::server {
namespace {

namespace fs = std::filesystem;

TEST(XSendfileHandoff, NoneWithoutTheFields) {
    EXPECT_FALSE(take_file_handoff({{"Content-Type", "text/html"}, {"X-Other", "/a"}}));
    // An empty value names nothing.
    EXPECT_FALSE(take_file_handoff({{"X-Sendfile", "  "}}));
}

TEST(XSendfileHandoff, KeepsTheScriptsHeadersButFramingAndValidators) {
    const auto handoff = take_file_handoff({{"Content-Type", "application/pdf"},
                                            {"Content-Length", "12"},
                                            {"x-sendfile", " /srv/files/a.pdf "},
                                            {"Content-Disposition", "attachment"},
                                            {"ETag", "\"x\""},
                                            {"Last-Modified", "yesterday"},
                                            {"Accept-Ranges", "bytes"},
                                            {"X-Accel-Buffering", "no"},
                                            {"Set-Cookie", "a=1"},
                                            {"Set-Cookie", "b=2"}});
    ASSERT_TRUE(handoff);
    EXPECT_EQ(handoff->target, "/srv/files/a.pdf");
    EXPECT_FALSE(handoff->is_accel_redirect);
    EXPECT_EQ(handoff->content_type, "application/pdf");
    EXPECT_EQ(handoff->headers,
              "Content-Disposition: attachment\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n");
}

TEST(XSendfileHandoff, PhpsDefaultTypeLeavesTheChoiceToTheExtension) {
    const auto handoff = take_file_handoff(
        {{"Content-type", "text/html; charset=UTF-8"}, {"X-Accel-Redirect", "/p/a.txt"}});
    ASSERT_TRUE(handoff);
    EXPECT_TRUE(handoff->is_accel_redirect);
    EXPECT_EQ(handoff->content_type, "");
    EXPECT_EQ(handoff->headers, "");
}

TEST(XSendfileHandoff, XSendfileWinsOverXAccelRedirect) {
    const auto handoff =
        take_file_handoff({{"X-Sendfile", "/srv/a"}, {"X-Accel-Redirect", "/p/b"}});
    ASSERT_TRUE(handoff);
    EXPECT_EQ(handoff->target, "/srv/a");
    EXPECT_FALSE(handoff->is_accel_redirect);
}

TEST(XSendfileHandoff, DropsTheFieldsFromAHeadThatIsNotHandedOff) {
    std::vector<sapi::header> headers{
        {"X-Sendfile", "/a"}, {"Content-Type", "text/plain"}, {"x-accel-redirect", "/b"}};
    drop_handoff_fields(headers);
    ASSERT_EQ(headers.size(), 1u);
    EXPECT_EQ(headers[0].name, "Content-Type");
}

TEST(XSendfileRequestHeaders, ReplaceWhatTheClientSent) {
    config::x_sendfile_config config;
    config.roots = {"/srv/files"};
    config.accel_redirect = {{"/private/", "/srv/private"}, {"/all/", "/"}};
    std::vector<sapi::header> headers{
        {"Host", "a"}, {"x-sendfile-type", "X-Spoofed"}, {"X-Accel-Mapping", "/=/"}};
    set_x_sendfile_request_headers(config, headers);
    ASSERT_EQ(headers.size(), 3u);
    EXPECT_EQ(headers[0].name, "Host");
    EXPECT_EQ(headers[1].name, "X-Sendfile-Type");
    EXPECT_EQ(headers[1].value, "X-Sendfile");
    EXPECT_EQ(headers[2].name, "X-Accel-Mapping");
    EXPECT_EQ(headers[2].value, "/srv/private/=/private/, /=/all/");

    config.roots.clear();
    config.accel_redirect.resize(1);
    headers.clear();
    set_x_sendfile_request_headers(config, headers);
    ASSERT_EQ(headers.size(), 2u);
    EXPECT_EQ(headers[0].value, "X-Accel-Redirect");
}

// A directory tree with an allowed root, a file outside it and links out of it.
class XSendfileOpen : public ::testing::Test {
  protected:
    void SetUp() override {
        base_ = fs::temp_directory_path() / ("spindle-x-sendfile-" + std::to_string(::getpid()));
        fs::remove_all(base_);
        fs::create_directories(base_ / "root" / "sub");
        fs::create_directories(base_ / "outside");
        std::ofstream(base_ / "root" / "a.txt") << "allowed";
        std::ofstream(base_ / "outside" / "secret.txt") << "secret";
        fs::create_symlink(base_ / "outside" / "secret.txt", base_ / "root" / "escape.txt");
        fs::create_symlink(base_ / "root" / "a.txt", base_ / "root" / "inside-link.txt");
        config_.roots = {fs::canonical(base_ / "root").string()};
        config_.accel_redirect = {{"/private/", config_.roots[0]}};
    }
    void TearDown() override { fs::remove_all(base_); }

    handoff_file open(const std::string& target, bool accel = false) {
        file_handoff handoff;
        handoff.target = target;
        handoff.is_accel_redirect = accel;
        handoff_file file = open_handoff_file(config_, handoff);
        if (file.fd >= 0) {
            ::close(file.fd);
        }
        return file;
    }

    std::string root() const { return config_.roots[0]; }

    fs::path base_;
    config::x_sendfile_config config_;
};

TEST_F(XSendfileOpen, OpensFilesInsideTheRoot) {
    EXPECT_EQ(open(root() + "/a.txt").status, 0);
    EXPECT_EQ(open(root() + "/inside-link.txt").status, 0);
    const handoff_file accel = open("/private/a.txt?download=1", true);
    EXPECT_EQ(accel.status, 0);
    EXPECT_EQ(accel.name, root() + "/a.txt");
}

TEST_F(XSendfileOpen, RefusesEscapesWith403) {
    EXPECT_EQ(open(fs::canonical(base_ / "outside" / "secret.txt").string()).status, 403);
    EXPECT_EQ(open(root() + "/../outside/secret.txt").status, 403);
    EXPECT_EQ(open(root() + "/escape.txt").status, 403);
    EXPECT_EQ(open(root() + "/sub").status, 403);
    EXPECT_EQ(open(root()).status, 403);
    // A sibling whose name starts like the root is not inside it.
    EXPECT_EQ(open(root() + "-other/a.txt").status, 403);
    EXPECT_EQ(open("/private/../../outside/secret.txt", true).status, 403);
    EXPECT_EQ(open("/private/escape.txt", true).status, 403);
}

TEST_F(XSendfileOpen, MissingOrUnmappedIs404) {
    EXPECT_EQ(open(root() + "/missing.txt").status, 404);
    EXPECT_EQ(open(root() + "/a.txt/x").status, 404);
    EXPECT_EQ(open("a.txt").status, 404);
    EXPECT_EQ(open("/elsewhere/a.txt", true).status, 404);
    EXPECT_EQ(open("/private/missing.txt", true).status, 404);
}

}  // namespace
}  // namespace spindle::server

#include "server/tls/tls_certificates.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "config/config_error.hpp"
#include "server/tls/local_certificate.hpp"

// The certificates come from write_local_certificate (spindle cert), so these also check that
// what it writes is what a TLS listener accepts.

namespace spindle::server {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TlsCertificates : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("spindle-tls-test-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    local_certificate_files make(const std::string& name) {
        return write_local_certificate((dir_ / name).string(), {"localhost", "127.0.0.1"});
    }

    static tls_site_certificate site(const local_certificate_files& files, std::string key = {}) {
        tls_site_certificate s;
        s.files.certificate = files.certificate;
        s.files.key = key.empty() ? files.key : key;
        s.files.origin = {"Caddyfile", 7, ""};
        return s;
    }

    std::string error_of(const std::vector<tls_site_certificate>& sites) {
        try {
            tls_certificates certificates(sites, config::http_protocols{});
        } catch (const config::config_error& e) {
            return e.what();
        }
        ADD_FAILURE() << "no config_error";
        return {};
    }

    fs::path dir_;
};

TEST_F(TlsCertificates, LoadsWhatSpindleCertWrites) {
    const local_certificate_files files = make("one");
    EXPECT_EQ(fs::status(files.key).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write);
    const tls_certificates certificates({site(files)}, config::http_protocols{});
    EXPECT_NE(certificates.default_context().native_handle(), nullptr);
}

TEST_F(TlsCertificates, AMismatchedKeyNamesBothFilesAtTheSetting) {
    const local_certificate_files one = make("one");
    const local_certificate_files two = make("two");
    EXPECT_EQ(error_of({site(one, two.key)}), "Caddyfile:7: private key " + two.key +
                                                  " does not match certificate " + one.certificate);
}

TEST_F(TlsCertificates, AnUnreadableFileIsAConfigError) {
    const local_certificate_files one = make("one");
    EXPECT_THAT(error_of({site(one, (dir_ / "missing.key").string())}),
                HasSubstr("Caddyfile:7: cannot use private key"));
    tls_site_certificate broken = site(one);
    broken.files.certificate = one.key;  // a key where the certificate should be
    EXPECT_THAT(error_of({broken}), HasSubstr("Caddyfile:7: cannot use certificate"));
}

TEST_F(TlsCertificates, ReloadKeepsTheOldSetWhenAFileBreaks) {
    const local_certificate_files one = make("one");
    tls_certificate_store store({site(one)}, config::http_protocols{});
    const auto before = store.current();
    EXPECT_EQ(store.reload(), std::nullopt);
    const auto after = store.current();
    EXPECT_NE(after, before);
    fs::resize_file(one.certificate, 10);
    const std::optional<std::string> error = store.reload();
    ASSERT_TRUE(error.has_value());
    EXPECT_THAT(*error, HasSubstr(one.certificate));
    EXPECT_EQ(store.current(), after);
}

TEST_F(TlsCertificates, LocalCertificateNeverOverwrites) {
    const local_certificate_files one = make("one");
    EXPECT_THROW(make("one"), std::runtime_error);
    EXPECT_TRUE(fs::exists(one.certificate));
}

}  // namespace
}  // namespace spindle::server

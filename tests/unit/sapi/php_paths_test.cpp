#include "sapi/php_paths.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace spindle::sapi {
namespace {

namespace fs = std::filesystem;

// A fresh folder under the test's temporary directory, removed at the end.
class PhpPaths : public ::testing::Test {
  protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() /
                ("spindle-php-paths-" + std::to_string(::getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(root_);
        fs::create_directories(root_ / "bin");
    }
    void TearDown() override { fs::remove_all(root_); }
    void touch(const fs::path& file) {
        fs::create_directories(file.parent_path());
        std::ofstream(file) << "";
    }
    fs::path root_;
};

TEST_F(PhpPaths, BuildTreeKeepsTheCompiledInExtensionDir) {
    const php_paths paths = php_paths_for(root_ / "build" / "spindle", "/cache/php/extensions");
    EXPECT_EQ(paths.extension_dir, "/cache/php/extensions");
    EXPECT_FALSE(paths.ini_dir);
    EXPECT_FALSE(paths.scan_dir);
}

TEST_F(PhpPaths, InstalledTreeIsFoundBesideTheBinary) {
    touch(root_ / "lib" / "spindle" / "extensions" / "opcache.so");
    const php_paths paths = php_paths_for(root_ / "bin" / "spindle", "/cache/php/extensions");
    EXPECT_EQ(paths.extension_dir, (root_ / "lib" / "spindle" / "extensions").string());
    EXPECT_EQ(paths.ini_dir, (root_ / "etc" / "spindle").string());
    EXPECT_EQ(paths.scan_dir, (root_ / "etc" / "spindle" / "conf.d").string());
}

TEST_F(PhpPaths, AnExtensionFolderWithoutOpcacheIsNotAnInstalledTree) {
    fs::create_directories(root_ / "lib" / "spindle" / "extensions");
    const php_paths paths = php_paths_for(root_ / "bin" / "spindle", "/cache/php/extensions");
    EXPECT_EQ(paths.extension_dir, "/cache/php/extensions");
    EXPECT_FALSE(paths.ini_dir);
}

TEST(IniScanDirScope, SetsTheInstalledScanDirOnlyWhileItLives) {
    ::unsetenv("PHP_INI_SCAN_DIR");
    const php_paths paths{"/x/extensions", "/x/etc", "/x/etc/conf.d"};
    {
        ini_scan_dir_scope scope(paths);
        ASSERT_NE(std::getenv("PHP_INI_SCAN_DIR"), nullptr);
        EXPECT_STREQ(std::getenv("PHP_INI_SCAN_DIR"), "/x/etc/conf.d");
    }
    EXPECT_EQ(std::getenv("PHP_INI_SCAN_DIR"), nullptr);
}

TEST(IniScanDirScope, LeavesTheOperatorsScanDirAlone) {
    ::setenv("PHP_INI_SCAN_DIR", "/operator/conf.d", 1);
    {
        ini_scan_dir_scope scope(php_paths{"/x/extensions", "/x/etc", "/x/etc/conf.d"});
        EXPECT_STREQ(std::getenv("PHP_INI_SCAN_DIR"), "/operator/conf.d");
    }
    EXPECT_STREQ(std::getenv("PHP_INI_SCAN_DIR"), "/operator/conf.d");
    ::unsetenv("PHP_INI_SCAN_DIR");
}

}  // namespace
}  // namespace spindle::sapi

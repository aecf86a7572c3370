#include "server/http/spill_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "server/http/memory_budget.hpp"

namespace spindle::server {
namespace {

TEST(SpillFile, ReadsBackRangesWrittenAtOffsets) {
    auto file = spill_file::create();
    ASSERT_TRUE(file);
    ASSERT_FALSE(file->write_at(0, "hello world"));
    ASSERT_FALSE(file->write_at(11, "!"));
    char buffer[16] = {};
    EXPECT_EQ(file->read_at(6, buffer, 6), 6);
    EXPECT_EQ(std::string(buffer, 6), "world!");
    // Rewound: the start is written again, the rest stays.
    ASSERT_FALSE(file->write_at(0, "HELLO"));
    EXPECT_EQ(file->read_at(0, buffer, 12), 12);
    EXPECT_EQ(std::string(buffer, 12), "HELLO world!");
}

TEST(SpillFile, LeavesNoNameInTheDirectory) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("spill-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const char* previous = std::getenv("TMPDIR");
    const std::string saved = previous != nullptr ? previous : "";
    ::setenv("TMPDIR", dir.c_str(), 1);
    {
        auto file = spill_file::create();
        ASSERT_TRUE(file);
        ASSERT_FALSE(file->write_at(0, "data"));
        EXPECT_TRUE(std::filesystem::is_empty(dir));
    }
    if (previous != nullptr) {
        ::setenv("TMPDIR", saved.c_str(), 1);
    } else {
        ::unsetenv("TMPDIR");
    }
    std::filesystem::remove_all(dir);
}

TEST(SpillFile, CreateFailsInAMissingDirectory) {
    const char* previous = std::getenv("TMPDIR");
    const std::string saved = previous != nullptr ? previous : "";
    ::setenv("TMPDIR", "/nonexistent/spindle-spill-test", 1);
    EXPECT_FALSE(spill_file::create());
    if (previous != nullptr) {
        ::setenv("TMPDIR", saved.c_str(), 1);
    } else {
        ::unsetenv("TMPDIR");
    }
}

TEST(MemoryBudget, TryTakeStaysWithinTheLimitAndTakeDoesNot) {
    memory_budget budget(100);
    EXPECT_TRUE(budget.try_take(60));
    EXPECT_FALSE(budget.try_take(41));
    EXPECT_TRUE(budget.try_take(40));
    EXPECT_FALSE(budget.try_take(1));
    EXPECT_EQ(budget.used(), 100u);
    budget.take(50);  // what cannot go elsewhere is held whatever the total
    EXPECT_EQ(budget.used(), 150u);
    budget.give_back(150);
    EXPECT_EQ(budget.used(), 0u);
    EXPECT_FALSE(budget.try_take(101));
}

}  // namespace
}  // namespace spindle::server

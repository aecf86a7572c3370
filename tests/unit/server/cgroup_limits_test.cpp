#include "server/process/cgroup_limits.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace spindle::server {
namespace {

namespace fs = std::filesystem;

// A fake cgroup file system in a fresh folder, removed at the end.
class CgroupLimits : public ::testing::Test {
  protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() /
                ("spindle-cgroup-" + std::to_string(::getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(root_);
        fs::create_directories(root_);
    }
    void TearDown() override { fs::remove_all(root_); }
    void write(const fs::path& relative, const std::string& text) {
        fs::create_directories((root_ / relative).parent_path());
        std::ofstream(root_ / relative) << text;
    }
    fs::path root_;
};

TEST_F(CgroupLimits, V2ReadsCpuMaxAndMemoryMaxOfTheProcesssCgroup) {
    write("cgroup.controllers", "cpu memory\n");
    write("system.slice/app.service/cpu.max", "150000 100000\n");
    write("system.slice/app.service/memory.max", "1073741824\n");
    const cgroup_limits limits = read_cgroup_limits(root_, "0::/system.slice/app.service\n");
    ASSERT_TRUE(limits.cpus);
    EXPECT_DOUBLE_EQ(*limits.cpus, 1.5);
    EXPECT_EQ(limits.memory_bytes, 1073741824u);
}

TEST_F(CgroupLimits, V2MaxMeansNoLimit) {
    write("cgroup.controllers", "cpu memory\n");
    write("cpu.max", "max 100000\n");
    write("memory.max", "max\n");
    const cgroup_limits limits = read_cgroup_limits(root_, "0::/\n");
    EXPECT_FALSE(limits.cpus);
    EXPECT_FALSE(limits.memory_bytes);
}

TEST_F(CgroupLimits, V2AncestorsLimitTooAndTheSmallestWins) {
    write("cgroup.controllers", "cpu memory\n");
    write("kubepods/cpu.max", "200000 100000\n");
    write("kubepods/pod1/cpu.max", "max 100000\n");
    write("kubepods/pod1/memory.max", "536870912\n");
    write("kubepods/memory.max", "1073741824\n");
    const cgroup_limits limits = read_cgroup_limits(root_, "0::/kubepods/pod1\n");
    EXPECT_DOUBLE_EQ(limits.cpus.value_or(0), 2.0);
    EXPECT_EQ(limits.memory_bytes, 536870912u);
}

TEST_F(CgroupLimits, V2PathHiddenByANamespaceFallsBackToTheRoot) {
    // Inside a container /proc/self/cgroup may name the host's path, which is not mounted here.
    write("cgroup.controllers", "cpu memory\n");
    write("cpu.max", "50000 100000\n");
    const cgroup_limits limits = read_cgroup_limits(root_, "0::/docker/abc123\n");
    EXPECT_DOUBLE_EQ(limits.cpus.value_or(0), 0.5);
}

TEST_F(CgroupLimits, V1ReadsCfsQuotaAndMemoryLimit) {
    write("cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "300000\n");
    write("cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
    write("memory/docker/abc/memory.limit_in_bytes", "268435456\n");
    const cgroup_limits limits =
        read_cgroup_limits(root_, "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n");
    EXPECT_DOUBLE_EQ(limits.cpus.value_or(0), 3.0);
    EXPECT_EQ(limits.memory_bytes, 268435456u);
}

TEST_F(CgroupLimits, V1MinusOneAndHugeValuesMeanNoLimit) {
    write("cpu/cpu.cfs_quota_us", "-1\n");
    write("cpu/cpu.cfs_period_us", "100000\n");
    write("memory/memory.limit_in_bytes", "9223372036854771712\n");
    const cgroup_limits limits = read_cgroup_limits(root_, "3:cpu:/\n5:memory:/\n");
    EXPECT_FALSE(limits.cpus);
    EXPECT_FALSE(limits.memory_bytes);
}

TEST_F(CgroupLimits, NoFilesMeansNoLimit) {
    const cgroup_limits limits = read_cgroup_limits(root_, "0::/user.slice\n");
    EXPECT_FALSE(limits.cpus);
    EXPECT_FALSE(limits.memory_bytes);
}

TEST(AvailableCpus, QuotaRoundsUpAndNeverRaisesTheMachinesCount) {
    EXPECT_EQ(available_cpus(32, cgroup_limits{}), 32u);
    EXPECT_EQ(available_cpus(32, cgroup_limits{1.5, std::nullopt}), 2u);
    EXPECT_EQ(available_cpus(32, cgroup_limits{0.25, std::nullopt}), 1u);
    EXPECT_EQ(available_cpus(4, cgroup_limits{16.0, std::nullopt}), 4u);
    EXPECT_EQ(available_cpus(0, cgroup_limits{}), 1u);
}

TEST(MemoryWarning, OnlyWhenTheThreadsCouldOutgrowTheCgroup) {
    constexpr std::int64_t mib = 1024 * 1024;
    const cgroup_limits gib{std::nullopt, 1024 * mib};
    EXPECT_FALSE(memory_warning(8, 128 * mib, gib));
    EXPECT_FALSE(memory_warning(64, 128 * mib, cgroup_limits{}));
    EXPECT_FALSE(memory_warning(64, -1, gib));
    const auto warning = memory_warning(64, 128 * mib, gib);
    ASSERT_TRUE(warning);
    EXPECT_NE(warning->find("64 PHP threads x memory_limit 128 MiB = 8192 MiB exceeds the "
                            "cgroup's memory limit of 1024 MiB"),
              std::string::npos)
        << *warning;
}

TEST(AutomaticMaxThreads, AsManyAsTheMemoryHoldsAtMemoryLimit) {
    constexpr std::uint64_t mib = 1024 * 1024;
    // 4 GiB: at most 256 threads of 16 MiB before PHP's settings are known, 32 at 128M.
    const std::size_t bound = automatic_thread_bound(4, 4096 * mib);
    EXPECT_EQ(bound, 256u);
    EXPECT_EQ(automatic_max_threads(4, 128 * mib, 4096 * mib, bound), 32u);
    // Never below num_threads, never above the bound; unlimited memory_limit: 2 x num_threads.
    EXPECT_EQ(automatic_max_threads(40, 128 * mib, 4096 * mib, bound), 40u);
    EXPECT_EQ(automatic_max_threads(4, 1 * mib, 4096 * mib, bound), 256u);
    EXPECT_EQ(automatic_max_threads(4, -1, 4096 * mib, bound), 8u);
    EXPECT_EQ(automatic_thread_bound(4, 1ULL << 50), 512u);
    EXPECT_EQ(automatic_thread_bound(8, 16 * mib), 8u);
}

}  // namespace
}  // namespace spindle::server

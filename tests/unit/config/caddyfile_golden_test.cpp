#include "config/caddyfile_adapter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "config/config_error.hpp"
#include "config/json_config.hpp"
#include "config/resolve_config.hpp"

// Golden tests: every tests/fixtures/config/NAME.Caddyfile is adapted and its document compared
// with NAME.json beside it, byte for byte as `spindle adapt` prints it. The warnings the adapter
// gives are compared with NAME.warnings (one per line; no file: no warnings). To write the
// expected files from the current adapter, run the tests with SPINDLE_UPDATE_GOLDEN=1 and read
// the diff before committing it.

namespace spindle::config {
namespace {

namespace fs = std::filesystem;

const fs::path source_dir{SPINDLE_SOURCE_DIR};
// Fixture names are given relative to the source tree, so messages and imports do not depend
// on where the tree is checked out.
const fs::path fixture_dir{"tests/fixtures/config"};

/// Reads a file of the source tree; `path` is relative to it (or absolute). Throws config_error
/// like the real reader, so a missing import reads as it would in `spindle adapt`.
std::string read_source_file(const std::string& path) {
    std::ifstream in(source_dir / path, std::ios::binary);
    if (!in) {
        throw config_error("cannot read", path, 0);
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The files of a folder of the source tree (glob imports); `folder` is relative to it.
std::vector<std::string> list_source_folder(const std::string& folder) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(source_dir / folder, ec)) {
        if (entry.is_regular_file()) {
            names.push_back(entry.path().filename().string());
        }
    }
    return names;
}

/// The environment every fixture sees: placeholders give the same document on every machine.
std::optional<std::string> fixture_env(const std::string& name) {
    static const std::map<std::string, std::string> values{
        {"APP_ENV", "prod"},        {"APP_SECRET", "s3cr3t"},
        {"DB_HOST", "db.internal"}, {"SERVER_NAME", "shop.example.test"},
        {"SITE_PORT", "8081"},
    };
    const auto found = values.find(name);
    if (found == values.end()) {
        return std::nullopt;
    }
    return found->second;
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

/// A unified-style line diff (longest common subsequence; the files are small): " " for lines
/// both have, "-" for expected only, "+" for actual only, with up to 3 lines of context.
std::string line_diff(const std::string& expected, const std::string& actual) {
    const std::vector<std::string> a = split_lines(expected);
    const std::vector<std::string> b = split_lines(actual);
    std::vector<std::vector<std::size_t>> common(a.size() + 1,
                                                 std::vector<std::size_t>(b.size() + 1, 0));
    for (std::size_t i = a.size(); i-- > 0;) {
        for (std::size_t j = b.size(); j-- > 0;) {
            common[i][j] = a[i] == b[j] ? common[i + 1][j + 1] + 1
                                        : std::max(common[i + 1][j], common[i][j + 1]);
        }
    }
    struct line {
        char mark;
        std::string text;
    };
    std::vector<line> lines;
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < a.size() || j < b.size()) {
        if (i < a.size() && j < b.size() && a[i] == b[j]) {
            lines.push_back({' ', a[i++]});
            ++j;
        } else if (i < a.size() && (j == b.size() || common[i + 1][j] >= common[i][j + 1])) {
            lines.push_back({'-', a[i++]});
        } else {
            lines.push_back({'+', b[j++]});
        }
    }
    // Print changed lines and their context; "..." stands for the unchanged lines between.
    constexpr std::size_t context = 3;
    std::vector<bool> shown(lines.size(), false);
    for (std::size_t k = 0; k < lines.size(); ++k) {
        if (lines[k].mark != ' ') {
            const std::size_t from = k >= context ? k - context : 0;
            const std::size_t to = std::min(lines.size(), k + context + 1);
            std::fill(shown.begin() + static_cast<std::ptrdiff_t>(from),
                      shown.begin() + static_cast<std::ptrdiff_t>(to), true);
        }
    }
    std::string out = "--- expected\n+++ actual\n";
    for (std::size_t k = 0; k < lines.size(); ++k) {
        if (shown[k]) {
            out += std::string(1, lines[k].mark) + lines[k].text + "\n";
        } else if (k == 0 || shown[k - 1]) {
            out += "...\n";
        }
    }
    return out;
}

/// The golden fixtures, sorted so test names and order are stable. Called while tests are
/// registered, before main: a missing folder gives no fixtures (and a failing count test)
/// rather than an exception there.
std::vector<std::string> fixture_names() {
    std::vector<std::string> names;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(source_dir / fixture_dir, ec)) {
        if (entry.is_regular_file() && entry.path().extension() == ".Caddyfile") {
            names.push_back(entry.path().stem().string());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::optional<std::string> read_if_exists(const fs::path& path) {
    if (!fs::exists(source_dir / path)) {
        return std::nullopt;
    }
    return read_source_file(path.string());
}

void write_source_file(const fs::path& path, const std::string& text) {
    std::ofstream out(source_dir / path, std::ios::binary | std::ios::trunc);
    out << text;
}

class CaddyfileGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(CaddyfileGolden, AdaptsToExpectedJson) {
    const fs::path caddyfile = fixture_dir / (GetParam() + ".Caddyfile");
    const fs::path expected_json = fixture_dir / (GetParam() + ".json");
    const fs::path expected_warnings = fixture_dir / (GetParam() + ".warnings");

    adapted_caddyfile adapted;
    try {
        adapted = adapt_caddyfile(read_source_file(caddyfile.string()), caddyfile.string(),
                                  fixture_env, read_source_file, list_source_folder);
    } catch (const config_error& e) {
        FAIL() << "adapting " << caddyfile << " failed: " << e.what();
    }
    const std::string actual = adapted.document.dump(2) + "\n";
    std::string warnings;
    for (const std::string& warning : adapted.warnings) {
        warnings += warning + "\n";
    }

    if (std::getenv("SPINDLE_UPDATE_GOLDEN") != nullptr) {
        write_source_file(expected_json, actual);
        if (warnings.empty()) {
            fs::remove(source_dir / expected_warnings);
        } else {
            write_source_file(expected_warnings, warnings);
        }
    }

    const std::optional<std::string> expected = read_if_exists(expected_json);
    ASSERT_TRUE(expected.has_value()) << expected_json << " is missing; the adapter gives:\n"
                                      << actual;
    if (*expected != actual) {
        ADD_FAILURE() << caddyfile << " does not adapt to " << expected_json << ":\n"
                      << line_diff(*expected, actual);
    }
    const std::string expected_warning_text = read_if_exists(expected_warnings).value_or("");
    if (expected_warning_text != warnings) {
        ADD_FAILURE() << "the warnings of " << caddyfile << " differ from " << expected_warnings
                      << ":\n"
                      << line_diff(expected_warning_text, warnings);
    }

    // The document must also be a valid configuration, both as adapted (errors located through
    // the source map) and read back from the JSON text, as `spindle run --config x.json` would.
    try {
        config_from_json(adapted.document, caddyfile.string(), adapted.sources);
        config_from_json(read_json_file(*expected, expected_json.string()), expected_json.string());
    } catch (const config_error& e) {
        ADD_FAILURE() << "the adapted document is not a valid configuration: " << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CaddyfileGolden, ::testing::ValuesIn(fixture_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param;
                             std::replace_if(
                                 name.begin(), name.end(),
                                 [](unsigned char c) { return std::isalnum(c) == 0; }, '_');
                             return name;
                         });

TEST(CaddyfileGolden, EveryFixtureHasItsExpectedJson) {
    const std::vector<std::string> names = fixture_names();
    EXPECT_GE(names.size(), 12u);
    for (const fs::directory_entry& entry : fs::directory_iterator(source_dir / fixture_dir)) {
        const std::string extension = entry.path().extension().string();
        if (extension == ".json" || extension == ".warnings") {
            EXPECT_TRUE(fs::exists(fs::path(entry.path()).replace_extension(".Caddyfile")))
                << entry.path() << " has no .Caddyfile beside it";
        }
    }
}

// Caddyfile.example at the top of the tree is what people copy: it must adapt and validate,
// and its root and worker must exist in the tree.
TEST(CaddyfileGolden, ExampleAtTopLevelIsValid) {
    const std::string file = "Caddyfile.example";
    const auto no_env = [](const std::string&) -> std::optional<std::string> {
        return std::nullopt;
    };
    try {
        const adapted_caddyfile adapted = adapt_caddyfile(read_source_file(file), file, no_env,
                                                          read_source_file, list_source_folder);
        EXPECT_TRUE(adapted.warnings.empty()) << adapted.warnings.front();
        server_config config = config_from_json(adapted.document, file, adapted.sources);
        ASSERT_EQ(config.sites.size(), 1u);
        EXPECT_EQ(config.sites[0].env.front(),
                  (std::pair<std::string, std::string>{"APP_ENV", "production"}));
        // resolve_config reads relative paths against the current directory, which for
        // `spindle validate` is the top of the tree.
        for (site_config& site : config.sites) {
            site.root = (source_dir / site.root).string();
            for (worker_config& worker : site.workers) {
                worker.file = (source_dir / worker.file).string();
            }
        }
        resolve_config(config, 4);
        EXPECT_EQ(fs::path(config.sites[0].workers.at(0).file),
                  fs::canonical(source_dir / "examples/worker/index.php"));
    } catch (const config_error& e) {
        FAIL() << file << ": " << e.what();
    }
}

}  // namespace
}  // namespace spindle::config

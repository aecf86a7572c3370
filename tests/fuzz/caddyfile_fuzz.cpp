// libFuzzer target: arbitrary bytes through the Caddyfile front end (lex, parse, a dispenser
// over every segment, then the adapter and the JSON validation that `spindle run` applies). A
// config_error is the expected answer to bad input; any other exception, a crash, a sanitizer
// report or a broken invariant below is a bug. Run it with scripts/fuzz.sh.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/caddyfile_adapter.hpp"
#include "config/caddyfile_dispenser.hpp"
#include "config/caddyfile_lexer.hpp"
#include "config/config_error.hpp"
#include "config/json_config.hpp"

namespace {

using spindle::config::config_error;
using namespace spindle::config::caddyfile;

constexpr const char* file_name = "Caddyfile";

/// Fixed values so a crash reproduces: set, empty, spaced, a brace and a placeholder.
std::optional<std::string> fixed_env(const std::string& name) {
    if (name == "HOST") {
        return "example.test";
    }
    if (name == "EMPTY") {
        return "";
    }
    if (name == "SPACED") {
        return "a b  c";
    }
    if (name == "BRACE") {
        return "{";
    }
    if (name == "PLACEHOLDER") {
        return "{$HOST} {args[0]}";
    }
    return std::nullopt;
}

/// Imports of files must fail cleanly; snippets are still expanded.
std::string no_files(const std::string& path) {
    throw config_error("files are not read while fuzzing", path, 0);
}

void check(bool holds, const char* what) {
    if (!holds) {
        std::fprintf(stderr, "caddyfile_fuzz: invariant broken: %s\n", what);
        std::abort();
    }
}

/// Every error names the one file there is and a line inside it.
void check_place(const config_error& error, std::size_t lines) {
    check(error.file().has_value() && *error.file() == file_name, "error without the file");
    check(error.line() >= 1 && error.line() <= lines, "error line outside the file");
}

/// Walks a directive the way an adapter does: its arguments, then every block it opens.
void walk(dispenser& d, std::size_t lines, int depth) {
    d.remaining_args();
    check(!d.next_is_arg(), "arguments left after remaining_args");
    check_place(d.arg_error(), lines);
    // Deeper blocks are left to next_block, which passes over what is not entered.
    if (depth > 32) {
        return;
    }
    for (const std::size_t nesting = d.nesting(); d.next_block(nesting);) {
        check(d.nesting() == nesting + 1, "next_block stopped outside its block");
        check(d.current().quoted || (d.val() != "{" && d.val() != "}"),
              "next_block stopped on a brace");
        walk(d, lines, depth + 1);
    }
}

void check_segment(const segment& seg, std::size_t lines) {
    check(!seg.tokens.empty(), "empty segment");
    long depth = 0;
    for (const token& t : seg.tokens) {
        check(t.file == file_name && t.line >= 1 && t.line <= lines, "token outside the file");
        check(t.quoted || !t.text.empty(), "empty unquoted token");
        if (!t.quoted && t.text == "{") {
            ++depth;
        } else if (!t.quoted && t.text == "}") {
            --depth;
            check(depth >= 0, "segment closes a block it did not open");
        }
    }
    check(depth == 0, "segment leaves a block open");

    dispenser d(seg.tokens);
    check(d.next(), "segment has no directive");
    walk(d, lines, 0);
}

void fuzz_lex(std::string_view text, std::size_t lines) {
    try {
        const std::vector<token> tokens = lex(text, file_name, fixed_env);
        std::size_t previous = 1;
        for (const token& t : tokens) {
            check(t.line >= previous && t.line <= lines, "lex: token line out of order or range");
            previous = t.line;
        }
        // A dispenser over a whole file's tokens, braces unbalanced or not, must not trip.
        dispenser d(tokens);
        while (d.next()) {
            walk(d, lines, 0);
        }
    } catch (const config_error& error) {
        check_place(error, lines);
    }
}

void fuzz_parse(std::string_view text, std::size_t lines) {
    try {
        const std::vector<server_block> blocks = parse(text, file_name, fixed_env, no_files);
        for (std::size_t i = 0; i < blocks.size(); ++i) {
            check(!blocks[i].global_options || i == 0, "global options after the first block");
            check(blocks[i].global_options || !blocks[i].keys.empty(), "site without keys");
            for (const token& key : blocks[i].keys) {
                check(key.line >= 1 && key.line <= lines, "key outside the file");
            }
            for (const segment& seg : blocks[i].segments) {
                check_segment(seg, lines);
            }
        }
    } catch (const config_error& error) {
        check_place(error, lines);
    }
}

// What a Caddyfile becomes must be a document config_from_json either accepts or refuses with
// a config_error; an error found there still names a place in the file, through the map.
void fuzz_adapt(std::string_view text, std::size_t lines) {
    spindle::config::adapted_caddyfile adapted;
    try {
        adapted = spindle::config::adapt_caddyfile(text, file_name, fixed_env, no_files);
    } catch (const config_error& error) {
        // Line 0 is the file as a whole ("has no site block").
        check(error.file().has_value() && *error.file() == file_name, "error without the file");
        check(error.line() <= lines, "error line outside the file");
        return;
    }
    for (const auto& [pointer, where] : adapted.sources) {
        check(where.file == file_name && where.line >= 1 && where.line <= lines,
              "source map entry outside the file");
    }
    try {
        spindle::config::config_from_json(adapted.document, file_name, adapted.sources);
    } catch (const config_error& error) {
        check(error.file().has_value() && *error.file() == file_name, "error without the file");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    fuzz_lex(text, lines);
    fuzz_parse(text, lines);
    fuzz_adapt(text, lines);
    return 0;
}

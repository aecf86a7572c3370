#include "config/caddyfile_lexer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/config_error.hpp"

namespace spindle::config::caddyfile {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

using file_map = std::map<std::string, std::string>;

env_lookup env_of(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
        const auto found = vars.find(name);
        if (found == vars.end()) {
            return std::nullopt;
        }
        return found->second;
    };
}

/// A read_file over an in-memory tree; a missing path throws as the real reader does.
std::function<std::string(const std::string&)> reader(file_map files) {
    return [files = std::move(files)](const std::string& path) {
        const auto found = files.find(path);
        if (found == files.end()) {
            throw config_error("no such file", path, 0);
        }
        return found->second;
    };
}

/// (text, line) of every token of text lexed as "Caddyfile".
std::vector<std::pair<std::string, std::size_t>> words(std::string_view text,
                                                       const env_lookup& env = {}) {
    std::vector<std::pair<std::string, std::size_t>> out;
    for (const token& t : lex(text, "Caddyfile", env)) {
        EXPECT_EQ(t.file, "Caddyfile");
        out.emplace_back(t.text, t.line);
    }
    return out;
}

std::string lex_error(std::string_view text) {
    try {
        lex(text, "Caddyfile", {});
    } catch (const config_error& error) {
        return error.what();
    }
    ADD_FAILURE() << "no config_error for: " << text;
    return {};
}

std::vector<server_block> parse_text(std::string_view text, file_map files = {},
                                     const env_lookup& env = {},
                                     const std::string& file = "Caddyfile") {
    return parse(text, file, env, reader(std::move(files)));
}

std::string parse_error(std::string_view text, file_map files = {},
                        const std::string& file = "Caddyfile") {
    try {
        parse_text(text, std::move(files), {}, file);
    } catch (const config_error& error) {
        return error.what();
    }
    ADD_FAILURE() << "no config_error for: " << text;
    return {};
}

/// "file:line text" for each token, so one expectation checks all three.
std::vector<std::string> placed(const std::vector<token>& tokens) {
    std::vector<std::string> out;
    for (const token& t : tokens) {
        out.push_back(t.file + ":" + std::to_string(t.line) + " " + t.text);
    }
    return out;
}

std::vector<std::string> texts(const std::vector<token>& tokens) {
    std::vector<std::string> out;
    for (const token& t : tokens) {
        out.push_back(t.text);
    }
    return out;
}

// ---- lex ----

TEST(CaddyfileLexer, SplitsOnWhitespaceAndCountsLines) {
    EXPECT_THAT(words("a b\n\tc   d\n\n  e\r\nf"),
                ElementsAre(Pair("a", 1), Pair("b", 1), Pair("c", 2), Pair("d", 2), Pair("e", 4),
                            Pair("f", 5)));
    EXPECT_THAT(words(""), IsEmpty());
    EXPECT_THAT(words(" \n\t\n"), IsEmpty());
}

TEST(CaddyfileLexer, SkipsByteOrderMark) {
    EXPECT_THAT(words("\xEF\xBB\xBFsite {\n}"),
                ElementsAre(Pair("site", 1), Pair("{", 1), Pair("}", 2)));
}

TEST(CaddyfileLexer, BracesAreTheirOwnTokensOnlyAsWholeWords) {
    const std::vector<token> tokens = lex("site {\n\t@a{x} {path} }x \"{\"\n}", "Caddyfile", {});
    EXPECT_THAT(texts(tokens), ElementsAre("site", "{", "@a{x}", "{path}", "}x", "{", "}"));
    EXPECT_FALSE(tokens[1].quoted);
    EXPECT_TRUE(tokens[5].quoted);
}

TEST(CaddyfileLexer, CommentsStartOnlyAtTheStartOfAToken) {
    EXPECT_THAT(words("a#b # a comment \"not a string\n c # x\n# whole line\nd"),
                ElementsAre(Pair("a#b", 1), Pair("c", 2), Pair("d", 4)));
}

TEST(CaddyfileLexer, UnquotesDoubleQuotesWithEscapes) {
    const std::vector<token> tokens =
        lex(R"("a b" "say \"hi\"" "back\\slash" "keep \n and \t" "" x"y")", "Caddyfile", {});
    EXPECT_THAT(texts(tokens),
                ElementsAre("a b", "say \"hi\"", "back\\slash", "keep \\n and \\t", "", "x\"y\""));
    EXPECT_TRUE(tokens[0].quoted);
    EXPECT_TRUE(tokens[4].quoted);
    EXPECT_FALSE(tokens[5].quoted);
}

TEST(CaddyfileLexer, KeepsBackquotedTextRaw) {
    const std::vector<token> tokens = lex(R"(`a "b" \n \`)", "Caddyfile", {});
    ASSERT_EQ(tokens.size(), 1u);
    EXPECT_EQ(tokens[0].text, R"(a "b" \n \)");
    EXPECT_TRUE(tokens[0].quoted);
}

TEST(CaddyfileLexer, MultiLineStringKeepsItsFirstLineAndTheLinesAfterStayExact) {
    EXPECT_THAT(words("a \"x\ny\nz\" b\nc `1\n2`\nd"),
                ElementsAre(Pair("a", 1), Pair("x\ny\nz", 1), Pair("b", 1), Pair("c", 4),
                            Pair("1\n2", 4), Pair("d", 6)));
}

TEST(CaddyfileLexer, BackslashNewlineContinuesTheLine) {
    EXPECT_THAT(words("a \\\n  b\\\n  c \\\r\n  d\ne"),
                ElementsAre(Pair("a", 1), Pair("b", 1), Pair("c", 1), Pair("d", 1), Pair("e", 5)));
}

TEST(CaddyfileLexer, KeepsOtherBackslashes) {
    // "\\" before a newline is an escaped backslash, not a continuation.
    EXPECT_THAT(words("a\\b c\\ d\\\\\ne \\#f"),
                ElementsAre(Pair("a\\b", 1), Pair("c\\", 1), Pair("d\\\\", 1), Pair("e", 2),
                            Pair("\\#f", 2)));
}

TEST(CaddyfileLexer, HeredocStripsTheClosingMarkersIndentation) {
    const std::vector<token> tokens =
        lex("respond <<HTML\n"
            "\t\t<p>hi</p>\n"
            "\t\t  indented\n"
            "\n"
            "\t\t<p>bye</p>\n"
            "\t\tHTML 200\n"
            "next",
            "Caddyfile", {});
    EXPECT_THAT(texts(tokens),
                ElementsAre("respond", "<p>hi</p>\n  indented\n\n<p>bye</p>", "200", "next"));
    EXPECT_TRUE(tokens[1].quoted);
    // What follows the closing marker continues the heredoc's line; the next line is exact.
    EXPECT_EQ(tokens[1].line, 1u);
    EXPECT_EQ(tokens[2].line, 1u);
    EXPECT_EQ(tokens[3].line, 7u);
}

TEST(CaddyfileLexer, HeredocEdgeCases) {
    // Empty, CRLF, unindented, a blank line indented less than the marker, marker at the end.
    EXPECT_THAT(words("a <<EOF\nEOF\nb"), ElementsAre(Pair("a", 1), Pair("", 1), Pair("b", 3)));
    EXPECT_THAT(words("<<EOF\r\n  x\r\n  EOF\r\ny"), ElementsAre(Pair("x", 1), Pair("y", 4)));
    EXPECT_THAT(words("<<END-1\nx\n\ny\nEND-1"), ElementsAre(Pair("x\n\ny", 1)));
    EXPECT_THAT(words("<<EOF\n    x\n  \n    EOF"), ElementsAre(Pair("x\n", 1)));
    // Marker text inside a line, or glued to more text, does not close the heredoc.
    EXPECT_THAT(words("<<EOF\nsay EOF\nEOFS\nEOF"), ElementsAre(Pair("say EOF\nEOFS", 1)));
    // An escaped '<' is no heredoc.
    EXPECT_THAT(words("a \\<<EOF b"), ElementsAre(Pair("a", 1), Pair("<<EOF", 1), Pair("b", 1)));
}

TEST(CaddyfileLexer, RejectsBadHeredocs) {
    EXPECT_EQ(lex_error("a\nrespond <<EOF\n  x\n"),
              "Caddyfile:2: heredoc <<EOF is not closed: no line with EOF before the end of "
              "the file");
    EXPECT_EQ(lex_error("respond <<EOF"),
              "Caddyfile:1: heredoc <<EOF is not closed: no line with EOF before the end of "
              "the file");
    EXPECT_EQ(lex_error("respond <<EOF\n    ok\n  bad\n    EOF"),
              "Caddyfile:3: heredoc <<EOF: line is indented less than the closing marker");
    EXPECT_EQ(lex_error("a\n\trespond <<EOF\n\t\tok\n\t  bad\n\t\tEOF"),
              "Caddyfile:4: heredoc <<EOF: line is indented less than the closing marker");
    EXPECT_EQ(lex_error("x\nrespond <<E F\nE F"),
              "Caddyfile:2: heredoc marker may only hold letters, digits, '-' and '_': 'E F'");
    EXPECT_EQ(lex_error("respond <<\nx"),
              "Caddyfile:1: a heredoc needs a marker after '<<', as in <<END");
    EXPECT_EQ(lex_error("respond <<<EOF\nEOF"),
              "Caddyfile:1: too many '<' for a heredoc: write two, as in <<END");
}

TEST(CaddyfileLexer, RejectsUnterminatedStrings) {
    EXPECT_EQ(lex_error("a\nb \"abc\nd"), "Caddyfile:2: unterminated string: no closing \"");
    EXPECT_EQ(lex_error("a \\\n \"x\\\""), "Caddyfile:2: unterminated string: no closing \"");
    EXPECT_EQ(lex_error("a\n\nb `abc"), "Caddyfile:3: unterminated string: no closing `");
}

TEST(CaddyfileLexer, ReplacesEnvironmentPlaceholdersInsideTokens) {
    const env_lookup env = env_of({{"HOST", "example.test"},
                                   {"GREETING", "hello world"},
                                   {"EMPTY", ""},
                                   {"LOOP", "{$HOST}"}});
    EXPECT_THAT(words("{$HOST} {$UNSET:fallback} {$HOST:unused} {$UNSET:http://a:80}", env),
                ElementsAre(Pair("example.test", 1), Pair("fallback", 1), Pair("example.test", 1),
                            Pair("http://a:80", 1)));
    EXPECT_THAT(words("pre{$HOST}post {env.HOST} {env.UNSET}x {$EMPTY:default} {$LOOP}", env),
                ElementsAre(Pair("preexample.testpost", 1), Pair("example.test", 1), Pair("x", 1),
                            Pair("{$HOST}", 1)));
    // Quoted text, backquotes and heredocs are expanded too.
    EXPECT_THAT(
        words("\"{$GREETING}!\" `{$HOST}` <<EOF\n  {$HOST}\n  EOF", env),
        ElementsAre(Pair("hello world!", 1), Pair("example.test", 1), Pair("example.test", 1)));
}

TEST(CaddyfileLexer, LeavesOtherPlaceholdersAlone) {
    EXPECT_THAT(words("{path} {query} {args[0]} {$} {env.} {$UNCLOSED", env_of({})),
                ElementsAre(Pair("{path}", 1), Pair("{query}", 1), Pair("{args[0]}", 1),
                            Pair("{$}", 1), Pair("{env.}", 1), Pair("{$UNCLOSED", 1)));
}

TEST(CaddyfileLexer, AVariableMayHoldSeveralWordsOrLinesAsInCaddy) {
    // Caddy replaces {$VAR} in the text before splitting it (FrankenPHP's stock Caddyfile puts
    // whole directives in {$CADDY_SERVER_EXTRA_DIRECTIVES}); quoted, the value is one token.
    const env_lookup env = env_of({{"GREETING", "hello world"}, {"OPTIONS", "debug\nadmin off"}});
    EXPECT_THAT(
        words("a {$GREETING} \"{$GREETING}\"", env),
        ElementsAre(Pair("a", 1), Pair("hello", 1), Pair("world", 1), Pair("hello world", 1)));
    EXPECT_THAT(words("{$OPTIONS}\nx", env),
                ElementsAre(Pair("debug", 1), Pair("admin", 2), Pair("off", 2), Pair("x", 3)));
}

TEST(CaddyfileLexer, DropsAnUnquotedTokenLeftEmptyByAnUnsetVariable) {
    EXPECT_THAT(words("a {$UNSET}\n{$UNSET} {env.UNSET}\nb \"{$UNSET}\"", env_of({})),
                ElementsAre(Pair("a", 1), Pair("b", 3), Pair("", 3)));
    // Without a lookup function every variable is unset.
    EXPECT_THAT(words("x {$HOME:home}"), ElementsAre(Pair("x", 1), Pair("home", 1)));
}

// ---- parse ----

TEST(CaddyfileParser, ReadsGlobalOptionsAndSites) {
    const std::vector<server_block> blocks = parse_text(
        "{\n"
        "\tfrankenphp {\n"
        "\t\tworker /app/worker.php 4\n"
        "\t}\n"
        "}\n"
        "\n"
        "example.test {\n"
        "\troot * /srv/public\n"
        "\tphp_server\n"
        "}\n");
    ASSERT_EQ(blocks.size(), 2u);
    EXPECT_TRUE(blocks[0].global_options);
    EXPECT_THAT(blocks[0].keys, IsEmpty());
    ASSERT_EQ(blocks[0].segments.size(), 1u);
    EXPECT_THAT(placed(blocks[0].segments[0].tokens),
                ElementsAre("Caddyfile:2 frankenphp", "Caddyfile:2 {", "Caddyfile:3 worker",
                            "Caddyfile:3 /app/worker.php", "Caddyfile:3 4", "Caddyfile:4 }"));

    EXPECT_FALSE(blocks[1].global_options);
    EXPECT_THAT(placed(blocks[1].keys), ElementsAre("Caddyfile:7 example.test"));
    ASSERT_EQ(blocks[1].segments.size(), 2u);
    EXPECT_THAT(placed(blocks[1].segments[0].tokens),
                ElementsAre("Caddyfile:8 root", "Caddyfile:8 *", "Caddyfile:8 /srv/public"));
    EXPECT_THAT(placed(blocks[1].segments[1].tokens), ElementsAre("Caddyfile:9 php_server"));
}

TEST(CaddyfileParser, OnlyAFirstBlockWithoutKeysIsGlobal) {
    const std::vector<server_block> blocks = parse_text("a.test {\n}\n");
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_FALSE(blocks[0].global_options);

    const std::vector<server_block> empty_global = parse_text("{\n}\n:80 {\n}");
    ASSERT_EQ(empty_global.size(), 2u);
    EXPECT_TRUE(empty_global[0].global_options);
    EXPECT_THAT(empty_global[0].segments, IsEmpty());

    EXPECT_EQ(parse_error("a.test {\n}\n{\n\tdebug\n}"),
              "Caddyfile:3: a block without site addresses must come first: it is the global "
              "options block");
}

TEST(CaddyfileParser, SegmentEndsAtItsLineOrAfterItsBlock) {
    const std::vector<server_block> blocks = parse_text(
        "a.test {\n"
        "\tphp_server /api/* {\n"
        "\t\troot /srv\n"
        "\t\tworker {\n"
        "\t\t\tfile w.php\n"
        "\t\t}\n"
        "\t}\n"
        "\tencode gzip \\\n"
        "\t\tzstd\n"
        "\trespond \"multi\n"
        "line\" 200\n"
        "\tfile_server\n"
        "}");
    ASSERT_EQ(blocks.size(), 1u);
    ASSERT_EQ(blocks[0].segments.size(), 4u);
    EXPECT_THAT(texts(blocks[0].segments[0].tokens),
                ElementsAre("php_server", "/api/*", "{", "root", "/srv", "worker", "{", "file",
                            "w.php", "}", "}"));
    EXPECT_THAT(placed(blocks[0].segments[1].tokens),
                ElementsAre("Caddyfile:8 encode", "Caddyfile:8 gzip", "Caddyfile:8 zstd"));
    EXPECT_THAT(
        placed(blocks[0].segments[2].tokens),
        ElementsAre("Caddyfile:10 respond", "Caddyfile:10 multi\nline", "Caddyfile:10 200"));
    EXPECT_THAT(placed(blocks[0].segments[3].tokens), ElementsAre("Caddyfile:12 file_server"));
}

TEST(CaddyfileParser, HeredocArgumentsStayOnTheDirectivesLine) {
    const std::vector<server_block> blocks = parse_text(
        "a.test {\n"
        "\trespond <<HTML\n"
        "\t\t<b>x</b>\n"
        "\t\tHTML 200\n"
        "\tphp_server\n"
        "}");
    ASSERT_EQ(blocks[0].segments.size(), 2u);
    EXPECT_THAT(placed(blocks[0].segments[0].tokens),
                ElementsAre("Caddyfile:2 respond", "Caddyfile:2 <b>x</b>", "Caddyfile:2 200"));
    EXPECT_THAT(placed(blocks[0].segments[1].tokens), ElementsAre("Caddyfile:5 php_server"));
}

TEST(CaddyfileParser, ReadsKeysSeparatedBySpacesAndCommas) {
    const std::vector<server_block> blocks =
        parse_text("a.test, b.test c.test ,\n\td.test,\n\te.test {\n}\n");
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_THAT(placed(blocks[0].keys),
                ElementsAre("Caddyfile:1 a.test", "Caddyfile:1 b.test", "Caddyfile:1 c.test",
                            "Caddyfile:2 d.test", "Caddyfile:3 e.test"));
    // The brace may also open on the next line.
    EXPECT_THAT(placed(parse_text("a.test\n{\n\tphp_server\n}")[0].segments[0].tokens),
                ElementsAre("Caddyfile:3 php_server"));
}

TEST(CaddyfileParser, ReadsASingleSiteWithoutBraces) {
    const std::vector<server_block> blocks = parse_text(":8080\nroot * /srv\n\nphp_server\n");
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_FALSE(blocks[0].global_options);
    EXPECT_THAT(placed(blocks[0].keys), ElementsAre("Caddyfile:1 :8080"));
    ASSERT_EQ(blocks[0].segments.size(), 2u);
    EXPECT_THAT(placed(blocks[0].segments[0].tokens),
                ElementsAre("Caddyfile:2 root", "Caddyfile:2 *", "Caddyfile:2 /srv"));
    EXPECT_THAT(placed(blocks[0].segments[1].tokens), ElementsAre("Caddyfile:4 php_server"));

    const std::vector<server_block> after_global =
        parse_text("{\n\tdebug\n}\nlocalhost:8080\nphp_server");
    ASSERT_EQ(after_global.size(), 2u);
    EXPECT_TRUE(after_global[0].global_options);
    EXPECT_THAT(texts(after_global[1].keys), ElementsAre("localhost:8080"));
    EXPECT_THAT(placed(after_global[1].segments[0].tokens), ElementsAre("Caddyfile:5 php_server"));

    const std::vector<server_block> keys_only = parse_text(":8080");
    ASSERT_EQ(keys_only.size(), 1u);
    EXPECT_THAT(keys_only[0].segments, IsEmpty());
}

TEST(CaddyfileParser, ClosesABlockOnTheDirectivesLine) {
    const std::vector<server_block> blocks =
        parse_text("(gz) { encode gzip }\na.test { php_server }\nb.test { import gz }");
    ASSERT_EQ(blocks.size(), 2u);
    ASSERT_EQ(blocks[0].segments.size(), 1u);
    EXPECT_THAT(texts(blocks[0].segments[0].tokens), ElementsAre("php_server"));
    ASSERT_EQ(blocks[1].segments.size(), 1u);
    EXPECT_THAT(placed(blocks[1].segments[0].tokens),
                ElementsAre("Caddyfile:1 encode", "Caddyfile:1 gzip"));
}

TEST(CaddyfileParser, ExpandsEnvironmentInKeysAndDropsEmptyDirectives) {
    const std::vector<server_block> blocks = parse_text(
        "{\n\t{$GLOBAL_OPTIONS}\n}\n{$SERVER_NAME:localhost} {\n\t{$EXTRA}\n\tphp_server\n}", {},
        env_of({{"EXTRA", ""}}));
    ASSERT_EQ(blocks.size(), 2u);
    EXPECT_THAT(blocks[0].segments, IsEmpty());
    EXPECT_THAT(placed(blocks[1].keys), ElementsAre("Caddyfile:4 localhost"));
    ASSERT_EQ(blocks[1].segments.size(), 1u);
    EXPECT_THAT(texts(blocks[1].segments[0].tokens), ElementsAre("php_server"));
}

/// Lists the files of `files` directly in `folder`, as a real folder listing would.
list_function lister(const file_map& files) {
    return [files](const std::string& folder) {
        std::vector<std::string> names;
        for (const auto& entry : files) {
            const std::filesystem::path p(entry.first);
            if (p.parent_path() == std::filesystem::path(folder)) {
                names.push_back(p.filename().string());
            }
        }
        return names;
    };
}

TEST(CaddyfileParser, GlobImportBringsInMatchingFilesInNameOrder) {
    const file_map files{{"conf/Caddyfile.d/b.caddyfile", "b.test {\n\tphp_server\n}"},
                         {"conf/Caddyfile.d/a.caddyfile", "a.test {\n\tphp_server\n}"},
                         {"conf/Caddyfile.d/.a.caddyfile", "not { a Caddyfile"},
                         {"conf/Caddyfile.d/notes.txt", "not { a Caddyfile"}};
    std::vector<std::string> warnings;
    const std::vector<server_block> blocks =
        parse(":80 {\n\tphp_server\n}\nimport Caddyfile.d/*.caddyfile\n", "conf/Caddyfile", {},
              reader(files), lister(files), &warnings);
    ASSERT_EQ(blocks.size(), 3u);
    EXPECT_THAT(placed(blocks[1].keys), ElementsAre("conf/Caddyfile.d/a.caddyfile:1 a.test"));
    EXPECT_THAT(placed(blocks[2].keys), ElementsAre("conf/Caddyfile.d/b.caddyfile:1 b.test"));
    EXPECT_THAT(warnings, IsEmpty());
}

TEST(CaddyfileParser, GlobImportMatchingNothingWarnsAtTheImport) {
    std::vector<std::string> warnings;
    const std::vector<server_block> blocks =
        parse(":80 {\n\tphp_server\n}\n\nimport Caddyfile.d/*.caddyfile\n", "Caddyfile", {},
              reader({}), lister({}), &warnings);
    EXPECT_EQ(blocks.size(), 1u);
    EXPECT_THAT(warnings, ElementsAre("Caddyfile:5: import 'Caddyfile.d/*.caddyfile': no file "
                                      "matches; nothing imported"));
}

TEST(CaddyfileParser, GlobImportTakesOneWildcardInTheFileNameAsCaddy) {
    for (const char* pattern : {"sites/*.*", "sites/a?b*", "sites/[ab].caddy", "*/site.caddy"}) {
        try {
            parse(std::string("import ") + pattern, "Caddyfile", {}, reader({}), lister({}));
            ADD_FAILURE() << "no config_error for " << pattern;
        } catch (const config_error& error) {
            EXPECT_EQ(std::string(error.what()),
                      std::string("Caddyfile:1: import '") + pattern +
                          "': a glob may have one wildcard (* or ?), in the file name, as in "
                          "Caddy");
        }
    }
}

TEST(CaddyfileParser, ImportsSnippetsWithArguments) {
    const std::vector<server_block> blocks = parse_text(
        "(common) {\n"
        "\troot * {args[0]}\n"
        "\tencode {args[1]} {args.2}\n"
        "\theader {args[:]} {args[1:]} last\n"
        "\tmissing {args[7]} pre-{args[0]}-post\n"
        "}\n"
        "a.test {\n"
        "\timport common /srv/a gzip zstd\n"
        "\tphp_server\n"
        "}\n");
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_THAT(texts(blocks[0].keys), ElementsAre("a.test"));
    ASSERT_EQ(blocks[0].segments.size(), 5u);
    // The snippet's tokens keep the place they were written at.
    EXPECT_THAT(placed(blocks[0].segments[0].tokens),
                ElementsAre("Caddyfile:2 root", "Caddyfile:2 *", "Caddyfile:2 /srv/a"));
    EXPECT_THAT(texts(blocks[0].segments[1].tokens), ElementsAre("encode", "gzip", "zstd"));
    EXPECT_THAT(texts(blocks[0].segments[2].tokens),
                ElementsAre("header", "/srv/a", "gzip", "zstd", "gzip", "zstd", "last"));
    EXPECT_THAT(texts(blocks[0].segments[3].tokens),
                ElementsAre("missing", "{args[7]}", "pre-/srv/a-post"));
    EXPECT_THAT(placed(blocks[0].segments[4].tokens), ElementsAre("Caddyfile:9 php_server"));
}

TEST(CaddyfileParser, ArgumentsKeepTheirQuotes) {
    const std::vector<server_block> blocks = parse_text(
        "(s) {\n"
        "\trespond {args[0]} {args[1]} x{args[1]} {args[2]}\n"
        "\theader {args[:]}\n"
        "}\n"
        "a.test {\n"
        "\timport s \"{\" \"\" bare\n"
        "}\n");
    ASSERT_EQ(blocks[0].segments.size(), 2u);
    // A quoted "{" passed in is text, not a block; "" stays an (empty, quoted) argument.
    const std::vector<token>& respond = blocks[0].segments[0].tokens;
    EXPECT_THAT(texts(respond), ElementsAre("respond", "{", "", "x", "bare"));
    EXPECT_TRUE(respond[1].quoted);
    EXPECT_TRUE(respond[2].quoted);
    EXPECT_FALSE(respond[3].quoted);
    EXPECT_FALSE(respond[4].quoted);
    const std::vector<token>& header = blocks[0].segments[1].tokens;
    EXPECT_THAT(texts(header), ElementsAre("header", "{", "", "bare"));
    EXPECT_TRUE(header[1].quoted);
    EXPECT_TRUE(header[2].quoted);
}

TEST(CaddyfileParser, ImportsTheSameSnippetTwiceAsSeparateDirectives) {
    const std::vector<server_block> blocks = parse_text(
        "(hdr) {\n"
        "\theader {args[0]} {args[1]}\n"
        "}\n"
        "a.test {\n"
        "\timport hdr X-A 1\n"
        "\timport hdr X-B 2\n"
        "}\n");
    ASSERT_EQ(blocks[0].segments.size(), 2u);
    EXPECT_THAT(placed(blocks[0].segments[0].tokens),
                ElementsAre("Caddyfile:2 header", "Caddyfile:2 X-A", "Caddyfile:2 1"));
    EXPECT_THAT(placed(blocks[0].segments[1].tokens),
                ElementsAre("Caddyfile:2 header", "Caddyfile:2 X-B", "Caddyfile:2 2"));
}

TEST(CaddyfileParser, RefusesRepeatedImportsTheDispenserCouldNotTellApart) {
    // Inside a directive's block the two lines would both read as Caddyfile:2 to a dispenser.
    EXPECT_EQ(parse_error("(hdr) {\n"
                          "\theader {args[0]}\n"
                          "}\n"
                          "a.test {\n"
                          "\thandle {\n"
                          "\t\timport hdr X-A\n"
                          "\t\timport hdr X-B\n"
                          "\t}\n"
                          "}\n"),
              "Caddyfile:2: cannot tell this line from the one before it: both come from "
              "Caddyfile:2 (one snippet line imported twice in a row?); write one of them out "
              "instead of importing it");
}

TEST(CaddyfileParser, ImportsFilesRelativeToTheImportingFile) {
    const file_map files = {
        {"conf/sites/app.caddy",
         "\n\nphp_server {\n\troot {args[0]}\n\timport ../common.caddy\n}\n"},
        {"conf/common.caddy", "# shared\nencode zstd\n"},
    };
    const std::vector<server_block> blocks = parse_text(
        "a.test {\n\timport sites/app.caddy /srv\n\tfile_server\n}", files, {}, "conf/Caddyfile");
    ASSERT_EQ(blocks.size(), 1u);
    ASSERT_EQ(blocks[0].segments.size(), 2u);
    EXPECT_THAT(placed(blocks[0].segments[0].tokens),
                ElementsAre("conf/sites/app.caddy:3 php_server", "conf/sites/app.caddy:3 {",
                            "conf/sites/app.caddy:4 root", "conf/sites/app.caddy:4 /srv",
                            "conf/common.caddy:2 encode", "conf/common.caddy:2 zstd",
                            "conf/sites/app.caddy:6 }"));
    EXPECT_THAT(placed(blocks[0].segments[1].tokens), ElementsAre("conf/Caddyfile:3 file_server"));
}

TEST(CaddyfileParser, ImportsWholeBlocksAtTopLevel) {
    const file_map files = {
        {"sites.caddy", "(snip) {\n\tencode\n}\na.test {\n\tphp_server\n}\n"},
    };
    const std::vector<server_block> blocks =
        parse_text("{\n\tdebug\n}\nimport sites.caddy\nb.test {\n\timport snip\n}", files);
    ASSERT_EQ(blocks.size(), 3u);
    EXPECT_TRUE(blocks[0].global_options);
    EXPECT_THAT(placed(blocks[1].keys), ElementsAre("sites.caddy:4 a.test"));
    EXPECT_THAT(placed(blocks[1].segments[0].tokens), ElementsAre("sites.caddy:5 php_server"));
    EXPECT_THAT(placed(blocks[2].keys), ElementsAre("Caddyfile:5 b.test"));
    // A snippet defined in an imported file is known afterwards.
    EXPECT_THAT(placed(blocks[2].segments[0].tokens), ElementsAre("sites.caddy:2 encode"));
}

TEST(CaddyfileParser, RefusesImportCycles) {
    const file_map files = {
        {"a.caddy", "\nimport b.caddy\n"},
        {"b.caddy", "import a.caddy"},
    };
    EXPECT_EQ(parse_error("import a.caddy\n", files),
              "b.caddy:1: import cycle: Caddyfile:1 imports a.caddy, a.caddy:2 imports b.caddy, "
              "b.caddy:1 imports a.caddy");
    EXPECT_EQ(parse_error("a.test {\n}\nimport ./Caddyfile"),
              "Caddyfile:3: import cycle: Caddyfile:3 imports Caddyfile");
    EXPECT_EQ(parse_error("(a) {\n"
                          "\timport b\n"
                          "}\n"
                          "(b) {\n"
                          "\timport a\n"
                          "}\n"
                          "x.test {\n"
                          "\timport a\n"
                          "}\n"),
              "Caddyfile:5: import cycle: Caddyfile:8 imports (a), Caddyfile:2 imports (b), "
              "Caddyfile:5 imports (a)");
}

TEST(CaddyfileParser, LimitsImportDepthAndSize) {
    // Every level imports one level deeper: no path repeats, so only the depth limit stops it.
    const auto deeper = [](const std::string&) { return std::string("\nimport sub/Caddyfile"); };
    std::string deepest = "Caddyfile";
    for (int i = 0; i < 64; ++i) {
        deepest = "sub/" + deepest;
    }
    try {
        parse("import sub/Caddyfile", "Caddyfile", {}, deeper);
        ADD_FAILURE() << "no config_error";
    } catch (const config_error& error) {
        EXPECT_EQ(error.what(), deepest + ":2: imports nested more than 64 deep");
    }
    // Each snippet imports the one before twice: 2^20 tokens from 21 short snippets.
    std::string text = "(s0) {\n\tx\n}\n";
    for (int i = 1; i <= 20; ++i) {
        text += "(s" + std::to_string(i) + ") {\n\timport s" + std::to_string(i - 1) +
                "\n\timport s" + std::to_string(i - 1) + "\n}\n";
    }
    text += "a.test {\n\timport s20\n}\n";
    try {
        parse_text(text);
        ADD_FAILURE() << "no config_error";
    } catch (const config_error& error) {
        EXPECT_EQ(error.message(), "imports expand to more than 262144 tokens or 16 MiB");
        EXPECT_EQ(error.file(), "Caddyfile");
    }
}

TEST(CaddyfileParser, ReportsImportErrorsAtTheImport) {
    EXPECT_EQ(parse_error("a.test {\n\timport\n}"),
              "Caddyfile:2: import needs a snippet name or a file path");
    EXPECT_EQ(parse_error("a.test {\n\timport \"\"\n}"),
              "Caddyfile:2: import needs a non-empty snippet name or file path");
    EXPECT_EQ(parse_error("a.test {\n\timport missing.caddy\n}"),
              "Caddyfile:2: cannot import 'missing.caddy': missing.caddy: no such file");
    // A name that is no snippet (defined before the import) is read as a file.
    EXPECT_EQ(parse_error("a.test {\n\timport later\n}\n(later) {\n}"),
              "Caddyfile:2: cannot import 'later': later: no such file");
    try {
        parse("\n\nimport x.caddy", "Caddyfile", {}, {});
        ADD_FAILURE() << "no config_error";
    } catch (const config_error& error) {
        EXPECT_STREQ(error.what(),
                     "Caddyfile:3: cannot import 'x.caddy': no files can be read here");
    }
    EXPECT_EQ(parse_error("\nimport sites/*.caddy"),
              "Caddyfile:2: cannot import 'sites/*.caddy': no folder can be listed here");
    EXPECT_EQ(parse_error("a.test {\n\timport snip {\n\t}\n}"),
              "Caddyfile:2: unexpected '{' on an import line: import brings in whole lines");
    // Mistakes inside an imported file are reported where they are.
    EXPECT_EQ(parse_error("import bad.caddy", {{"bad.caddy", "a.test {\n\trespond \"oops\n"}}),
              "bad.caddy:2: unterminated string: no closing \"");
    EXPECT_EQ(parse_error("import bad.caddy", {{"bad.caddy", "a.test {\n\tphp_server {\n}"}}),
              "bad.caddy:1: unclosed '{': missing '}'");
}

TEST(CaddyfileParser, ReportsUnbalancedBraces) {
    // The site's brace is the one left open: php_server's block is closed by line 4.
    EXPECT_EQ(parse_error("a.test {\n\tphp_server {\n\t\troot x\n}"),
              "Caddyfile:1: unclosed '{': missing '}'");
    EXPECT_EQ(parse_error("a.test {\n\tphp_server {\n\t\tworker {\n"),
              "Caddyfile:3: unclosed '{': missing '}'");
    EXPECT_EQ(parse_error("{\n"), "Caddyfile:1: unclosed '{': missing '}'");
    EXPECT_EQ(parse_error("a.test {\n}\n}"), "Caddyfile:3: unexpected '}' without a matching '{'");
    EXPECT_EQ(parse_error(":8080\nphp_server\n\n}"),
              "Caddyfile:4: unexpected '}' without a matching '{'");
    EXPECT_EQ(parse_error("a.test {\n\tphp_server\n\t{\n\t}\n}"),
              "Caddyfile:3: unexpected '{': a block opens at the end of its directive's line");
    EXPECT_EQ(parse_error("a.test {\n\tphp_server {\n\t\tworker\n\t\t{\n\t\t}\n\t}\n}"),
              "Caddyfile:4: unexpected '{': a block opens at the end of its directive's line");
    // The "}" closes "a {", which leaves the snippet's own brace open.
    EXPECT_EQ(parse_error("(s) {\n\ta {\n}"), "Caddyfile:1: unclosed '{': missing '}'");
}

TEST(CaddyfileParser, ReportsBadAddressesAndSnippets) {
    EXPECT_EQ(parse_error("a.test, {\n}"),
              "Caddyfile:1: expected another site address after ',' but found '{'");
    EXPECT_EQ(parse_error("\na.test,"), "Caddyfile:2: expected another site address after ','");
    EXPECT_EQ(parse_error("a.test{\n}"),
              "Caddyfile:1: site address 'a.test{' ends with '{': put a space before the brace");
    EXPECT_EQ(parse_error("a.test,b.test {\n}"),
              "Caddyfile:1: site address 'a.test,b.test' contains ',': separate addresses with "
              "\", \"");
    EXPECT_EQ(parse_error("\"\"\nphp_server"), "Caddyfile:1: empty site address");
    EXPECT_EQ(parse_error("(s)\na.test"), "Caddyfile:1: snippet (s) needs a block: (s) { ... }");
    EXPECT_EQ(parse_error("(s) {\n}\n\n(s) {\n}"),
              "Caddyfile:4: snippet (s) is already defined at Caddyfile:1");
}

}  // namespace
}  // namespace spindle::config::caddyfile

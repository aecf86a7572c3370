#include "config/php_cli_args.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_error.hpp"

namespace spindle::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

php_cli_args parse(std::initializer_list<std::string_view> args) {
    const std::vector<std::string_view> list(args);
    return parse_php_cli_args(list);
}

std::string error_of(std::initializer_list<std::string_view> args) {
    try {
        parse(args);
    } catch (const config_error& error) {
        return error.what();
    }
    ADD_FAILURE() << "no config_error";
    return {};
}

TEST(PhpCliArgs, TheFirstPlainArgumentIsTheScriptAndTheRestAreItsArguments) {
    const php_cli_args args = parse({"bin/console", "cache:clear", "-e", "prod", "--", "-h"});
    EXPECT_EQ(args.action, php_cli_action::run_file);
    EXPECT_EQ(args.script, "bin/console");
    // After the script's name nothing is an option any more, "--" and "-h" included.
    EXPECT_THAT(args.script_args, ElementsAre("cache:clear", "-e", "prod", "--", "-h"));
}

TEST(PhpCliArgs, OptionsBeforeTheScriptArePhps) {
    const php_cli_args args = parse({"-n", "-d", "memory_limit=1G", "-dassert.active",
                                     "--define=precision=10", "-c", "/etc/php.ini", "app.php"});
    EXPECT_TRUE(args.no_ini);
    EXPECT_EQ(args.ini_path, "/etc/php.ini");
    EXPECT_THAT(args.ini_settings,
                ElementsAre(Pair("memory_limit", "1G"), Pair("assert.active", "1"),
                            Pair("precision", "10")));
    EXPECT_EQ(args.script, "app.php");
    EXPECT_TRUE(args.script_args.empty());
}

TEST(PhpCliArgs, FileOptionLeavesEveryPlainArgumentToTheScript) {
    const php_cli_args args = parse({"-f", "run.php", "a", "b"});
    EXPECT_EQ(args.action, php_cli_action::run_file);
    EXPECT_EQ(args.script, "run.php");
    EXPECT_THAT(args.script_args, ElementsAre("a", "b"));
    EXPECT_EQ(parse({"--file", "x.php", "--", "-v"}).script_args, std::vector<std::string>{"-v"});
}

TEST(PhpCliArgs, RunTakesCodeAndTheRestAreArguments) {
    const php_cli_args args = parse({"-r", "echo $argv[1];", "one", "two"});
    EXPECT_EQ(args.action, php_cli_action::run_code);
    EXPECT_EQ(args.script, "echo $argv[1];");
    EXPECT_THAT(args.script_args, ElementsAre("one", "two"));
    // Attached, and the long form.
    EXPECT_EQ(parse({"-recho 1;"}).script, "echo 1;");
    EXPECT_EQ(parse({"--run", "echo 2;", "--", "-x"}).script_args, std::vector<std::string>{"-x"});
}

TEST(PhpCliArgs, NoScriptMeansStandardInput) {
    EXPECT_EQ(parse({}).action, php_cli_action::run_stdin);
    const php_cli_args dashes = parse({"-d", "x=1", "--", "a", "b"});
    EXPECT_EQ(dashes.action, php_cli_action::run_stdin);
    EXPECT_TRUE(dashes.script.empty());
    EXPECT_THAT(dashes.script_args, ElementsAre("a", "b"));
    const php_cli_args dash = parse({"-", "a"});
    EXPECT_EQ(dash.action, php_cli_action::run_stdin);
    EXPECT_THAT(dash.script_args, ElementsAre("a"));
}

TEST(PhpCliArgs, LintChecksAFileOrStandardInput) {
    const php_cli_args file = parse({"-l", "index.php"});
    EXPECT_EQ(file.action, php_cli_action::lint);
    EXPECT_EQ(file.script, "index.php");
    EXPECT_EQ(parse({"--syntax-check"}).action, php_cli_action::lint);
    EXPECT_TRUE(parse({"-l"}).script.empty());
    // Switches run together, as php's getopt takes them.
    EXPECT_EQ(parse({"-nl", "x.php"}).action, php_cli_action::lint);
    EXPECT_TRUE(parse({"-nl", "x.php"}).no_ini);
    EXPECT_THAT(error_of({"-l", "-r", "echo 1;"}), HasSubstr("-l"));
}

TEST(PhpCliArgs, InformationalOptionsWinAndTheFirstOneCounts) {
    EXPECT_EQ(parse({"-v"}).action, php_cli_action::version);
    EXPECT_EQ(parse({"--modules"}).action, php_cli_action::modules);
    EXPECT_EQ(parse({"-i"}).action, php_cli_action::info);
    EXPECT_EQ(parse({"-h"}).action, php_cli_action::help);
    EXPECT_EQ(parse({"--ini"}).action, php_cli_action::ini_files);
    EXPECT_EQ(parse({"-m", "-v", "x.php"}).action, php_cli_action::modules);
    EXPECT_EQ(parse({"-r", "echo 1;", "-v"}).action, php_cli_action::version);
}

TEST(PhpCliArgs, CompatibilityNoOpsAreAccepted) {
    EXPECT_EQ(parse({"-q", "-C", "x.php"}).script, "x.php");
}

TEST(PhpCliArgs, BadOptionsAreNamed) {
    EXPECT_THAT(error_of({"-y"}), HasSubstr("unknown option -y"));
    EXPECT_THAT(error_of({"--nope"}), HasSubstr("unknown option --nope"));
    EXPECT_THAT(error_of({"-S", "localhost:8000"}), HasSubstr("-S is not supported"));
    EXPECT_THAT(error_of({"-a"}), HasSubstr("-a is not supported"));
    EXPECT_THAT(error_of({"-d"}), HasSubstr("-d needs a value"));
    EXPECT_THAT(error_of({"--define"}), HasSubstr("--define needs a value"));
    EXPECT_THAT(error_of({"-d", "=1"}), HasSubstr("directive name"));
    EXPECT_THAT(error_of({"--version=1"}), HasSubstr("takes no value"));
    EXPECT_THAT(error_of({"-r", "echo 1;", "-f", "x.php"}), HasSubstr("one of -r CODE and -f"));
}

TEST(PhpCliArgs, HelpNamesTheProgram) {
    EXPECT_THAT(php_cli_help("php"), HasSubstr("Usage: php [options] [-f] <file>"));
    EXPECT_THAT(php_cli_help("spindle php-cli"), HasSubstr("spindle php-cli [options] -r <code>"));
}

}  // namespace
}  // namespace spindle::config

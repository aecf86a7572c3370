#include "config/command_line.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config/config_error.hpp"
#include "config/ip_ranges.hpp"

namespace spindle::config {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

/// Parses {"spindle", args...}.
command_line parse(std::initializer_list<const char*> args) {
    std::vector<const char*> argv{"spindle"};
    argv.insert(argv.end(), args);
    return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

/// The message of the config_error parsing {"spindle", args...} throws; fails the test if none.
std::string error_of(std::initializer_list<const char*> args) {
    try {
        parse(args);
    } catch (const config_error& error) {
        return error.what();
    }
    ADD_FAILURE() << "no config_error";
    return {};
}

/// The help text for {"spindle", args...}, checking that it is a help result.
std::string help_of(std::initializer_list<const char*> args) {
    const command_line result = parse(args);
    EXPECT_EQ(result.kind, command_kind::help);
    return result.help_text;
}

/// The configuration from {"spindle", "php-server", flags...}, checking the command kind.
server_config php_server(std::initializer_list<const char*> flags) {
    std::vector<const char*> argv{"spindle", "php-server"};
    argv.insert(argv.end(), flags);
    const command_line result = parse_command_line(static_cast<int>(argv.size()), argv.data());
    EXPECT_EQ(result.kind, command_kind::php_server);
    return result.config;
}

TEST(CommandKind, HasNames) {
    EXPECT_EQ(to_string(command_kind::php_server), "php_server");
    EXPECT_EQ(to_string(command_kind::version), "version");
    EXPECT_EQ(to_string(command_kind::help), "help");
}

TEST(ParseCommandLine, NoArgumentsGivesGeneralHelp) {
    const std::string help = help_of({});
    EXPECT_THAT(help, HasSubstr("Usage: spindle <command> [flags]"));
    EXPECT_THAT(help, HasSubstr("  php-server  "));
    EXPECT_THAT(help, HasSubstr("  version  "));
    EXPECT_THAT(help, HasSubstr("  help  "));
    EXPECT_TRUE(help.ends_with('\n'));
}

TEST(ParseCommandLine, EmptyArgvGivesGeneralHelp) {
    const char* const argv[] = {nullptr};
    EXPECT_EQ(parse_command_line(0, argv).help_text, help_of({}));
}

TEST(ParseCommandLine, HelpCommandAndFlagsGiveGeneralHelp) {
    const std::string general = help_of({});
    EXPECT_EQ(help_of({"help"}), general);
    EXPECT_EQ(help_of({"--help"}), general);
    EXPECT_EQ(help_of({"-h"}), general);
}

TEST(ParseCommandLine, HelpWithCommandGivesThatCommandsHelp) {
    const std::string php_server_help = help_of({"php-server", "--help"});
    EXPECT_THAT(php_server_help, HasSubstr("Usage: spindle php-server [flags]"));
    EXPECT_EQ(help_of({"help", "php-server"}), php_server_help);
    EXPECT_EQ(help_of({"--help", "php-server"}), php_server_help);
    EXPECT_EQ(help_of({"php-server", "-h"}), php_server_help);
    EXPECT_THAT(help_of({"help", "version"}), HasSubstr("Usage: spindle version"));
}

TEST(ParseCommandLine, HelpFlagWinsOverOtherFlags) {
    EXPECT_THAT(help_of({"php-server", "--root", "/srv", "--help"}),
                HasSubstr("Usage: spindle php-server"));
    EXPECT_THAT(help_of({"php-server", "--bogus", "-h"}), HasSubstr("Usage: spindle php-server"));
    // "--help" is never taken as the value of the flag before it.
    EXPECT_THAT(help_of({"php-server", "--root", "--help"}),
                HasSubstr("Usage: spindle php-server"));
}

TEST(ParseCommandLine, EveryCommandHasHelp) {
    EXPECT_THAT(help_of({"version", "--help"}), HasSubstr("Usage: spindle version\n"));
    EXPECT_THAT(help_of({"version", "-h"}), HasSubstr("-h, --help"));
    EXPECT_THAT(help_of({"help", "--help"}), HasSubstr("Usage: spindle help [command]"));
    EXPECT_THAT(help_of({"help", "-h"}), HasSubstr("Usage: spindle help [command]"));
}

TEST(ParseCommandLine, PhpServerHelpListsEveryFlagOnItsOwnLine) {
    const std::string help = help_of({"php-server", "--help"});
    for (const char* flag : {"  -r, --root DIR  ",
                             "  -l, --listen ADDR  ",
                             "      --threads N  ",
                             "      --io-threads N  ",
                             "      --index FILE  ",
                             "      --no-file-server  ",
                             "      --follow-symlinks  ",
                             "      --php-ini FILE  ",
                             "      --php-ini-set KEY=VALUE  ",
                             "      --max-wait-time DURATION  ",
                             "      --slowlog-timeout DURATION  ",
                             "      --max-body-size SIZE  ",
                             "      --max-header-size SIZE  ",
                             "      --read-header-timeout DURATION  ",
                             "      --read-body-timeout DURATION  ",
                             "      --write-timeout DURATION  ",
                             "      --idle-timeout DURATION  ",
                             "  -v, --debug  ",
                             "      --log-level LEVEL  ",
                             "  -h, --help  "}) {
        EXPECT_THAT(help, HasSubstr(std::string("\n") + flag)) << flag;
    }
}

TEST(ParseCommandLine, PhpServerHelpShowsTheDefaults) {
    const std::string help = help_of({"php-server", "--help"});
    EXPECT_THAT(help, HasSubstr("(default: .)\n"));
    EXPECT_THAT(help, HasSubstr("(default: :8080)\n"));
    EXPECT_THAT(help, HasSubstr("(default: index.php)\n"));
    EXPECT_THAT(help, HasSubstr("(default: 30s)\n"));
    EXPECT_THAT(help, HasSubstr("(default: 64MiB)\n"));
    EXPECT_THAT(help, HasSubstr("(default: 64KiB)\n"));
    EXPECT_THAT(help, HasSubstr("(default: 10s)\n"));
    EXPECT_THAT(help, HasSubstr("(default: 1m)\n"));
    EXPECT_THAT(help, HasSubstr("(default: info)\n"));
}

TEST(ParseCommandLine, HelpLinesFitIn100Columns) {
    for (const std::string& help : {help_of({}), help_of({"php-server", "--help"})}) {
        std::istringstream lines(help);
        for (std::string line; std::getline(lines, line);) {
            EXPECT_LE(line.size(), 100u) << line;
        }
    }
}

TEST(ParseCommandLine, HelpTextsAlignDescriptions) {
    for (const std::string& help :
         {help_of({"php-server", "--help"}), help_of({"version", "-h"})}) {
        std::istringstream lines(help);
        std::set<std::size_t> columns;
        for (std::string line; std::getline(lines, line);) {
            const std::size_t label = line.find_first_not_of(' ');
            if (label != std::string::npos && line[label] == '-') {
                columns.insert(line.find_first_not_of(' ', line.find("  ", label)));
            }
        }
        EXPECT_EQ(columns.size(), 1u) << help;
    }
}

TEST(ParseCommandLine, VersionCommand) {
    EXPECT_EQ(parse({"version"}).kind, command_kind::version);
    EXPECT_EQ(parse({"--version"}).kind, command_kind::version);
}

TEST(ParseCommandLine, VersionRejectsArguments) {
    EXPECT_EQ(error_of({"version", "--short"}),
              "unknown flag --short for version (see spindle version --help)");
    EXPECT_EQ(error_of({"version", "now"}),
              "unexpected argument \"now\" for version (see spindle version --help)");
}

TEST(ParseCommandLine, RejectsUnknownCommands) {
    EXPECT_EQ(error_of({"serve"}), "unknown command \"serve\" (see spindle --help)");
    EXPECT_EQ(error_of({"--root"}), "unknown flag --root (see spindle --help)");
    EXPECT_EQ(error_of({"help", "serve"}), "unknown command \"serve\" (see spindle --help)");
    EXPECT_EQ(error_of({"help", "php-server", "version"}),
              "unexpected argument \"version\" for help (see spindle help --help)");
}

TEST(ParseCommandLine, PhpServerWithoutFlagsKeepsDefaults) {
    const server_config config = php_server({});
    const server_config defaults;
    EXPECT_EQ(config.sites.front().listen, defaults.sites.front().listen);
    EXPECT_EQ(config.sites.front().root, defaults.sites.front().root);
    EXPECT_EQ(config.sites.front().index, defaults.sites.front().index);
    EXPECT_EQ(config.sites.front().file_server, defaults.sites.front().file_server);
    EXPECT_EQ(config.num_threads, defaults.num_threads);
    EXPECT_EQ(config.log_level, defaults.log_level);
    EXPECT_TRUE(config.php_ini.empty());
    EXPECT_FALSE(config.php_ini_file.has_value());
}

TEST(ParseCommandLine, PhpServerReadsEveryFlag) {
    // clang-format off
    const server_config config = php_server({
        "--root", "/srv/app",
        "--listen", "127.0.0.1:9000",
        "--threads", "8",
        "--io-threads", "2",
        "--index", "app.php",
        "--no-file-server",
        "--follow-symlinks",
        "--php-ini", "/etc/php.ini",
        "--php-ini-set", "memory_limit=256M",
        "--max-wait-time", "5s",
        "--slowlog-timeout", "2s",
        "--max-body-size", "10MB",
        "--max-header-size", "16KiB",
        "--read-header-timeout", "3s",
        "--read-body-timeout", "1m",
        "--write-timeout", "45s",
        "--idle-timeout", "2m30s",
        "--log-level", "warn",
    });
    // clang-format on
    EXPECT_EQ(config.sites.front().root, "/srv/app");
    EXPECT_THAT(config.sites.front().listen, ElementsAre(listen_address{"127.0.0.1", 9000}));
    EXPECT_EQ(config.num_threads, 8u);
    EXPECT_EQ(config.io_threads, 2u);
    EXPECT_EQ(config.sites.front().index, "app.php");
    EXPECT_FALSE(config.sites.front().file_server);
    EXPECT_TRUE(config.sites.front().follow_symlinks);
    EXPECT_EQ(config.php_ini_file, "/etc/php.ini");
    EXPECT_THAT(config.php_ini, ElementsAre(Pair("memory_limit", "256M")));
    EXPECT_EQ(config.max_wait_time, 5s);
    EXPECT_EQ(config.slowlog_timeout, 2s);
    EXPECT_EQ(config.limits.max_body_size, 10'000'000u);
    EXPECT_EQ(config.limits.max_header_size, 16u * 1024);
    EXPECT_EQ(config.limits.read_header_timeout, 3s);
    EXPECT_EQ(config.limits.read_body_timeout, 60s);
    EXPECT_EQ(config.limits.write_timeout, 45s);
    EXPECT_EQ(config.limits.idle_timeout, 150s);
    EXPECT_EQ(config.log_level, "warn");
}

TEST(ParseCommandLine, PhpServerAcceptsEqualsForm) {
    const server_config config =
        php_server({"--root=/srv/app", "--threads=4", "--listen=:9000", "-r=/srv/other",
                    "--php-ini-set=error_reporting=E_ALL", "--max-body-size=1 MiB"});
    EXPECT_EQ(config.sites.front().root, "/srv/other");
    EXPECT_EQ(config.num_threads, 4u);
    EXPECT_THAT(config.sites.front().listen, ElementsAre(listen_address{"", 9000}));
    EXPECT_THAT(config.php_ini, ElementsAre(Pair("error_reporting", "E_ALL")));
    EXPECT_EQ(config.limits.max_body_size, 1u << 20);
}

TEST(ParseCommandLine, PhpServerAcceptsShortFlags) {
    const server_config config = php_server({"-r", "/srv/app", "-l", ":9000", "-v"});
    EXPECT_EQ(config.sites.front().root, "/srv/app");
    EXPECT_THAT(config.sites.front().listen, ElementsAre(listen_address{"", 9000}));
    EXPECT_EQ(config.log_level, "debug");
}

TEST(ParseCommandLine, AdminFlagTakesAnAddressOrOff) {
    EXPECT_EQ(php_server({}).admin, (listen_address{"127.0.0.1", 2019}));
    EXPECT_EQ(php_server({"--admin", "off"}).admin, std::nullopt);
    EXPECT_EQ(php_server({"--admin", "127.0.0.1:0"}).admin, (listen_address{"127.0.0.1", 0}));
    EXPECT_EQ(php_server({"--admin=:9019"}).admin, (listen_address{"", 9019}));
    EXPECT_THAT(help_of({"php-server", "--help"}),
                HasSubstr("admin endpoint (metrics, status) (default: "
                          "127.0.0.1:2019)"));
}

TEST(ParseCommandLine, DebugFlagSetsDebugLevel) {
    EXPECT_EQ(php_server({"--debug"}).log_level, "debug");
    // The last of --debug and --log-level wins, like any repeated setting.
    EXPECT_EQ(php_server({"--debug", "--log-level", "error"}).log_level, "error");
    EXPECT_EQ(php_server({"--log-level", "error", "-v"}).log_level, "debug");
}

TEST(ParseCommandLine, LogLevelAcceptsEveryLevel) {
    for (const char* level : {"trace", "debug", "info", "warn", "error"}) {
        EXPECT_EQ(php_server({"--log-level", level}).log_level, level);
    }
}

TEST(ParseCommandLine, LogFormatIsConsoleOrJson) {
    EXPECT_EQ(php_server({}).log_format, "console");
    EXPECT_EQ(php_server({"--log-format", "json"}).log_format, "json");
    EXPECT_EQ(php_server({"--log-format", "json", "--log-format", "console"}).log_format,
              "console");
    EXPECT_EQ(error_of({"php-server", "--log-format", "logfmt"}),
              "flag --log-format: unknown log format \"logfmt\" (use console or json)");
}

TEST(ParseCommandLine, ListenReplacesTheDefaultAndRepeats) {
    EXPECT_THAT(php_server({"-l", "127.0.0.1:8081", "--listen", "[::1]:8081"}).sites.front().listen,
                ElementsAre(listen_address{"127.0.0.1", 8081}, listen_address{"::1", 8081}));
    // Naming the default explicitly leaves it once, not twice.
    EXPECT_THAT(php_server({"--listen", ":8080"}).sites.front().listen,
                ElementsAre(listen_address{"", 8080}));
}

TEST(ParseCommandLine, PhpIniSetAppendsInOrder) {
    const server_config config =
        php_server({"--php-ini-set", "a=1", "--php-ini-set", "b=", "--php-ini-set", "c=x=y",
                    "--php-ini-set", "a=2"});
    EXPECT_THAT(config.php_ini,
                ElementsAre(Pair("a", "1"), Pair("b", ""), Pair("c", "x=y"), Pair("a", "2")));
}

TEST(ParseCommandLine, LaterValueOfASettingWins) {
    EXPECT_EQ(php_server({"--root", "/a", "--root", "/b"}).sites.front().root, "/b");
    EXPECT_EQ(php_server({"--threads", "2", "--threads", "3"}).num_threads, 3u);
}

TEST(ParseCommandLine, DoesNotCheckTheFilesystem) {
    EXPECT_EQ(php_server({"--root", "/does/not/exist"}).sites.front().root, "/does/not/exist");
    EXPECT_EQ(php_server({"--php-ini", "/no/php.ini"}).php_ini_file, "/no/php.ini");
}

TEST(ParseCommandLine, RejectsUnknownFlags) {
    EXPECT_EQ(error_of({"php-server", "--foo"}),
              "unknown flag --foo for php-server (see spindle php-server --help)");
    EXPECT_EQ(error_of({"php-server", "--foo=1"}),
              "unknown flag --foo for php-server (see spindle php-server --help)");
    EXPECT_EQ(error_of({"php-server", "-x"}),
              "unknown flag -x for php-server (see spindle php-server --help)");
    EXPECT_EQ(error_of({"php-server", "-rdir"}),
              "unknown flag -rdir for php-server (see spindle php-server --help)");
    EXPECT_EQ(error_of({"php-server", "--"}),
              "unknown flag -- for php-server (see spindle php-server --help)");
    EXPECT_EQ(error_of({"php-server", "--ROOT", "/x"}),
              "unknown flag --ROOT for php-server (see spindle php-server --help)");
}

TEST(ParseCommandLine, RejectsPositionalArguments) {
    EXPECT_EQ(error_of({"php-server", "/srv/app"}),
              "unexpected argument \"/srv/app\" for php-server (see spindle php-server --help)");
    EXPECT_THAT(error_of({"php-server", "-"}), HasSubstr("unexpected argument \"-\""));
}

TEST(ParseCommandLine, RejectsMissingValues) {
    EXPECT_EQ(error_of({"php-server", "--root"}), "flag --root needs a value (DIR)");
    EXPECT_EQ(error_of({"php-server", "-r"}), "flag -r needs a value (DIR)");
    EXPECT_EQ(error_of({"php-server", "--root="}), "flag --root needs a value (DIR)");
    // A forgotten value does not swallow the next flag.
    EXPECT_EQ(error_of({"php-server", "--root", "--threads", "2"}),
              "flag --root needs a value (DIR)");
    EXPECT_EQ(error_of({"php-server", "--listen", "-v"}), "flag --listen needs a value (ADDR)");
}

TEST(ParseCommandLine, PhpServerCompressesUnlessTold) {
    const command_line on = parse({"php-server"});
    ASSERT_TRUE(on.config.sites.front().encode);
    std::vector<std::string> names;
    for (const encode_format& format : on.config.sites.front().encode->formats) {
        names.push_back(format.name);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"zstd", "br", "gzip"}));
    EXPECT_FALSE(parse({"php-server", "--no-compress"}).config.sites.front().encode);
    EXPECT_THAT(help_of({"php-server", "--help"}), HasSubstr("\n      --no-compress  "));
}

TEST(ParseCommandLine, PhpServerAccessLogIsOffUnlessTold) {
    EXPECT_FALSE(parse({"php-server"}).config.sites.front().access_log);
    EXPECT_TRUE(parse({"php-server", "--access-log"}).config.sites.front().access_log);
    EXPECT_TRUE(parse({"php-server", "-a"}).config.sites.front().access_log);
    EXPECT_THAT(help_of({"php-server", "--help"}), HasSubstr("\n  -a, --access-log  "));
}

TEST(ParseCommandLine, PhpServerWatchAppliesToEveryWorker) {
    const server_config c =
        php_server({"--watch", "src/**/*.php", "-w", "a.php", "-w", "b.php", "--watch", ".env"});
    ASSERT_EQ(c.sites.front().workers.size(), 2u);
    for (const worker_config& w : c.sites.front().workers) {
        EXPECT_EQ(w.watch, (std::vector<std::string>{"src/**/*.php", ".env"}));
    }
    EXPECT_EQ(error_of({"php-server", "--watch", "src/*/x.php", "-w", "a.php"}),
              "flag --watch: watch pattern \"src/*/x.php\": wildcards go in the file name only, "
              "as DIR/NAME, DIR/**/NAME or DIR/**");
    EXPECT_EQ(error_of({"php-server", "--watch", "*.php"}),
              "--watch restarts workers: give --worker too");
}

TEST(ParseCommandLine, RejectsValuesOnSwitches) {
    EXPECT_EQ(error_of({"php-server", "--no-file-server=true"}),
              "flag --no-file-server takes no value");
    EXPECT_EQ(error_of({"php-server", "-v=1"}), "flag -v takes no value");
}

TEST(ParseCommandLine, RejectsBadThreadCounts) {
    EXPECT_EQ(error_of({"php-server", "--threads", "0"}),
              "flag --threads: \"0\" is not a positive integer");
    EXPECT_EQ(error_of({"php-server", "--threads", "-5"}),
              "flag --threads: \"-5\" is not a positive integer");
    EXPECT_EQ(error_of({"php-server", "--threads", "four"}),
              "flag --threads: \"four\" is not a positive integer");
    EXPECT_EQ(error_of({"php-server", "--threads", "4x"}),
              "flag --threads: \"4x\" is not a positive integer");
    EXPECT_EQ(error_of({"php-server", "--threads", "99999999999999999999999"}),
              "flag --threads: \"99999999999999999999999\" is not a positive integer");
    EXPECT_EQ(error_of({"php-server", "--io-threads", "0"}),
              "flag --io-threads: \"0\" is not a positive integer");
}

TEST(ParseCommandLine, RejectsBadDurationsAndSizesNamingTheFlag) {
    EXPECT_EQ(error_of({"php-server", "--max-wait-time", "5"}),
              "flag --max-wait-time: invalid duration \"5\": missing unit (use ns, us, ms, s, m, h "
              "or d, e.g. \"30s\")");
    EXPECT_THAT(error_of({"php-server", "--idle-timeout=-1s"}),
                HasSubstr("flag --idle-timeout: invalid duration \"-1s\": negative"));
    EXPECT_THAT(error_of({"php-server", "--read-header-timeout", "soon"}),
                HasSubstr("flag --read-header-timeout: invalid duration \"soon\""));
    EXPECT_THAT(error_of({"php-server", "--read-body-timeout", "1x"}),
                HasSubstr("flag --read-body-timeout: invalid duration"));
    EXPECT_THAT(error_of({"php-server", "--write-timeout", "1x"}),
                HasSubstr("flag --write-timeout: invalid duration"));
    EXPECT_THAT(error_of({"php-server", "--max-body-size", "10XB"}),
                HasSubstr("flag --max-body-size: invalid size \"10XB\""));
    EXPECT_THAT(error_of({"php-server", "--max-header-size", "big"}),
                HasSubstr("flag --max-header-size: invalid size \"big\""));
}

TEST(ParseCommandLine, AcceptsZeroBodySizeAndTimeouts) {
    const server_config config =
        php_server({"--max-body-size", "0", "--read-header-timeout", "0", "--max-wait-time", "0"});
    EXPECT_EQ(config.limits.max_body_size, 0u);
    EXPECT_EQ(config.limits.read_header_timeout, 0ms);
    EXPECT_EQ(config.max_wait_time, 0ms);
}

TEST(ParseCommandLine, RejectsZeroHeaderSize) {
    EXPECT_EQ(error_of({"php-server", "--max-header-size", "0"}),
              "flag --max-header-size: size must be above 0");
}

TEST(ParseCommandLine, RejectsBadListenAddresses) {
    EXPECT_THAT(error_of({"php-server", "--listen", "8080"}),
                HasSubstr("flag --listen: invalid listen address \"8080\": missing port"));
    EXPECT_EQ(error_of({"php-server", "-l", ":80", "-l", ":80"}),
              "flag -l: address \":80\" is given twice");
}

TEST(ParseCommandLine, RejectsBadAdminAddresses) {
    EXPECT_EQ(error_of({"php-server", "--admin", "2019"}),
              "flag --admin: invalid listen address \"2019\": missing port (e.g. \":8080\" or "
              "\"127.0.0.1:8080\") (or \"off\")");
    EXPECT_EQ(error_of({"php-server", "--admin"}), "flag --admin needs a value (ADDR|off)");
}

TEST(ParseCommandLine, RejectsBadLogLevels) {
    EXPECT_EQ(error_of({"php-server", "--log-level", "verbose"}),
              "flag --log-level: unknown log level \"verbose\" (use trace, debug, info, warn or "
              "error)");
    EXPECT_THAT(error_of({"php-server", "--log-level", "INFO"}), HasSubstr("unknown log level"));
}

TEST(ParseCommandLine, RejectsBadPhpIniSettings) {
    for (const char* setting : {"memory_limit", "=1", "memory limit=1"}) {
        EXPECT_EQ(error_of({"php-server", "--php-ini-set", setting}),
                  "flag --php-ini-set: \"" + std::string(setting) +
                      "\" is not KEY=VALUE (e.g. memory_limit=256M)");
    }
}

TEST(ParseCommandLine, IndexMustBeAPlainPhpFileName) {
    EXPECT_EQ(php_server({"--index", "front.PHP"}).sites.front().index, "front.PHP");
    for (const char* index : {"index.html", "app/index.php", ".php", ".hidden.php", "php"}) {
        EXPECT_THAT(error_of({"php-server", "--index", index}),
                    HasSubstr("must be a file name ending in .php"))
            << index;
    }
}

TEST(ParseCommandLine, ValueMayStartWithDashWhenGivenWithEquals) {
    EXPECT_EQ(php_server({"--root=-weird"}).sites.front().root, "-weird");
    EXPECT_THAT(php_server({"--php-ini-set=x=-1"}).php_ini, ElementsAre(Pair("x", "-1")));
}

}  // namespace
}  // namespace spindle::config

namespace spindle::config {
namespace {

server_config php_server_flags_for_workers(std::initializer_list<const char*> flags) {
    std::vector<const char*> argv{"spindle", "php-server"};
    argv.insert(argv.end(), flags);
    return parse_command_line(static_cast<int>(argv.size()), argv.data()).config;
}

TEST(ParseCommandLine, WorkerTakesFileAndOptionalThreadCount) {
    const server_config config =
        php_server_flags_for_workers({"-w", "public/index.php", "--worker=app/w.php,3"});
    ASSERT_EQ(config.sites.front().workers.size(), 2u);
    EXPECT_EQ(config.sites.front().workers[0].file, "public/index.php");
    EXPECT_EQ(config.sites.front().workers[0].num, 0u);
    EXPECT_EQ(config.sites.front().workers[1].file, "app/w.php");
    EXPECT_EQ(config.sites.front().workers[1].num, 3u);
}

TEST(ParseCommandLine, WorkerMaxRequestsAppliesToEveryWorkerWhateverTheOrder) {
    const server_config config = php_server_flags_for_workers(
        {"-w", "a.php", "--worker-max-requests", "500", "-w", "b.php,2"});
    ASSERT_EQ(config.sites.front().workers.size(), 2u);
    EXPECT_EQ(config.sites.front().workers[0].max_requests, 500u);
    EXPECT_EQ(config.sites.front().workers[1].max_requests, 500u);
}

TEST(ParseCommandLine, WorkerRejectsBadThreadCounts) {
    for (const char* bad : {"a.php,0", "a.php,x", "a.php,", ",2"}) {
        std::vector<const char*> argv{"spindle", "php-server", "-w", bad};
        EXPECT_THROW(parse_command_line(static_cast<int>(argv.size()), argv.data()), config_error)
            << bad;
    }
}

TEST(ParseCommandLine, ConfigFileCommandsDefaultToCaddyfile) {
    for (const auto& [name, kind] :
         {std::pair{"run", command_kind::run}, std::pair{"adapt", command_kind::adapt},
          std::pair{"validate", command_kind::validate}}) {
        const command_line result = parse({name});
        EXPECT_EQ(result.kind, kind) << name;
        EXPECT_EQ(result.config_file, "Caddyfile") << name;
        EXPECT_EQ(result.adapter, "caddyfile") << name;
    }
    EXPECT_EQ(to_string(command_kind::run), "run");
    EXPECT_EQ(to_string(command_kind::adapt), "adapt");
    EXPECT_EQ(to_string(command_kind::validate), "validate");
}

TEST(ParseCommandLine, ReloadTakesTheFileAndTheAdminAddress) {
    const command_line plain = parse({"reload"});
    EXPECT_EQ(plain.kind, command_kind::reload);
    EXPECT_EQ(plain.config_file, "Caddyfile");
    EXPECT_FALSE(plain.admin_address.has_value());
    EXPECT_EQ(to_string(command_kind::reload), "reload");

    const command_line given =
        parse({"reload", "--config", "/etc/spindle.json", "--address", "127.0.0.1:2020"});
    EXPECT_EQ(given.config_file, "/etc/spindle.json");
    EXPECT_EQ(given.adapter, "json");
    ASSERT_TRUE(given.admin_address.has_value());
    EXPECT_EQ(given.admin_address->host, "127.0.0.1");
    EXPECT_EQ(given.admin_address->port, 2020);
    EXPECT_NE(error_of({"reload", "--address", "127.0.0.1:notaport"}).find("notaport"),
              std::string::npos);
}

TEST(ParseCommandLine, AdapterFollowsTheFileNameUnlessGiven) {
    EXPECT_EQ(parse({"run", "--config", "site.json"}).adapter, "json");
    EXPECT_EQ(parse({"run", "-c", "conf/SITE.JSON"}).adapter, "json");
    EXPECT_EQ(parse({"run", "--config=conf/Caddyfile.prod"}).adapter, "caddyfile");
    EXPECT_EQ(parse({"adapt", "--config", "site.json", "--adapter", "caddyfile"}).adapter,
              "caddyfile");
    EXPECT_EQ(parse({"validate", "-c", "x", "-a", "json"}).adapter, "json");
    EXPECT_EQ(parse({"validate", "-c", "conf/site.json"}).config_file, "conf/site.json");
}

TEST(ParseCommandLine, ConfigFileCommandsRefuseOtherFlags) {
    EXPECT_EQ(error_of({"run", "--adapter", "yaml"}),
              "flag --adapter: unknown adapter \"yaml\" (use caddyfile or json)");
    EXPECT_EQ(error_of({"run", "--root", "/srv"}),
              "unknown flag --root for run (see spindle run --help)");
    EXPECT_EQ(error_of({"validate", "--config"}), "flag --config needs a value (FILE)");
}

TEST(ParseCommandLine, TlsFlagsMakeEveryAddressHttps) {
    const server_config c = php_server({"--listen", "127.0.0.1:8443", "--listen", ":9443",
                                        "--tls-cert", "c.pem", "--tls-key", "k.pem"});
    const site_config& s = c.sites.front();
    EXPECT_EQ(s.listen, (std::vector<listen_address>{{"127.0.0.1", 8443, true}, {"", 9443, true}}));
    ASSERT_TRUE(s.tls.has_value());
    EXPECT_EQ(s.tls->certificate, "c.pem");
    EXPECT_EQ(s.tls->key, "k.pem");
    EXPECT_FALSE(php_server({}).sites.front().tls.has_value());
}

TEST(ParseCommandLine, TlsFlagsGoTogether) {
    EXPECT_EQ(error_of({"php-server", "--tls-cert", "c.pem"}), "--tls-cert needs --tls-key");
    EXPECT_EQ(error_of({"php-server", "--tls-key", "k.pem"}), "--tls-key needs --tls-cert");
    EXPECT_EQ(error_of({"php-server", "--listen", "https://:443"}),
              "--listen https://:443 needs --tls-cert and --tls-key (spindle cert makes a local "
              "pair)");
    EXPECT_EQ(error_of({"php-server", "--admin", "https://127.0.0.1:2019"}),
              "flag --admin: the admin endpoint speaks plain HTTP only");
}

TEST(ParseCommandLine, ListensOnUnixSocketsInPlainHttpOnly) {
    const server_config c = php_server({"--listen", "unix//run/spindle.sock|0660"});
    ASSERT_EQ(c.sites.front().listen.size(), 1u);
    EXPECT_EQ(c.sites.front().listen.front().unix_path, "/run/spindle.sock");
    EXPECT_EQ(c.sites.front().listen.front().unix_mode, 0660);
    EXPECT_EQ(error_of({"php-server", "--listen", "unix//run/s.sock", "--tls-cert", "c.pem",
                        "--tls-key", "k.pem"}),
              "--listen unix//run/s.sock: HTTPS on a Unix socket is not supported; the proxy in "
              "front terminates TLS");
    EXPECT_EQ(error_of({"php-server", "--admin", "unix//run/admin.sock"}),
              "flag --admin: the admin endpoint listens on TCP (e.g. 127.0.0.1:2019)");
}

TEST(ParseCommandLine, CertTakesADirectoryAndHosts) {
    const command_line defaults = parse({"cert"});
    EXPECT_EQ(defaults.kind, command_kind::cert);
    EXPECT_EQ(defaults.cert_dir, "spindle-certs");
    EXPECT_EQ(defaults.cert_hosts, (std::vector<std::string>{"localhost", "127.0.0.1", "::1"}));
    const command_line given =
        parse({"cert", "-d", "/tmp/c", "--host", "app.test", "--host", "10.0.0.1"});
    EXPECT_EQ(given.cert_dir, "/tmp/c");
    EXPECT_EQ(given.cert_hosts, (std::vector<std::string>{"app.test", "10.0.0.1"}));
    EXPECT_EQ(error_of({"cert", "--host", "a b"}),
              "flag --host: \"a b\" is not a host name or IP address");
    EXPECT_EQ(to_string(command_kind::cert), "cert");
}

/// {argv...} as given, argv[0] included: for a program started under another name.
command_line parse_as(std::initializer_list<const char*> argv) {
    const std::vector<const char*> list(argv);
    return parse_command_line(static_cast<int>(list.size()), list.data());
}

TEST(PhpCliCommand, TakesPhpsOptionsAfterTheCommand) {
    const command_line result = parse({"php-cli", "-d", "x=1", "artisan", "-h"});
    EXPECT_EQ(result.kind, command_kind::php_cli);
    EXPECT_EQ(result.php_cli.script, "artisan");
    // -h after the script is the script's, not a request for spindle's help.
    EXPECT_THAT(result.php_cli.script_args, ElementsAre("-h"));
    EXPECT_EQ(to_string(command_kind::php_cli), "php_cli");
}

TEST(PhpCliCommand, ALinkNamedPhpIsPhp) {
    const command_line result = parse_as({"/usr/local/bin/php", "-r", "echo 1;"});
    EXPECT_EQ(result.kind, command_kind::php_cli);
    EXPECT_EQ(result.php_cli.action, php_cli_action::run_code);
    EXPECT_EQ(parse_as({"php"}).php_cli.action, php_cli_action::run_stdin);
    // Another name stays spindle.
    EXPECT_EQ(parse_as({"/usr/local/bin/php-fpm", "version"}).kind, command_kind::version);
}

TEST(PhpCliCommand, PhpIsACommandNameToo) {
    // docker run IMAGE php artisan migrate, with ENTRYPOINT ["spindle"].
    const command_line result = parse({"php", "artisan", "migrate", "-h"});
    EXPECT_EQ(result.kind, command_kind::php_cli);
    EXPECT_EQ(result.php_cli.script, "artisan");
    EXPECT_THAT(result.php_cli.script_args, ElementsAre("migrate", "-h"));
    EXPECT_THAT(help_of({"php", "-h"}), HasSubstr("Usage: spindle php [options]"));
}

TEST(PhpCliCommand, HelpIsPhpStyleAndListed) {
    EXPECT_THAT(parse_as({"php", "-h"}).help_text, HasSubstr("Usage: php [options]"));
    EXPECT_THAT(help_of({"php-cli", "--help"}), HasSubstr("Usage: spindle php-cli [options]"));
    EXPECT_THAT(help_of({"help", "php-cli"}), HasSubstr("Usage: spindle php-cli [options]"));
    EXPECT_THAT(help_of({"--help"}), HasSubstr("php-cli"));
}

TEST(PhpCliCommand, AScriptGivenToSpindleItselfPointsToPhpCli) {
    EXPECT_THAT(error_of({"artisan.php", "migrate"}), HasSubstr("spindle php-cli artisan.php"));
}

TEST(PhpCliCommand, ErrorsNameTheCommand) {
    EXPECT_THAT(error_of({"php-cli", "-y"}), HasSubstr("spindle php-cli: unknown option -y"));
}

}  // namespace
}  // namespace spindle::config

namespace spindle::config {
namespace {

TEST(ParseCommandLine, TrustedProxiesFlags) {
    const server_config none = php_server({});
    EXPECT_TRUE(none.trusted_proxies.ranges.empty());
    EXPECT_FALSE(none.trusted_proxies.strict);
    const server_config c =
        php_server({"--trusted-proxies", "10.0.0.0/8,fd00::/8", "--trusted-proxies", "192.0.2.1",
                    "--trusted-proxies-strict"});
    EXPECT_EQ(c.trusted_proxies.ranges,
              (std::vector<std::string>{"10.0.0.0/8", "fd00::/8", "192.0.2.1"}));
    EXPECT_TRUE(c.trusted_proxies.strict);
    EXPECT_EQ(php_server({"--trusted-proxies", "private_ranges"}).trusted_proxies.ranges,
              private_ip_ranges());
    EXPECT_EQ(error_of({"php-server", "--trusted-proxies", "10.0.0.0/8,,"}),
              "flag --trusted-proxies: \"\" is not an IP range: expected an address such as "
              "10.0.0.0/8 or fd00::/8");
}

TEST(ParseCommandLine, ProcessesFlag) {
    EXPECT_EQ(php_server({}).processes, 1u);
    EXPECT_EQ(php_server({"--processes", "4"}).processes, 4u);
    const command_line run = parse({"run", "--config", "x.json", "--processes", "3"});
    EXPECT_EQ(run.processes, std::optional<std::size_t>(3));
    EXPECT_FALSE(parse({"run"}).processes.has_value());
    EXPECT_EQ(error_of({"php-server", "--processes", "0"}),
              "flag --processes: \"0\" is not a positive integer");
    EXPECT_EQ(error_of({"php-server", "--processes", "257"}),
              "flag --processes: \"257\" is more than 256 processes");
}

}  // namespace
}  // namespace spindle::config

#include "server/routing/router.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace spindle::server {
namespace {

namespace fs = std::filesystem;

TEST(RouteKind, HasNames) {
    EXPECT_EQ(to_string(route_kind::php), "php");
    EXPECT_EQ(to_string(route_kind::static_file), "static_file");
    EXPECT_EQ(to_string(route_kind::redirect), "redirect");
    EXPECT_EQ(to_string(route_kind::not_found), "not_found");
    EXPECT_EQ(to_string(route_kind::forbidden), "forbidden");
    EXPECT_EQ(to_string(route_kind::bad_request), "bad_request");
    EXPECT_EQ(to_string(route_kind::status), "status");
}

TEST(NormalizePath, KeepsCleanPaths) {
    EXPECT_EQ(normalize_path("/"), "/");
    EXPECT_EQ(normalize_path("/a/b.txt"), "/a/b.txt");
    EXPECT_EQ(normalize_path("/a/b/"), "/a/b/");
}

TEST(NormalizePath, MergesRepeatedSlashes) {
    EXPECT_EQ(normalize_path("//a///b"), "/a/b");
    EXPECT_EQ(normalize_path("/a//b//"), "/a/b/");
    EXPECT_EQ(normalize_path("//"), "/");
}

TEST(NormalizePath, ResolvesDotSegments) {
    EXPECT_EQ(normalize_path("/a/./b/../c"), "/a/c");
    EXPECT_EQ(normalize_path("/./a"), "/a");
    EXPECT_EQ(normalize_path("/a/.."), "/");
    EXPECT_EQ(normalize_path("/a/b/../../c"), "/c");
}

TEST(NormalizePath, KeepsTrailingSlashOfDirectorySegments) {
    EXPECT_EQ(normalize_path("/a/."), "/a/");
    EXPECT_EQ(normalize_path("/a/b/.."), "/a/");
    EXPECT_EQ(normalize_path("/a/b/../"), "/a/");
    EXPECT_EQ(normalize_path("/."), "/");
}

TEST(NormalizePath, KeepsSegmentsThatOnlyStartWithDots) {
    EXPECT_EQ(normalize_path("/.../a"), "/.../a");
    EXPECT_EQ(normalize_path("/..a/.b"), "/..a/.b");
}

TEST(NormalizePath, DecodesPercentEscapes) {
    EXPECT_EQ(normalize_path("/a%20b"), "/a b");
    EXPECT_EQ(normalize_path("/%C3%A9t%c3%a9"), "/\xC3\xA9t\xC3\xA9");
    EXPECT_EQ(normalize_path("/100%25"), "/100%");
    EXPECT_EQ(normalize_path("/a%0D%0Ab"), "/a\r\nb");
}

TEST(NormalizePath, DecodesEncodedSlashAsSeparator) {
    EXPECT_EQ(normalize_path("/a%2Fb"), "/a/b");
    EXPECT_EQ(normalize_path("/%2f%2fa"), "/a");
}

TEST(NormalizePath, ResolvesEncodedDotSegments) {
    EXPECT_EQ(normalize_path("/a/%2e%2e/b"), "/b");
    EXPECT_EQ(normalize_path("/a/%2E/b"), "/a/b");
    EXPECT_EQ(normalize_path("/a/b/%2e%2e%2f"), "/a/");
}

TEST(NormalizePath, DecodesOnlyOnce) {
    EXPECT_EQ(normalize_path("/%252e%252e/x"), "/%2e%2e/x");
    EXPECT_EQ(normalize_path("/%2500"), "/%00");
}

TEST(NormalizePath, TreatsBackslashAsOrdinaryCharacter) {
    EXPECT_EQ(normalize_path("/..\\..\\etc\\passwd"), "/..\\..\\etc\\passwd");
    EXPECT_EQ(normalize_path("/a%5C..%5Cb"), "/a\\..\\b");
}

TEST(NormalizePath, RejectsClimbingAboveTheRoot) {
    EXPECT_EQ(normalize_path("/.."), std::nullopt);
    EXPECT_EQ(normalize_path("/../etc/passwd"), std::nullopt);
    EXPECT_EQ(normalize_path("/a/../.."), std::nullopt);
    EXPECT_EQ(normalize_path("/a/../../b"), std::nullopt);
    EXPECT_EQ(normalize_path("/%2e%2e/etc/passwd"), std::nullopt);
    EXPECT_EQ(normalize_path("/%2E%2E%2Fetc"), std::nullopt);
    EXPECT_EQ(normalize_path("/.%2e/x"), std::nullopt);
}

TEST(NormalizePath, RejectsPathsNotStartingWithSlash) {
    EXPECT_EQ(normalize_path(""), std::nullopt);
    EXPECT_EQ(normalize_path("a/b"), std::nullopt);
    EXPECT_EQ(normalize_path("*"), std::nullopt);
    EXPECT_EQ(normalize_path("http://example.com/"), std::nullopt);
    EXPECT_EQ(normalize_path("%2Fa"), std::nullopt);
}

TEST(NormalizePath, RejectsBadEscapes) {
    EXPECT_EQ(normalize_path("/%"), std::nullopt);
    EXPECT_EQ(normalize_path("/a%2"), std::nullopt);
    EXPECT_EQ(normalize_path("/%zz"), std::nullopt);
    EXPECT_EQ(normalize_path("/%2g"), std::nullopt);
    EXPECT_EQ(normalize_path("/%g2"), std::nullopt);
    EXPECT_EQ(normalize_path("/%%41"), std::nullopt);
}

TEST(NormalizePath, RejectsNulBytes) {
    using namespace std::string_view_literals;
    EXPECT_EQ(normalize_path("/a%00b"), std::nullopt);
    EXPECT_EQ(normalize_path("/a\0b"sv), std::nullopt);
    EXPECT_EQ(normalize_path("/index.php%00.txt"), std::nullopt);
}

/// A document root on disk, rebuilt for every test:
///   base/www      the root, with a front controller, scripts, files, dotfiles and symlinks
///   base/bare     a root without index.php, to see not_found instead of the front controller
///   base/outside  files that symlinks in www point to
class RouterResolve : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "spindle-router-XXXXXX").string();
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        base_ = fs::canonical(pattern);
        root_ = (base_ / "www").string();
        bare_ = (base_ / "bare").string();
        const fs::path outside = base_ / "outside";

        for (const char* file : {"index.php",
                                 "app.php",
                                 "hello.txt",
                                 "Upper.PHP",
                                 "sub/app.php",
                                 "sub/page.html",
                                 "dir/index.php",
                                 "dir/readme.txt",
                                 "noindex/file.txt",
                                 "nested.php/inner.php",
                                 "weird.phpx/b.php",
                                 "sp ace/index.php",
                                 "100%/index.php",
                                 "\\evil.com/index.php",
                                 "crlf\r\nSet-Cookie: x=1/index.php",
                                 ".env",
                                 ".hidden.php",
                                 ".git/config",
                                 ".git/index.php",
                                 "a/.htpasswd",
                                 ".well-known/security.txt",
                                 ".well-known/check.php",
                                 "source.phtml",
                                 "source.phps",
                                 "lib.inc",
                                 "LIB.INC",
                                 "old.inc~",
                                 "backup.php.bak",
                                 "edit.php~",
                                 "tool.phar",
                                 "page.pht",
                                 "legacy.php5",
                                 "report.PHP.old"}) {
            write(fs::path(root_) / file);
        }
        write(fs::path(bare_) / "readme.txt");
        write(fs::path(bare_) / ".env");
        write(fs::path(bare_) / "docs/start.php");
        write(outside / "secret.txt");
        write(outside / "evil.php");
        write(outside / "index.php");
        write(base_ / "www-sibling/secret.txt");

        fs::create_symlink(outside / "secret.txt", fs::path(root_) / "escape.txt");
        fs::create_symlink(outside / "evil.php", fs::path(root_) / "escape.php");
        fs::create_directory_symlink(outside, fs::path(root_) / "escdir");
        fs::create_symlink("../outside/secret.txt", fs::path(root_) / "relative-escape.txt");
        fs::create_symlink("hello.txt", fs::path(root_) / "inside.txt");
        fs::create_symlink("app.php", fs::path(root_) / "disguised.txt");
        fs::create_symlink(".env", fs::path(root_) / "pointer.txt");
        fs::create_directory_symlink("dir", fs::path(root_) / "dirlink");
        fs::create_symlink("missing.txt", fs::path(root_) / "dangling.txt");
        fs::create_symlink("../www-sibling/secret.txt", fs::path(root_) / "sibling.txt");
        fs::create_symlink("hello.txt", fs::path(root_) / ".alias.txt");
        fs::create_directory_symlink("dir", fs::path(root_) / ".dirlink");
        ASSERT_EQ(::mkfifo((root_ + "/fifo").c_str(), 0600), 0);
        ASSERT_EQ(::mkfifo((root_ + "/pipe.php").c_str(), 0600), 0);
    }

    void TearDown() override { fs::remove_all(base_); }

    static void write(const fs::path& file) {
        fs::create_directories(file.parent_path());
        std::ofstream(file) << "<?php\n";
    }

    /// A route as one line, with root_ cut from file names, so expectations read like the rules:
    /// "php /a.php /path/info", "static /hello.txt", "redirect /dir/", "not_found",
    /// "forbidden: why", "bad_request: why". A file that is not where the route says shows up.
    std::string describe(const route& result) const {
        switch (result.kind) {
            case route_kind::php: {
                std::string text = "php " + result.script_name;
                if (!result.path_info.empty()) {
                    text += " " + result.path_info;
                }
                if (result.file != root_ + result.script_name) {
                    text += " file=" + result.file;
                }
                return text;
            }
            case route_kind::static_file:
                if (result.file.starts_with(root_ + "/")) {
                    return "static " + result.file.substr(root_.size());
                }
                return "static file=" + result.file;
            case route_kind::redirect: return "redirect " + result.location;
            case route_kind::not_found: return "not_found";
            case route_kind::status: return "status " + std::to_string(result.status);
            case route_kind::forbidden:
            case route_kind::bad_request:
                return std::string(to_string(result.kind)) + ": " + result.reason;
        }
        return "?";
    }

    std::string resolve(std::string_view path, std::string_view query = "") const {
        return describe(resolve_route({root_}, path, query));
    }

    std::string resolve_bare(std::string_view path) const {
        return describe(resolve_route({bare_}, path, ""));
    }

    fs::path base_;
    std::string root_;
    std::string bare_;
};

constexpr std::string_view front_controller = "php /index.php";
constexpr std::string_view php_source = "forbidden: PHP source is never served";

TEST_F(RouterResolve, RunsRootIndexForSlash) {
    const route result = resolve_route({root_}, "/", "");
    EXPECT_EQ(result.kind, route_kind::php);
    EXPECT_EQ(result.file, root_ + "/index.php");
    EXPECT_EQ(result.script_name, "/index.php");
    EXPECT_EQ(result.path_info, "");
}

TEST_F(RouterResolve, RunsPhpScripts) {
    EXPECT_EQ(resolve("/app.php"), "php /app.php");
    EXPECT_EQ(resolve("/index.php"), "php /index.php");
    EXPECT_EQ(resolve("/sub/app.php"), "php /sub/app.php");
    EXPECT_EQ(resolve("/sub/app.php", "a=1"), "php /sub/app.php");
}

TEST_F(RouterResolve, SplitsPathInfoAfterScript) {
    const route result = resolve_route({root_}, "/sub/app.php/x/y", "");
    EXPECT_EQ(result.kind, route_kind::php);
    EXPECT_EQ(result.file, root_ + "/sub/app.php");
    EXPECT_EQ(result.script_name, "/sub/app.php");
    EXPECT_EQ(result.path_info, "/x/y");
    EXPECT_EQ(resolve("/app.php/"), "php /app.php /");
    EXPECT_EQ(resolve("/index.php/some/route"), "php /index.php /some/route");
}

TEST_F(RouterResolve, DecodesAndNormalisesPathInfo) {
    EXPECT_EQ(resolve("/app.php/a%20b/%C3%A9"), "php /app.php /a b/\xC3\xA9");
    EXPECT_EQ(resolve("/app.php//x/./y/../z"), "php /app.php /x/z");
    EXPECT_EQ(resolve("/app.php%2Fx"), "php /app.php /x");
}

TEST_F(RouterResolve, SplitsAtPhpCaseInsensitively) {
    EXPECT_EQ(resolve("/Upper.PHP"), "php /Upper.PHP");
    EXPECT_EQ(resolve("/Upper.PHP/x"), "php /Upper.PHP /x");
    // The split ignores case but the filesystem does not.
    EXPECT_EQ(resolve("/APP.PHP"), front_controller);
}

TEST_F(RouterResolve, SplitsOnlyWherePhpEndsASegment) {
    EXPECT_EQ(resolve("/app.phpx"), front_controller);
    EXPECT_EQ(resolve("/app.php.txt"), front_controller);
    EXPECT_EQ(resolve("/weird.phpx/b.php/z"), "php /weird.phpx/b.php /z");
}

TEST_F(RouterResolve, SplitsAtTheFirstPhpPrefixThatIsAFile) {
    // nested.php is a directory, so the script is the file inside it.
    EXPECT_EQ(resolve("/nested.php/inner.php/q"), "php /nested.php/inner.php /q");
    EXPECT_EQ(resolve("/app.php/inner.php"), "php /app.php /inner.php");
}

TEST_F(RouterResolve, ServesStaticFiles) {
    const route result = resolve_route({root_}, "/hello.txt", "");
    EXPECT_EQ(result.kind, route_kind::static_file);
    EXPECT_EQ(result.file, root_ + "/hello.txt");
    EXPECT_EQ(resolve("/sub/page.html"), "static /sub/page.html");
    EXPECT_EQ(resolve("/noindex/file.txt"), "static /noindex/file.txt");
}

TEST_F(RouterResolve, RedirectsDirectoryWithIndexToTrailingSlash) {
    EXPECT_EQ(resolve("/dir"), "redirect /dir/");
    EXPECT_EQ(resolve("/dir", "a=1&b=2"), "redirect /dir/?a=1&b=2");
    EXPECT_EQ(resolve("/nested.php", ""), front_controller);
}

TEST_F(RouterResolve, RunsDirectoryIndexForTrailingSlash) {
    EXPECT_EQ(resolve("/dir/"), "php /dir/index.php");
    EXPECT_EQ(resolve("/dir/", "a=1"), "php /dir/index.php");
    EXPECT_EQ(resolve("/dir/readme.txt"), "static /dir/readme.txt");
}

TEST_F(RouterResolve, FallsBackToFrontControllerForDirectoryWithoutIndex) {
    EXPECT_EQ(resolve("/noindex"), front_controller);
    EXPECT_EQ(resolve("/noindex/"), front_controller);
    EXPECT_EQ(resolve("/sub/"), front_controller);
    EXPECT_EQ(resolve("/.well-known"), front_controller);
}

TEST_F(RouterResolve, FallsBackToFrontControllerForMissingPaths) {
    EXPECT_EQ(resolve("/missing"), front_controller);
    EXPECT_EQ(resolve("/blog/2024/hello-world"), front_controller);
    EXPECT_EQ(resolve("/missing.php"), front_controller);
    EXPECT_EQ(resolve("/missing.php/x"), front_controller);
    EXPECT_EQ(resolve("/dangling.txt"), front_controller);
}

TEST_F(RouterResolve, NotFoundWithoutFrontController) {
    EXPECT_EQ(resolve_bare("/missing"), "not_found");
    EXPECT_EQ(resolve_bare("/"), "not_found");
    EXPECT_EQ(resolve_bare("/docs/"), "not_found");
    EXPECT_EQ(describe(resolve_route({bare_}, "/readme.txt", "")),
              "static file=" + bare_ + "/readme.txt");
}

TEST_F(RouterResolve, UsesTheConfiguredIndex) {
    const router_options options{bare_, "start.php"};
    EXPECT_EQ(describe(resolve_route(options, "/docs", "")), "redirect /docs/");
    const route index = resolve_route(options, "/docs/", "");
    EXPECT_EQ(index.kind, route_kind::php);
    EXPECT_EQ(index.script_name, "/docs/start.php");
    EXPECT_EQ(index.file, bare_ + "/docs/start.php");
    EXPECT_EQ(describe(resolve_route(options, "/elsewhere", "")), "not_found");
}

TEST_F(RouterResolve, RedirectPercentEncodesThePath) {
    EXPECT_EQ(resolve("/sp%20ace"), "redirect /sp%20ace/");
    EXPECT_EQ(resolve("/sp ace"), "redirect /sp%20ace/");
    EXPECT_EQ(resolve("/100%25"), "redirect /100%25/");
    EXPECT_EQ(resolve("/crlf%0D%0ASet-Cookie:%20x=1"), "redirect /crlf%0D%0ASet-Cookie:%20x=1/");
}

TEST_F(RouterResolve, RedirectNeverPointsToAnotherHost) {
    EXPECT_EQ(resolve("//dir"), "redirect /dir/");
    EXPECT_EQ(resolve("/%2Fdir"), "redirect /dir/");
    // Browsers read "/\host" as "//host"; the backslash stays encoded.
    EXPECT_EQ(resolve("/%5Cevil.com"), "redirect /%5Cevil.com/");
    EXPECT_EQ(resolve("/\\evil.com"), "redirect /%5Cevil.com/");
}

TEST_F(RouterResolve, RedirectEncodesUnsafeQueryBytes) {
    EXPECT_EQ(resolve("/dir", "q=a b\r\n<x>%41&r=/?:@"),
              "redirect /dir/?q=a%20b%0D%0A%3Cx%3E%41&r=/?:@");
}

TEST_F(RouterResolve, MergesRepeatedSlashes) {
    EXPECT_EQ(resolve("//sub//app.php"), "php /sub/app.php");
    EXPECT_EQ(resolve("/sub///app.php//x"), "php /sub/app.php /x");
    EXPECT_EQ(resolve("//hello.txt"), "static /hello.txt");
}

TEST_F(RouterResolve, RejectsMalformedPaths) {
    using namespace std::string_view_literals;
    EXPECT_EQ(resolve("/%zz"), "bad_request: malformed path");
    EXPECT_EQ(resolve("app.php"), "bad_request: malformed path");
    EXPECT_EQ(resolve("/%00"), "bad_request: NUL byte in path");
    EXPECT_EQ(resolve("/app.php\0.txt"sv), "bad_request: NUL byte in path");
    EXPECT_EQ(resolve("/../etc/passwd"), "bad_request: path escapes the document root");
    EXPECT_EQ(resolve("/%2e%2e/etc/passwd"), "bad_request: path escapes the document root");
    EXPECT_EQ(resolve("/sub/%2e%2e/%2e%2e/x"), "bad_request: path escapes the document root");
}

TEST_F(RouterResolve, ResolvesEncodedDotSegmentsInsideTheRoot) {
    EXPECT_EQ(resolve("/sub/%2e%2e/app.php"), "php /app.php");
    EXPECT_EQ(resolve("/sub/../hello.txt"), "static /hello.txt");
}

TEST_F(RouterResolve, TreatsDoubleEncodingAsLiteralCharacters) {
    EXPECT_EQ(resolve("/%252e%252e/%252e%252e/etc/passwd"), front_controller);
    EXPECT_EQ(resolve_bare("/%252e%252e/%252e%252e/etc/passwd"), "not_found");
    EXPECT_EQ(resolve_bare("/docs/%252e%252e/readme.txt"), "not_found");
}

TEST_F(RouterResolve, TreatsBackslashesAsOrdinaryCharacters) {
    EXPECT_EQ(resolve("/..\\..\\etc\\passwd"), front_controller);
    EXPECT_EQ(resolve("/sub\\app.php"), front_controller);
    EXPECT_EQ(resolve("/sub%5C..%5Chello.txt"), front_controller);
    EXPECT_EQ(resolve_bare("/..\\..\\etc\\passwd"), "not_found");
    EXPECT_EQ(resolve_bare("/docs\\..\\readme.txt"), "not_found");
}

TEST_F(RouterResolve, NeverServesDotfiles) {
    EXPECT_EQ(resolve("/.env"), front_controller);
    EXPECT_EQ(resolve("/%2eenv"), front_controller);
    EXPECT_EQ(resolve("/.git/config"), front_controller);
    EXPECT_EQ(resolve("/a/.htpasswd"), front_controller);
    EXPECT_EQ(resolve("/sub/../.env"), front_controller);
    EXPECT_EQ(resolve_bare("/.env"), "not_found");
}

TEST_F(RouterResolve, NeverRunsHiddenScripts) {
    EXPECT_EQ(resolve("/.hidden.php"), front_controller);
    EXPECT_EQ(resolve("/.hidden.php/x"), front_controller);
    EXPECT_EQ(resolve("/.git/index.php"), front_controller);
    EXPECT_EQ(resolve("/.git/"), front_controller);
}

TEST_F(RouterResolve, DoesNotRedirectHiddenDirectories) {
    EXPECT_EQ(resolve("/.git"), front_controller);
    EXPECT_EQ(resolve("/.dirlink"), front_controller);
}

TEST_F(RouterResolve, NeverServesThroughHiddenSymlinks) {
    // The link's name is hidden even though its target is not.
    EXPECT_EQ(resolve("/.alias.txt"), front_controller);
    EXPECT_EQ(resolve("/.dirlink/"), front_controller);
    EXPECT_EQ(resolve("/.dirlink/readme.txt"), front_controller);
}

TEST_F(RouterResolve, PassesHiddenLookingPathInfoToTheScript) {
    // Only the script has to be visible; PATH_INFO is data for it.
    EXPECT_EQ(resolve("/app.php/.env"), "php /app.php /.env");
}

TEST_F(RouterResolve, ServesWellKnown) {
    EXPECT_EQ(resolve("/.well-known/security.txt"), "static /.well-known/security.txt");
    EXPECT_EQ(resolve("/.well-known/check.php"), "php /.well-known/check.php");
}

TEST_F(RouterResolve, ForbidsPhpSource) {
    for (const char* path :
         {"/source.phtml", "/source.phps", "/lib.inc", "/LIB.INC", "/old.inc~", "/backup.php.bak",
          "/edit.php~", "/tool.phar", "/page.pht", "/legacy.php5", "/report.PHP.old"}) {
        EXPECT_EQ(resolve(path), php_source) << path;
    }
}

TEST_F(RouterResolve, ForbidsPhpSourceWithFileServerOff) {
    EXPECT_EQ(describe(resolve_route({root_, "index.php", false}, "/backup.php.bak", "")),
              php_source);
}

TEST_F(RouterResolve, IgnoresSymlinksLeavingTheRoot) {
    EXPECT_EQ(resolve("/escape.txt"), front_controller);
    EXPECT_EQ(resolve("/relative-escape.txt"), front_controller);
    EXPECT_EQ(resolve("/escape.php"), front_controller);
    EXPECT_EQ(resolve("/escape.php/x"), front_controller);
    EXPECT_EQ(resolve("/escdir"), front_controller);
    EXPECT_EQ(resolve("/escdir/"), front_controller);
    EXPECT_EQ(resolve("/escdir/index.php"), front_controller);
    EXPECT_EQ(resolve("/escdir/secret.txt"), front_controller);
    // www-sibling starts with the root's name but is outside it.
    EXPECT_EQ(resolve("/sibling.txt"), front_controller);
}

TEST_F(RouterResolve, FollowsSymlinksLeavingTheRootWhenAsked) {
    router_options options{root_};
    options.follow_symlinks = true;
    const auto follow = [&](std::string_view path) {
        return describe(resolve_route(options, path, ""));
    };
    EXPECT_EQ(follow("/escape.txt"), "static /escape.txt");
    EXPECT_EQ(follow("/relative-escape.txt"), "static /relative-escape.txt");
    EXPECT_EQ(follow("/escape.php"), "php /escape.php");
    EXPECT_EQ(follow("/escape.php/x"), "php /escape.php /x");
    EXPECT_EQ(follow("/escdir"), "redirect /escdir/");
    EXPECT_EQ(follow("/escdir/"), "php /escdir/index.php");
    EXPECT_EQ(follow("/escdir/secret.txt"), "static /escdir/secret.txt");
    EXPECT_EQ(follow("/sibling.txt"), "static /sibling.txt");
    // What stays private without links stays private through them.
    EXPECT_EQ(follow("/pointer.txt"), front_controller);
    EXPECT_EQ(follow("/.alias.txt"), front_controller);
    EXPECT_EQ(follow("/disguised.txt"), php_source);
    EXPECT_EQ(follow("/dangling.txt"), front_controller);
}

TEST_F(RouterResolve, FollowsSymlinksIntoTheSiteOtherRoots) {
    // A site with `root /x/* base/outside` may serve what its links lead into there, and no
    // more: www-sibling stays out.
    router_options options{root_};
    options.other_roots.push_back((base_ / "outside").string());
    auto with_other_root = [&](std::string_view path) {
        return describe(resolve_route(options, path, ""));
    };
    EXPECT_EQ(with_other_root("/escape.txt"), "static /escape.txt");
    EXPECT_EQ(with_other_root("/escdir/secret.txt"), "static /escdir/secret.txt");
    EXPECT_EQ(with_other_root("/escape.php"), "php /escape.php");
    EXPECT_EQ(with_other_root("/sibling.txt"), front_controller);
}

TEST_F(RouterResolve, SelectsTheFirstMatchingPathRouter) {
    const router_options site{root_};
    std::vector<path_router> routers{{"/sub/deep/*", router_options{bare_}},
                                     {"/sub/*", router_options{(base_ / "outside").string()}}};
    EXPECT_EQ(&select_router(routers, site, "/sub/deep/x"), &routers[0].options);
    EXPECT_EQ(&select_router(routers, site, "/sub/x.txt"), &routers[1].options);
    // Patterns see the normalised path.
    EXPECT_EQ(&select_router(routers, site, "/a/../sub/x"), &routers[1].options);
    EXPECT_EQ(&select_router(routers, site, "/SUB/%2e/x"), &routers[1].options);
    EXPECT_EQ(&select_router(routers, site, "/subway"), &site);
    EXPECT_EQ(&select_router(routers, site, "/"), &site);
    EXPECT_EQ(&select_router(routers, site, "/../sub/x"), &site);
    EXPECT_EQ(&select_router({}, site, "/sub/x"), &site);
}

TEST_F(RouterResolve, FollowsSymlinksInsideTheRoot) {
    // The file keeps the requested name, so its Content-Type follows the URL.
    EXPECT_EQ(resolve("/inside.txt"), "static /inside.txt");
    EXPECT_EQ(resolve("/dirlink"), "redirect /dirlink/");
    EXPECT_EQ(resolve("/dirlink/"), "php /dirlink/index.php");
    EXPECT_EQ(resolve("/dirlink/readme.txt"), "static /dirlink/readme.txt");
}

TEST_F(RouterResolve, ForbidsSymlinkToPhpSource) {
    EXPECT_EQ(resolve("/disguised.txt"), php_source);
}

TEST_F(RouterResolve, IgnoresSymlinkToHiddenFile) {
    EXPECT_EQ(resolve("/pointer.txt"), front_controller);
}

TEST_F(RouterResolve, CountsOnlyRegularFiles) {
    EXPECT_EQ(resolve("/fifo"), front_controller);
    EXPECT_EQ(resolve("/pipe.php"), front_controller);
    EXPECT_EQ(resolve("/pipe.php/x"), front_controller);
    EXPECT_EQ(resolve("/sub"), front_controller);
}

TEST_F(RouterResolve, DoesNotServeAFileWithTrailingSlash) {
    EXPECT_EQ(resolve("/hello.txt/"), front_controller);
    EXPECT_EQ(resolve_bare("/readme.txt/"), "not_found");
}

TEST_F(RouterResolve, FileServerOffSendsStaticFilesToTheFrontController) {
    // As FrankenPHP's php_server { file_server off }: {path} names scripts only.
    const router_options options{root_, "index.php", false};
    EXPECT_EQ(describe(resolve_route(options, "/hello.txt", "")), front_controller);
    EXPECT_EQ(describe(resolve_route(options, "/inside.txt", "")), front_controller);
    const router_options bare{bare_, "index.php", false};
    EXPECT_EQ(describe(resolve_route(bare, "/readme.txt", "")), "not_found");
    EXPECT_EQ(describe(resolve_route(options, "/app.php", "")), "php /app.php");
    EXPECT_EQ(describe(resolve_route(options, "/missing", "")), front_controller);
    EXPECT_EQ(describe(resolve_route(options, "/dir", "")), "redirect /dir/");
}

TEST_F(RouterResolve, WorksWithTheFilesystemRootAsDocumentRoot) {
    if (root_.find("/.") != std::string::npos) {
        GTEST_SKIP() << "the temporary directory is under a hidden directory: " << root_;
    }
    const route file = resolve_route({"/"}, root_ + "/hello.txt", "");
    EXPECT_EQ(file.kind, route_kind::static_file);
    EXPECT_EQ(file.file, root_ + "/hello.txt");
    const route script = resolve_route({"/"}, root_ + "/app.php/x", "");
    EXPECT_EQ(script.kind, route_kind::php);
    EXPECT_EQ(script.file, root_ + "/app.php");
    EXPECT_EQ(script.script_name, root_ + "/app.php");
    EXPECT_EQ(script.path_info, "/x");
}

}  // namespace
}  // namespace spindle::server

namespace spindle::server {
namespace {

TEST_F(RouterResolve, TryFilesTakesTheFirstCandidateThatExists) {
    router_options options{root_};
    options.try_files = {"{path}", "/app.php"};
    EXPECT_EQ(describe(resolve_route(options, "/hello.txt", "")), "static /hello.txt");
    EXPECT_EQ(describe(resolve_route(options, "/missing", "")), "php /app.php");
    EXPECT_EQ(describe(resolve_route(options, "/sub/app.php/x", "")), "php /sub/app.php /x");
    // The php_server redirect of a directory holding the index still comes first.
    EXPECT_EQ(describe(resolve_route(options, "/dir", "")), "redirect /dir/");
}

TEST_F(RouterResolve, TryFilesDirectoryCandidateRunsItsIndex) {
    router_options options{root_};
    options.try_files = {"{path}/", "=404"};
    EXPECT_EQ(describe(resolve_route(options, "/dir/", "")), "php /dir/index.php");
    EXPECT_EQ(describe(resolve_route(options, "/noindex/", "")), "status 404");
    EXPECT_EQ(describe(resolve_route(options, "/missing", "")), "status 404");
}

TEST_F(RouterResolve, TryFilesStatusAndQueryPassThrough) {
    router_options options{root_};
    options.try_files = {"{path}", "/sub/app.php?{query}"};
    EXPECT_EQ(describe(resolve_route(options, "/nothing/here", "a=1")), "php /sub/app.php");
    options.try_files = {"=403"};
    EXPECT_EQ(describe(resolve_route(options, "/hello.txt", "")), "status 403");
}

TEST_F(RouterResolve, ResidentWorkerScriptsRouteWithoutTheirFile) {
    // A worker keeps serving its script whatever happened to the file: routing takes it as
    // present (there is no worker.php under root_).
    router_options options{root_};
    options.index = "worker.php";
    add_resident(options, root_ + "/worker.php");
    EXPECT_EQ(describe(resolve_route(options, "/", "")), "php /worker.php");
    EXPECT_EQ(describe(resolve_route(options, "/missing/route", "")), "php /worker.php");
    EXPECT_EQ(describe(resolve_route(options, "/worker.php/extra", "")), "php /worker.php /extra");
    // Files still win over the front controller, and directories still redirect.
    EXPECT_EQ(describe(resolve_route(options, "/hello.txt", "")), "static /hello.txt");
    options.index = "index.php";
    EXPECT_EQ(describe(resolve_route(options, "/dir", "")), "redirect /dir/");
}

TEST_F(RouterResolve, OnlyScriptsUnderTheRootWithoutHiddenNamesAreResident) {
    router_options options{root_};
    add_resident(options, root_ + "/sub/app.php");
    add_resident(options, root_ + "/.private/worker.php");
    add_resident(options, base_.string() + "/elsewhere.php");
    add_resident(options, root_);
    EXPECT_EQ(options.resident, std::vector<std::string>{"/sub/app.php"});
}

TEST_F(RouterResolve, TryFilesWithoutMatchIsNotFound) {
    router_options options{root_};
    options.try_files = {"{path}"};
    EXPECT_EQ(describe(resolve_route(options, "/missing", "")), "not_found");
}

TEST_F(RouterResolve, SplitUsesTheConfiguredExtensions) {
    router_options options{root_};
    options.split = {".phpx"};
    // Without ".php" in the list a .php file is no script, and its source is still never sent.
    EXPECT_EQ(describe(resolve_route(options, "/app.php", "")), php_source);
    EXPECT_EQ(describe(resolve_route(options, "/weird.phpx/b.php", "")), php_source);
    options.split = {".php", ".phtml"};
    EXPECT_EQ(describe(resolve_route(options, "/source.phtml/x", "")), "php /source.phtml /x");
}

TEST_F(RouterResolve, StaticSiteNeverRunsPhp) {
    router_options options{root_};
    options.php = false;
    EXPECT_EQ(describe(resolve_route(options, "/hello.txt", "")), "static /hello.txt");
    EXPECT_EQ(describe(resolve_route(options, "/app.php", "")), php_source);
    EXPECT_EQ(describe(resolve_route(options, "/missing", "")), php_source);
}

}  // namespace
}  // namespace spindle::server

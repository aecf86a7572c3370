// libFuzzer target: arbitrary request paths through normalize_path() and resolve_route()
// against a small fixed tree with dotfiles, PHP sources and symlinks leaving the root. Any
// route that names a file outside the root, a hidden segment, a PHP source sent as a file or
// a redirect to another host is a bug, as is a crash or a sanitizer report.
// Run it with scripts/fuzz.sh.

#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "server/routing/router.hpp"

namespace {

namespace fs = std::filesystem;
using namespace spindle::server;

void check(bool holds, const char* what, std::string_view input) {
    if (!holds) {
        std::fprintf(stderr, "path_fuzz: invariant broken: %s (input %.*s)\n", what,
                     static_cast<int>(input.size()), input.data());
        std::abort();
    }
}

// The tree, made once per process in a fresh temporary directory.
struct tree {
    std::string root;
    router_options options;
    router_options custom;  ///< try_files, another split list

    tree() {
        std::string pattern = (fs::temp_directory_path() / "spindle-path-fuzz-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            std::abort();
        }
        const fs::path base = fs::canonical(pattern);
        root = (base / "www").string();
        for (const char* file :
             {"index.php", "a.txt", "dir/index.php", "dir/page.html", "script.php/inner.txt",
              ".env", ".git/config", "x.phtml", ".well-known/t.txt", "sub/deep/f.css"}) {
            const fs::path path = fs::path(root) / file;
            fs::create_directories(path.parent_path());
            std::ofstream(path) << "x";
        }
        fs::create_directories(base / "outside");
        std::ofstream(base / "outside" / "secret.txt") << "s";
        fs::create_symlink(base / "outside" / "secret.txt", fs::path(root) / "leak.txt");
        fs::create_directory_symlink(base / "outside", fs::path(root) / "out");
        fs::create_symlink("index.php", fs::path(root) / "alias.txt");
        options.root = root;
        custom.root = root;
        custom.try_files = {"{path}", "{path}/", "/dir/index.php?{query}", "=404"};
        custom.split = {".php", ".phtml"};
    }
};

bool under_root(const std::string& file, const std::string& root) {
    return file.size() > root.size() && file.starts_with(root) && file[root.size()] == '/';
}

void check_route(const route& r, const tree& t, std::string_view input) {
    switch (r.kind) {
        case route_kind::php:
            check(under_root(r.file, t.root), "script outside the root", input);
            check(r.file == t.root + r.script_name, "script file is not root + name", input);
            check(r.script_name.find("/.") == std::string::npos ||
                      r.script_name.starts_with("/.well-known/"),
                  "hidden script", input);
            break;
        case route_kind::static_file: {
            check(under_root(r.file, t.root), "static file outside the root", input);
            std::error_code ec;
            const fs::path real = fs::canonical(r.file, ec);
            check(!ec && under_root(real.string(), t.root), "static file leaves the root", input);
            check(real.extension() != ".php", "PHP source served", input);
            break;
        }
        case route_kind::redirect:
            check(r.location.starts_with('/') && !r.location.starts_with("//"),
                  "redirect leaves the host", input);
            check(r.location.find_first_of("\r\n\\ ") == std::string::npos,
                  "unsafe byte in a redirect", input);
            break;
        default: break;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const tree t;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t question = input.find('?');
    const std::string_view path = input.substr(0, question);
    const std::string_view query =
        question == std::string_view::npos ? std::string_view() : input.substr(question + 1);

    if (const std::optional<std::string> normal = normalize_path(path)) {
        check(normal->starts_with('/'), "normalised path without a leading slash", input);
        check(normal->find("//") == std::string::npos, "repeated slash", input);
        check(normal->find('\0') == std::string::npos, "NUL in a path", input);
        check(normal->find("/../") == std::string::npos && !normal->ends_with("/.."),
              "dot-dot segment left", input);
        // A normalised path without '%' is its own normal form.
        if (normal->find('%') == std::string::npos) {
            check(normalize_path(*normal) == normal, "normalising twice changes the path", input);
        }
    }
    check_route(resolve_route(t.options, path, query), t, input);
    check_route(resolve_route(t.custom, path, query), t, input);
    return 0;
}

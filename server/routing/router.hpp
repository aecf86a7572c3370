#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spindle::server {

/// How requests map onto the document root.
struct router_options {
    std::string root;  ///< absolute, canonical (realpath) document root, no trailing slash
    /// A plain PHP file name: directory index and fallback. Empty (`index off`): none, and no
    /// try_files either; a request names its file or nothing.
    std::string index = "index.php";
    bool file_server = true;  ///< serve non-PHP files
    bool php = true;          ///< run PHP scripts (false: a static site)
    /// try_files candidates: "{path}" is the request path, a trailing '/' asks for a directory
    /// (its index), "=CODE" answers with that status. Empty: {path} {path}/{index} {index}.
    std::vector<std::string> try_files{};
    /// Extensions that end a script name; what follows becomes PATH_INFO (split_path).
    std::vector<std::string> split{".php"};
    /// Follow symlinks whose target is outside the root (Apache's FollowSymLinks, nginx's and
    /// Caddy's default), for trees that link into shared directories, as Debian's packaged
    /// apps do. Hidden names and PHP sources stay unserved either way. false: such links count
    /// as missing.
    bool follow_symlinks = false;
    /// The site's other roots (canonical): a symlink under `root` may lead into one of them, as
    /// Debian's /var/lib/wordpress/wp-content/themes/* lead into /usr/share/wordpress. Anything
    /// outside every root of the site stays unreachable.
    std::vector<std::string> other_roots{};
    /// URL paths of the worker scripts under `root`: files for routing without a lookup.
    std::vector<std::string> resident{};
    /// DOCUMENT_ROOT and the start of SCRIPT_FILENAME when they differ from `root`: the root
    /// as written (`resolve_root_symlink false`). Empty: `root`.
    std::string document_root{};
};

/// The options for the request paths matching `match` (a site's `root /path/* DIR`).
struct path_router {
    std::string match;  ///< Caddy path matcher syntax
    router_options options;
};

/// Adds a worker's script (absolute, canonical) to options.resident when it lies under the
/// root with no hidden name on the way.
void add_resident(router_options& options, const std::string& file);

/// The options of the first of `routers` whose pattern matches the request path (percent-encoded,
/// as in the request line), or `fallback`. Callers keep `routers` sorted with the most specific
/// (longest) pattern first. A malformed path gets `fallback`, whose resolve_route rejects it.
const router_options& select_router(const std::vector<path_router>& routers,
                                    const router_options& fallback, std::string_view raw_path);

/// What the server does with a request.
enum class route_kind {
    php,          ///< run route::file as a PHP script
    static_file,  ///< send route::file as it is
    redirect,     ///< 308 to route::location
    not_found,    ///< 404
    forbidden,    ///< 403 with route::reason
    bad_request,  ///< 400 with route::reason
    status,       ///< an empty response with route::status (try_files "=404")
};

/// The name of a route kind, for logs and test output.
std::string_view to_string(route_kind kind);

/// The outcome of resolve_route.
struct route {
    route_kind kind = route_kind::not_found;
    std::string file;         ///< php: root + script_name; static_file: root + decoded path
    std::string script_name;  ///< php: URL path of the script, e.g. "/index.php"
    std::string path_info;    ///< php: decoded rest of the path after the script ("" if none)
    std::string location;     ///< redirect: target, e.g. "/dir/?a=1", safely percent-encoded
    std::string reason;       ///< bad_request/forbidden: short human text for the response body
    int status = 0;           ///< status: the code to answer
};

/// Percent-decodes and normalises the path part of an origin-form request target.
/// Returns nullopt for a malformed path: not starting with '/', bad %-escape, NUL (raw or %00),
/// or dot-segments that climb above the root. Merges repeated slashes, resolves "." and ".."
/// (also when written as %2e), and keeps a trailing slash ("/a/b/.." gives "/a/"). "%2F"
/// decodes to a separator; a backslash is an ordinary character.
std::optional<std::string> normalize_path(std::string_view raw_path);

/// Resolves a request path against the document root with FrankenPHP php_server semantics:
/// canonical redirect of a directory holding the index to its trailing-slash form, then
/// try_files (by default {path} {path}/{index} {index}) with each candidate split after a
/// split extension (".php") into script and PATH_INFO. Paths with a segment starting with '.'
/// (other than ".well-known") and, unless options.follow_symlinks, files whose canonical path
/// leaves the root count as missing; PHP
/// sources are never sent as files. raw_path is still percent-encoded; query is the raw query
/// string without '?' ("" if none), used only for redirects. Reads the filesystem (stat/realpath)
/// but never opens a file.
route resolve_route(const router_options& options, std::string_view raw_path,
                    std::string_view query);

}  // namespace spindle::server

#include "config/json_config.hpp"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "config/ip_ranges.hpp"
#include "config/listen_address.hpp"
#include "config/units.hpp"
#include "config/watch_pattern.hpp"

namespace spindle::config {

namespace {

std::string child(const std::string& pointer, std::string_view key) {
    return pointer_child(pointer, key);
}

std::string child(const std::string& pointer, std::size_t index) {
    return pointer + "/" + std::to_string(index);
}

// A value in quotes for a message, control characters escaped: a message is one log line, and
// what() ends at a NUL.
std::string printable(std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out = "\"";
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\r') {
            out += "\\r";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (byte < 0x20 || byte == 0x7f) {
            out += std::string("\\x") + hex[byte >> 4] + hex[byte & 0xf];
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// RFC 9110 token characters, the only ones a field name may hold.
bool is_header_name(std::string_view name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
    });
}

// The last key of a pointer, for messages ("max_wait_time: ...").
std::string last_key(const std::string& pointer) {
    return pointer.substr(pointer.rfind('/') + 1);
}

// Walks one document, keeping the JSON pointer of what it reads so every error can say where.
class document_reader {
  public:
    document_reader(const std::string& file, const source_map& sources)
        : file_(file), sources_(sources) {}

    source_location where(const std::string& pointer) const {
        // The nearest written ancestor: a Caddyfile directive maps its whole subtree.
        for (std::string p = pointer;; p.erase(p.rfind('/'))) {
            if (auto it = sources_.find(p); it != sources_.end()) {
                return {it->second.file, it->second.line, pointer};
            }
            if (p.empty()) {
                break;
            }
        }
        return {file_, 0, pointer};
    }

    [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
        const source_location location = where(pointer);
        // With a line the reader knows the setting; without one the pointer names it. An array
        // index ("/sites/0") names nothing the reader wrote, so it is left out.
        const std::string key = last_key(pointer);
        const bool is_index =
            !key.empty() && key.find_first_not_of("0123456789") == std::string::npos;
        throw located_error(location, location.line > 0 && !pointer.empty() && !is_index
                                          ? key + ": " + message
                                          : message);
    }

    const json& object(const json& value, const std::string& pointer,
                       std::initializer_list<std::string_view> keys) const {
        if (!value.is_object()) {
            fail(pointer, "must be an object");
        }
        for (const auto& [key, unused] : value.items()) {
            if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
                fail(child(pointer, key), "unknown setting \"" + key + "\"");
            }
        }
        return value;
    }

    std::string string(const json& value, const std::string& pointer) const {
        if (!value.is_string()) {
            fail(pointer, "must be a string");
        }
        return value.get<std::string>();
    }

    bool boolean(const json& value, const std::string& pointer) const {
        if (!value.is_boolean()) {
            fail(pointer, "must be true or false");
        }
        return value.get<bool>();
    }

    std::uint64_t integer(const json& value, const std::string& pointer, std::uint64_t min,
                          std::uint64_t max) const {
        if (!value.is_number_integer() ||
            (value.is_number_integer() && !value.is_number_unsigned() &&
             value.get<std::int64_t>() < 0) ||
            value.get<std::uint64_t>() < min || value.get<std::uint64_t>() > max) {
            fail(pointer,
                 "must be an integer from " + std::to_string(min) + " to " + std::to_string(max));
        }
        return value.get<std::uint64_t>();
    }

    // Only the parse is in the try: a type error from string() is already located.
    std::chrono::milliseconds duration(const json& value, const std::string& pointer) const {
        if (!value.is_string()) {
            fail(pointer, "must be a duration string such as \"30s\"");
        }
        try {
            return parse_duration(value.get<std::string>());
        } catch (const config_error& e) {
            fail(pointer, e.message());
        }
    }

    std::size_t size(const json& value, const std::string& pointer) const {
        if (value.is_number_unsigned()) {
            return value.get<std::size_t>();
        }
        if (!value.is_string()) {
            fail(pointer, "must be a number of bytes or a size string such as \"64KiB\"");
        }
        try {
            return parse_size(value.get<std::string>());
        } catch (const config_error& e) {
            fail(pointer, e.message());
        }
    }

    std::vector<std::string> strings(const json& value, const std::string& pointer) const {
        if (!value.is_array()) {
            fail(pointer, "must be an array of strings");
        }
        std::vector<std::string> out;
        for (std::size_t i = 0; i < value.size(); ++i) {
            out.push_back(string(value[i], child(pointer, i)));
        }
        return out;
    }

    // {"NAME": "value", ...} in document order.
    string_pairs pairs(const json& value, const std::string& pointer) const {
        if (!value.is_object()) {
            fail(pointer, "must be an object of strings");
        }
        string_pairs out;
        for (const auto& [key, item] : value.items()) {
            if (key.empty()) {
                fail(pointer, "a name is empty");
            }
            out.emplace_back(key, string(item, child(pointer, key)));
        }
        return out;
    }

    // An environment name: PHP would make a NUL or '=' in it a different variable.
    string_pairs env(const json& value, const std::string& pointer) const {
        string_pairs out = pairs(value, pointer);
        for (const auto& [name, unused] : out) {
            // A NUL would cut the pointer short in the message: name the object instead.
            if (name.find('\0') != std::string::npos) {
                fail(pointer, "an environment name cannot contain NUL or '='");
            }
            if (name.find('=') != std::string::npos) {
                fail(child(pointer, name), "an environment name cannot contain NUL or '='");
            }
        }
        return out;
    }

    std::string path_pattern(const json& value, const std::string& pointer) const {
        std::string pattern = string(value, pointer);
        if (pattern.empty() || (pattern.front() != '/' && pattern.front() != '*')) {
            fail(pointer, "path pattern \"" + pattern + "\" must start with '/' or '*'");
        }
        return pattern;
    }

    worker_config worker(const json& value, const std::string& pointer) const {
        object(value, pointer,
               {"file", "num", "max_threads", "name", "env", "match", "max_requests", "max_memory",
                "max_consecutive_failures", "watch"});
        worker_config w;
        w.origin = where(pointer);
        if (!value.contains("file")) {
            fail(pointer, "a worker needs a \"file\"");
        }
        w.file = string(value["file"], child(pointer, "file"));
        if (w.file.empty()) {
            fail(child(pointer, "file"), "the worker file is empty");
        }
        if (value.contains("num")) {
            w.num = integer(value["num"], child(pointer, "num"), 1, 4096);
        }
        if (value.contains("max_threads")) {
            w.max_threads = integer(value["max_threads"], child(pointer, "max_threads"), 1, 4096);
        }
        if (value.contains("name")) {
            w.name = string(value["name"], child(pointer, "name"));
        }
        if (value.contains("env")) {
            w.env = env(value["env"], child(pointer, "env"));
        }
        if (value.contains("match")) {
            const std::string at = child(pointer, "match");
            if (!value["match"].is_array()) {
                fail(at, "must be an array of path patterns");
            }
            for (std::size_t i = 0; i < value["match"].size(); ++i) {
                w.match.push_back(path_pattern(value["match"][i], child(at, i)));
            }
        }
        if (value.contains("max_requests")) {
            w.max_requests = integer(value["max_requests"], child(pointer, "max_requests"), 0,
                                     std::numeric_limits<std::uint32_t>::max());
        }
        if (value.contains("max_memory")) {
            w.max_memory = size(value["max_memory"], child(pointer, "max_memory"));
        }
        if (value.contains("max_consecutive_failures")) {
            const json& failures = value["max_consecutive_failures"];
            const std::string at = child(pointer, "max_consecutive_failures");
            // A value too large for int64 reads back negative; only a signed -1 means "never".
            const bool is_never = failures.is_number_integer() && !failures.is_number_unsigned() &&
                                  failures.get<std::int64_t>() == -1;
            if (!is_never && (!failures.is_number_integer() || failures.get<std::int64_t>() < 1 ||
                              failures.get<std::int64_t>() > 1000)) {
                fail(at, "must be -1 (never give up) or an integer from 1 to 1000");
            }
            w.max_consecutive_failures = static_cast<int>(failures.get<std::int64_t>());
        }
        if (value.contains("watch")) {
            const std::string at = child(pointer, "watch");
            if (!value["watch"].is_array() || value["watch"].empty()) {
                fail(at, "must be a non-empty array of file patterns");
            }
            for (std::size_t i = 0; i < value["watch"].size(); ++i) {
                std::string pattern = string(value["watch"][i], child(at, i));
                try {
                    parse_watch_pattern(pattern, "/");
                } catch (const std::invalid_argument& e) {
                    fail(child(at, i), e.what());
                }
                w.watch.push_back(std::move(pattern));
            }
        }
        return w;
    }

    std::vector<worker_config> workers(const json& value, const std::string& pointer) const {
        if (!value.is_array()) {
            fail(pointer, "must be an array of workers");
        }
        std::vector<worker_config> out;
        for (std::size_t i = 0; i < value.size(); ++i) {
            out.push_back(worker(value[i], child(pointer, i)));
        }
        return out;
    }

    header_rule header(const json& value, const std::string& pointer) const {
        object(value, pointer, {"op", "name", "value"});
        header_rule rule;
        const std::string op =
            value.contains("op") ? string(value["op"], child(pointer, "op")) : "set";
        if (op == "set") {
            rule.operation = header_rule::op::set;
        } else if (op == "add") {
            rule.operation = header_rule::op::add;
        } else if (op == "remove") {
            rule.operation = header_rule::op::remove;
        } else {
            fail(child(pointer, "op"),
                 "unknown header operation \"" + op + "\" (use set, add or remove)");
        }
        if (!value.contains("name")) {
            fail(pointer, "a header rule needs a \"name\"");
        }
        rule.name = string(value["name"], child(pointer, "name"));
        if (!is_header_name(rule.name)) {
            fail(child(pointer, "name"), printable(rule.name) + " is not a header name");
        }
        std::string lowered = rule.name;
        std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (lowered == "content-length" || lowered == "transfer-encoding" ||
            lowered == "connection") {
            fail(child(pointer, "name"), rule.name + " frames the response and cannot be changed");
        }
        if (value.contains("value")) {
            rule.value = string(value["value"], child(pointer, "value"));
        }
        if (rule.value.find_first_of("\r\n") != std::string::npos ||
            rule.value.find('\0') != std::string::npos) {
            fail(child(pointer, "value"), "a header value cannot contain CR, LF or NUL");
        }
        if (rule.operation != header_rule::op::remove && !value.contains("value")) {
            fail(pointer, "header " + rule.name + " needs a \"value\"");
        }
        return rule;
    }

    respond_rule respond(const json& value, const std::string& pointer) const {
        object(value, pointer, {"path", "status", "body"});
        respond_rule rule;
        if (value.contains("path")) {
            rule.path = path_pattern(value["path"], child(pointer, "path"));
        }
        if (value.contains("status")) {
            rule.status =
                static_cast<int>(integer(value["status"], child(pointer, "status"), 100, 999));
        }
        if (value.contains("body")) {
            rule.body = string(value["body"], child(pointer, "body"));
        }
        return rule;
    }

    // A format: "gzip", or {"name": "gzip", "level": 6}.
    encode_format encode_format_of(const json& value, const std::string& pointer) const {
        encode_format format;
        if (value.is_string()) {
            format.name = value.get<std::string>();
        } else if (value.is_object()) {
            object(value, pointer, {"name", "level"});
            if (!value.contains("name")) {
                fail(pointer, "a format needs a \"name\"");
            }
            format.name = string(value["name"], child(pointer, "name"));
        } else {
            fail(pointer, "must be a format name or {\"name\": ..., \"level\": ...}");
        }
        const std::string at = value.is_string() ? pointer : child(pointer, "name");
        int max_level = 0;
        if (format.name == "gzip") {
            max_level = 9;
        } else if (format.name == "zstd") {
            max_level = 19;
        } else if (format.name == "br") {
            max_level = 11;
        } else {
            fail(at, "unknown format " + printable(format.name) + " (use zstd, br or gzip)");
        }
        if (value.is_object() && value.contains("level")) {
            format.level = static_cast<int>(integer(value["level"], child(pointer, "level"), 1,
                                                    static_cast<std::uint64_t>(max_level)));
        }
        return format;
    }

    encode_config encode(const json& value, const std::string& pointer) const {
        object(value, pointer, {"formats", "minimum_length", "types"});
        // Caddy's `encode` without formats: zstd and gzip.
        encode_config e{{{"zstd", 0}, {"gzip", 0}}, 512, {}};
        if (value.contains("formats")) {
            const std::string at = child(pointer, "formats");
            if (!value["formats"].is_array() || value["formats"].empty()) {
                fail(at, "must be a non-empty array of formats (zstd, br, gzip)");
            }
            e.formats.clear();
            for (std::size_t i = 0; i < value["formats"].size(); ++i) {
                encode_format format = encode_format_of(value["formats"][i], child(at, i));
                for (const encode_format& earlier : e.formats) {
                    if (earlier.name == format.name) {
                        fail(child(at, i), "format " + format.name + " is given twice");
                    }
                }
                e.formats.push_back(std::move(format));
            }
        }
        if (value.contains("minimum_length")) {
            e.minimum_length = size(value["minimum_length"], child(pointer, "minimum_length"));
        }
        if (value.contains("types")) {
            const std::string at = child(pointer, "types");
            e.types = strings(value["types"], at);
            if (e.types.empty()) {
                fail(at, "must list at least one Content-Type pattern");
            }
            for (const std::string& type : e.types) {
                if (type.empty() || type.find_first_of(" \t\r\n,;") != std::string::npos) {
                    fail(at, printable(type) +
                                 " is not a Content-Type pattern (e.g. text/*, application/json, "
                                 "*+json)");
                }
            }
        }
        return e;
    }

    path_root path_root_entry(const json& value, const std::string& pointer) const {
        object(value, pointer, {"match", "root"});
        if (!value.contains("match") || !value.contains("root")) {
            fail(pointer, "a path root needs \"match\" and \"root\"");
        }
        path_root entry;
        entry.match = path_pattern(value["match"], child(pointer, "match"));
        entry.root = string(value["root"], child(pointer, "root"));
        if (entry.root.empty()) {
            fail(child(pointer, "root"), "must name a directory");
        }
        entry.origin = where(pointer);
        return entry;
    }

    // {"output": "stderr" | "stdout" | "file", "file", "roll_size", "roll_keep",
    // "roll_disabled", "format"}
    access_log_output access_log(const json& value, const std::string& pointer) const {
        object(value, pointer,
               {"output", "file", "roll_size", "roll_keep", "roll_disabled", "format"});
        access_log_output out;
        const std::string output =
            value.contains("output") ? string(value["output"], child(pointer, "output")) : "stderr";
        if (output == "stdout") {
            out.to = access_log_output::destination::standard_output;
        } else if (output == "file") {
            out.to = access_log_output::destination::file;
            if (!value.contains("file")) {
                fail(pointer, "output \"file\" needs \"file\": the path to write to");
            }
            out.file = string(value["file"], child(pointer, "file"));
            if (out.file.empty()) {
                fail(child(pointer, "file"), "must not be empty");
            }
        } else if (output != "stderr") {
            fail(child(pointer, "output"),
                 "\"" + output + "\" is not an output (use stderr, stdout or file)");
        }
        if (value.contains("roll_size")) {
            out.roll_size = size(value["roll_size"], child(pointer, "roll_size"));
            if (out.roll_size == 0) {
                fail(child(pointer, "roll_size"), "must be above 0");
            }
        }
        if (value.contains("roll_keep")) {
            out.roll_keep = integer(value["roll_keep"], child(pointer, "roll_keep"), 1, 100'000);
        }
        if (value.contains("roll_disabled")) {
            out.roll = !boolean(value["roll_disabled"], child(pointer, "roll_disabled"));
        }
        if (value.contains("format")) {
            out.format = string(value["format"], child(pointer, "format"));
            if (out.format != "console" && out.format != "json") {
                fail(child(pointer, "format"), "use console or json");
            }
        }
        return out;
    }

    x_sendfile_config x_sendfile(const json& value, const std::string& pointer) const {
        object(value, pointer, {"root", "accel_redirect"});
        x_sendfile_config out;
        out.origin = where(pointer);
        if (value.contains("root")) {
            out.roots = strings(value["root"], child(pointer, "root"));
            for (const std::string& root : out.roots) {
                if (root.empty()) {
                    fail(child(pointer, "root"), "a directory is empty");
                }
            }
        }
        if (value.contains("accel_redirect")) {
            const std::string at = child(pointer, "accel_redirect");
            if (!value["accel_redirect"].is_array()) {
                fail(at, "must be an array of {\"prefix\", \"root\"} objects");
            }
            for (std::size_t i = 0; i < value["accel_redirect"].size(); ++i) {
                const json& entry = value["accel_redirect"][i];
                const std::string entry_at = child(at, i);
                object(entry, entry_at, {"prefix", "root"});
                if (!entry.contains("prefix") || !entry.contains("root")) {
                    fail(entry_at, "needs a \"prefix\" and a \"root\"");
                }
                accel_mapping mapping{string(entry["prefix"], child(entry_at, "prefix")),
                                      string(entry["root"], child(entry_at, "root"))};
                if (!mapping.prefix.starts_with('/')) {
                    fail(child(entry_at, "prefix"),
                         "\"" + mapping.prefix + "\" must be a URL path starting with '/'");
                }
                if (!mapping.prefix.ends_with('/')) {
                    mapping.prefix.push_back('/');
                }
                if (mapping.root.empty()) {
                    fail(child(entry_at, "root"), "the directory is empty");
                }
                out.accel_redirect.push_back(std::move(mapping));
            }
        }
        if (out.roots.empty() && out.accel_redirect.empty()) {
            fail(pointer, "needs a \"root\" or an \"accel_redirect\" mapping");
        }
        return out;
    }

    site_config site(const json& value, const std::string& pointer) const {
        object(value, pointer,
               {"listen",
                "hosts",
                "root",
                "path_roots",
                "index",
                "php",
                "file_server",
                "try_files",
                "split",
                "follow_symlinks",
                "env",
                "workers",
                "headers",
                "respond",
                "respond_after_php",
                "resolve_root_symlink",
                "access_log",
                "encode",
                "x_sendfile",
                "tls",
                "redirect_to_https"});
        site_config s;
        s.origin = where(pointer);
        if (value.contains("listen")) {
            s.listen.clear();
            const std::string at = child(pointer, "listen");
            for (const std::string& text : strings(value["listen"], at)) {
                try {
                    listen_address address = parse_listen_address(text);
                    if (std::find(s.listen.begin(), s.listen.end(), address) == s.listen.end()) {
                        s.listen.push_back(std::move(address));
                    }
                } catch (const config_error& e) {
                    fail(at, e.message());
                }
            }
            if (s.listen.empty()) {
                fail(at, "a site needs at least one address");
            }
        }
        if (value.contains("hosts")) {
            for (std::string host : strings(value["hosts"], child(pointer, "hosts"))) {
                std::transform(host.begin(), host.end(), host.begin(),
                               [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
                if (host.empty() || host.find_first_of(" /\t") != std::string::npos) {
                    fail(child(pointer, "hosts"), "\"" + host + "\" is not a host name");
                }
                s.hosts.push_back(std::move(host));
            }
        }
        if (value.contains("root")) {
            s.root = string(value["root"], child(pointer, "root"));
        }
        if (value.contains("path_roots")) {
            const std::string at = child(pointer, "path_roots");
            if (!value["path_roots"].is_array()) {
                fail(at, "must be an array");
            }
            for (std::size_t i = 0; i < value["path_roots"].size(); ++i) {
                s.path_roots.push_back(path_root_entry(value["path_roots"][i], child(at, i)));
            }
        }
        if (value.contains("index") && value["index"] == false) {
            // php_server's `index off`: no directory index, no front controller.
            s.index.clear();
        } else if (value.contains("index")) {
            s.index = string(value["index"], child(pointer, "index"));
            if (s.index.empty() || s.index.find('/') != std::string::npos ||
                s.index.front() == '.') {
                fail(child(pointer, "index"),
                     "index \"" + s.index + "\" must be a file name, e.g. index.php");
            }
        }
        if (value.contains("php")) {
            s.php = boolean(value["php"], child(pointer, "php"));
        }
        if (value.contains("file_server")) {
            s.file_server = boolean(value["file_server"], child(pointer, "file_server"));
        }
        if (value.contains("try_files")) {
            s.try_files = strings(value["try_files"], child(pointer, "try_files"));
            for (const std::string& candidate : s.try_files) {
                if (!candidate.starts_with('/') && !candidate.starts_with('{') &&
                    !candidate.starts_with('=')) {
                    fail(child(pointer, "try_files"),
                         "\"" + candidate + "\" must start with '/', '{path}' or '='");
                }
            }
        }
        if (value.contains("split")) {
            s.split = strings(value["split"], child(pointer, "split"));
            for (const std::string& extension : s.split) {
                if (extension.size() < 2 || extension.front() != '.') {
                    fail(child(pointer, "split"), "\"" + extension + "\" is not an extension");
                }
            }
        }
        if (value.contains("follow_symlinks")) {
            s.follow_symlinks =
                boolean(value["follow_symlinks"], child(pointer, "follow_symlinks"));
        }
        if (value.contains("env")) {
            s.env = env(value["env"], child(pointer, "env"));
        }
        if (value.contains("workers")) {
            s.workers = workers(value["workers"], child(pointer, "workers"));
        }
        if (value.contains("headers")) {
            const std::string at = child(pointer, "headers");
            if (!value["headers"].is_array()) {
                fail(at, "must be an array");
            }
            for (std::size_t i = 0; i < value["headers"].size(); ++i) {
                s.headers.push_back(header(value["headers"][i], child(at, i)));
            }
        }
        if (value.contains("x_sendfile")) {
            s.x_sendfile = x_sendfile(value["x_sendfile"], child(pointer, "x_sendfile"));
        }
        if (value.contains("respond")) {
            const std::string at = child(pointer, "respond");
            if (!value["respond"].is_array()) {
                fail(at, "must be an array");
            }
            for (std::size_t i = 0; i < value["respond"].size(); ++i) {
                s.responds.push_back(respond(value["respond"][i], child(at, i)));
            }
        }
        if (value.contains("resolve_root_symlink")) {
            s.resolve_root_symlink =
                boolean(value["resolve_root_symlink"], child(pointer, "resolve_root_symlink"));
        }
        if (value.contains("respond_after_php")) {
            s.respond_after_php =
                boolean(value["respond_after_php"], child(pointer, "respond_after_php"));
        }
        if (value.contains("access_log") && value["access_log"].is_object()) {
            s.access_log = true;
            s.access_log_to = access_log(value["access_log"], child(pointer, "access_log"));
        } else if (value.contains("access_log")) {
            s.access_log = boolean(value["access_log"], child(pointer, "access_log"));
        }
        if (value.contains("encode")) {
            s.encode = encode(value["encode"], child(pointer, "encode"));
        }
        site_tls(value, pointer, s);
        if (!s.php && !s.file_server && s.responds.empty()) {
            fail(pointer, "the site serves nothing: enable php or file_server, or add respond");
        }
        return s;
    }

    // "tls" and "redirect_to_https", checked against the site's addresses: https:// addresses
    // and a certificate come together.
    void site_tls(const json& value, const std::string& pointer, site_config& s) const {
        const bool has_https = std::any_of(s.listen.begin(), s.listen.end(),
                                           [](const listen_address& a) { return a.tls; });
        if (value.contains("tls")) {
            const std::string at = child(pointer, "tls");
            object(value["tls"], at, {"certificate", "key", "issuer", "email"});
            tls_config tls;
            tls.origin = where(at);
            const json& node = value["tls"];
            if (node.contains("issuer")) {
                // A certificate Spindle obtains (acme) or makes (internal) for the site's hosts.
                const std::string issuer = string(node["issuer"], child(at, "issuer"));
                if (issuer == "acme") {
                    tls.from = tls_config::source::acme;
                } else if (issuer == "internal") {
                    tls.from = tls_config::source::internal;
                } else {
                    fail(child(at, "issuer"), "\"" + issuer + "\": use \"acme\" or \"internal\"");
                }
                if (node.contains("certificate") || node.contains("key")) {
                    fail(at, "\"issuer\" and certificate files exclude each other");
                }
                if (node.contains("email")) {
                    tls.email = string(node["email"], child(at, "email"));
                }
                if (s.hosts.empty()) {
                    fail(at, "a managed certificate needs the site's \"hosts\" (its names)");
                }
            } else {
                if (node.contains("email")) {
                    fail(child(at, "email"), "\"email\" goes with \"issuer\": \"acme\"");
                }
                for (auto [key, file] :
                     {std::pair<const char*, std::string*>{"certificate", &tls.certificate},
                      {"key", &tls.key}}) {
                    if (!node.contains(key)) {
                        fail(at, std::string("tls needs \"") + key +
                                     "\" (a PEM file), or \"issuer\": \"acme\"");
                    }
                    *file = string(node[key], child(at, key));
                    if (file->empty()) {
                        fail(child(at, key), "empty file name");
                    }
                }
            }
            if (!has_https) {
                fail(at, "the site has a certificate but no https:// address in \"listen\"");
            }
            s.tls = std::move(tls);
        } else if (has_https) {
            fail(child(pointer, "listen"),
                 "https:// addresses need the site's certificate: add \"tls\": "
                 "{\"certificate\": FILE, \"key\": FILE} or {\"issuer\": \"acme\"}");
        }
        if (value.contains("redirect_to_https")) {
            const std::string at = child(pointer, "redirect_to_https");
            if (!s.tls) {
                fail(at, "only a site with \"tls\" can redirect to HTTPS");
            }
            for (const std::string& text : strings(value["redirect_to_https"], at)) {
                listen_address address;
                try {
                    address = parse_listen_address(text);
                } catch (const config_error& e) {
                    fail(at, e.message());
                }
                if (address.tls) {
                    fail(at, "\"" + text + "\": redirects are answered on plain http:// addresses");
                }
                if (std::find(s.redirect_to_https.begin(), s.redirect_to_https.end(), address) ==
                    s.redirect_to_https.end()) {
                    s.redirect_to_https.push_back(std::move(address));
                }
            }
        }
    }

    // "acme": {"ca", "email", "trusted_roots_pem_files"} (Caddy's ACME issuer names) and
    // "storage": {"module": "file_system", "root"} (Caddy's storage).
    void automation(const json& document, server_config& config) const {
        automation_config& a = config.automation;
        if (document.contains("acme")) {
            const json& node = document["acme"];
            object(node, "/acme", {"ca", "email", "trusted_roots_pem_files"});
            a.origin = where("/acme");
            if (node.contains("ca")) {
                a.ca = string(node["ca"], "/acme/ca");
                if (!a.ca.starts_with("https://")) {
                    fail("/acme/ca", "\"" + a.ca + "\": the CA's directory is an https:// URL");
                }
            }
            if (node.contains("email")) {
                a.email = string(node["email"], "/acme/email");
            }
            if (node.contains("trusted_roots_pem_files")) {
                a.trusted_roots =
                    strings(node["trusted_roots_pem_files"], "/acme/trusted_roots_pem_files");
            }
        }
        if (document.contains("storage")) {
            const json& node = document["storage"];
            object(node, "/storage", {"module", "root"});
            if (string(node.value("module", json("file_system")), "/storage/module") !=
                "file_system") {
                fail("/storage/module", "only \"file_system\" storage is supported");
            }
            if (!node.contains("root")) {
                fail("/storage", "storage needs \"root\" (a directory)");
            }
            a.storage = string(node["root"], "/storage/root");
        }
    }

    void http(const json& value, const std::string& pointer, server_config& config) const {
        object(value, pointer,
               {"io_threads", "max_connections", "max_header_size", "max_body_size",
                "body_memory_size", "response_memory_size", "response_memory_total",
                "max_response_file_size", "min_write_rate", "timeouts", "trusted_proxies",
                "trusted_proxies_strict", "trusted_proxies_unix", "trusted_proxies_host",
                "client_ip_headers", "listener_wrappers", "protocols"});
        trusted_proxies(value, pointer, config.trusted_proxies);
        if (value.contains("protocols")) {
            config.protocols = protocols(value["protocols"], child(pointer, "protocols"));
        }
        if (value.contains("listener_wrappers")) {
            config.proxy_protocol =
                listener_wrappers(value["listener_wrappers"], child(pointer, "listener_wrappers"));
        }
        http_limits& limits = config.limits;
        if (value.contains("io_threads")) {
            config.io_threads = integer(value["io_threads"], child(pointer, "io_threads"), 1, 1024);
        }
        if (value.contains("max_connections")) {
            limits.max_connections =
                integer(value["max_connections"], child(pointer, "max_connections"), 1, 10'000'000);
        }
        if (value.contains("max_header_size")) {
            limits.max_header_size =
                size(value["max_header_size"], child(pointer, "max_header_size"));
            if (limits.max_header_size == 0) {
                fail(child(pointer, "max_header_size"), "size must be above 0");
            }
        }
        if (value.contains("max_body_size")) {
            limits.max_body_size = size(value["max_body_size"], child(pointer, "max_body_size"));
        }
        if (value.contains("body_memory_size")) {
            limits.body_memory_size =
                size(value["body_memory_size"], child(pointer, "body_memory_size"));
        }
        const std::pair<const char*, std::size_t*> response_sizes[] = {
            {"response_memory_size", &limits.response_memory_size},
            {"response_memory_total", &limits.response_memory_total},
            {"max_response_file_size", &limits.max_response_file_size},
            {"min_write_rate", &limits.min_write_rate}};
        for (const auto& [key, target] : response_sizes) {
            if (value.contains(key)) {
                *target = size(value[key], child(pointer, key));
            }
        }
        if (value.contains("timeouts")) {
            const std::string at = child(pointer, "timeouts");
            const json& t =
                object(value["timeouts"], at, {"read_header", "read_body", "write", "idle"});
            const std::pair<const char*, std::chrono::milliseconds*> fields[] = {
                {"read_header", &limits.read_header_timeout},
                {"read_body", &limits.read_body_timeout},
                {"write", &limits.write_timeout},
                {"idle", &limits.idle_timeout}};
            for (const auto& [key, target] : fields) {
                if (t.contains(key)) {
                    *target = duration(t[key], child(at, key));
                }
            }
        }
    }

    // Caddy's names; h3 (QUIC) is refused rather than ignored, so no one counts on it.
    http_protocols protocols(const json& value, const std::string& pointer) const {
        const std::vector<std::string> names = strings(value, pointer);
        http_protocols out{false, false, false};
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (names[i] == "h1") {
                out.h1 = true;
            } else if (names[i] == "h2") {
                out.h2 = true;
            } else if (names[i] == "h2c") {
                out.h2c = true;
            } else {
                fail(child(pointer, i), "unknown protocol \"" + names[i] +
                                            "\" (Spindle speaks h1, h2 and h2c; not h3)");
            }
        }
        if (!out.h1 && !out.h2 && !out.h2c) {
            fail(pointer, "name at least one protocol (h1, h2, h2c)");
        }
        return out;
    }

    std::vector<std::string> ip_ranges(const json& value, const std::string& pointer) const {
        std::vector<std::string> ranges = strings(value, pointer);
        for (std::size_t i = 0; i < ranges.size(); ++i) {
            try {
                parse_ip_range(ranges[i]);
            } catch (const std::invalid_argument& e) {
                fail(child(pointer, i), e.what());
            }
        }
        return ranges;
    }

    // Caddy's server options of the same names (modules/caddyhttp/app.go, server.go).
    void trusted_proxies(const json& http, const std::string& pointer,
                         trusted_proxies_config& out) const {
        if (http.contains("trusted_proxies")) {
            const std::string at = child(pointer, "trusted_proxies");
            const json& source = object(http["trusted_proxies"], at, {"source", "ranges"});
            if (!source.contains("source") ||
                string(source["source"], child(at, "source")) != "static") {
                fail(child(at, "source"), "must be \"static\" (the only source Spindle has)");
            }
            if (source.contains("ranges")) {
                out.ranges = ip_ranges(source["ranges"], child(at, "ranges"));
            }
        }
        if (http.contains("trusted_proxies_strict")) {
            // Caddy writes it as an integer (1); a boolean reads as well.
            const json& strict = http["trusted_proxies_strict"];
            out.strict = strict.is_boolean()
                             ? strict.get<bool>()
                             : integer(strict, child(pointer, "trusted_proxies_strict"), 0, 1) == 1;
        }
        if (http.contains("trusted_proxies_unix")) {
            out.trust_unix =
                boolean(http["trusted_proxies_unix"], child(pointer, "trusted_proxies_unix"));
        }
        if (http.contains("trusted_proxies_host")) {
            out.use_host =
                boolean(http["trusted_proxies_host"], child(pointer, "trusted_proxies_host"));
        }
        if (http.contains("client_ip_headers")) {
            const std::string at = child(pointer, "client_ip_headers");
            out.client_ip_headers = strings(http["client_ip_headers"], at);
            for (std::size_t i = 0; i < out.client_ip_headers.size(); ++i) {
                if (!is_header_name(out.client_ip_headers[i])) {
                    fail(child(at, i),
                         printable(out.client_ip_headers[i]) + " is not a header name");
                }
            }
        }
    }

    // Caddy's listener_wrappers: proxy_protocol (caddyhttp/proxyprotocol) and tls, the place
    // of TLS in the chain, which Spindle always has after the PROXY header.
    std::optional<proxy_protocol_config> listener_wrappers(const json& value,
                                                           const std::string& pointer) const {
        if (!value.is_array()) {
            fail(pointer, "must be an array of wrappers");
        }
        std::optional<proxy_protocol_config> result;
        for (std::size_t i = 0; i < value.size(); ++i) {
            const std::string at = child(pointer, i);
            const json& wrapper = value[i];
            if (!wrapper.is_object() || !wrapper.contains("wrapper")) {
                fail(at, "must be an object with \"wrapper\": \"proxy_protocol\" or \"tls\"");
            }
            const std::string name = string(wrapper["wrapper"], child(at, "wrapper"));
            if (name == "tls") {
                object(wrapper, at, {"wrapper"});
                continue;
            }
            if (name != "proxy_protocol") {
                fail(child(at, "wrapper"), "unknown listener wrapper " + printable(name) +
                                               " (use proxy_protocol or tls)");
            }
            if (result) {
                fail(at, "proxy_protocol is given twice");
            }
            object(wrapper, at, {"wrapper", "timeout", "allow", "deny", "fallback_policy"});
            proxy_protocol_config& pp = result.emplace();
            if (wrapper.contains("timeout")) {
                pp.timeout = duration(wrapper["timeout"], child(at, "timeout"));
                if (pp.timeout.count() <= 0) {
                    fail(child(at, "timeout"), "must be above 0");
                }
            }
            if (wrapper.contains("allow")) {
                pp.allow = ip_ranges(wrapper["allow"], child(at, "allow"));
            }
            if (wrapper.contains("deny")) {
                pp.deny = ip_ranges(wrapper["deny"], child(at, "deny"));
            }
            if (wrapper.contains("fallback_policy")) {
                pp.fallback_policy =
                    string(wrapper["fallback_policy"], child(at, "fallback_policy"));
                const std::string& policy = pp.fallback_policy;
                if (policy != "ignore" && policy != "use" && policy != "reject" &&
                    policy != "require" && policy != "skip") {
                    fail(child(at, "fallback_policy"),
                         "unknown policy " + printable(policy) +
                             " (use ignore, use, reject, require or skip)");
                }
            }
        }
        return result;
    }

    void php(const json& value, const std::string& pointer, server_config& config) const {
        object(value, pointer,
               {"num_threads", "max_threads", "max_idle_time", "max_wait_time", "max_queue",
                "max_requests", "max_memory", "ini_file", "ini", "workers", "worker_restart_grace",
                "slowlog_timeout", "processes", "emergency_restart_threshold",
                "emergency_restart_interval"});
        if (value.contains("num_threads")) {
            config.num_threads =
                integer(value["num_threads"], child(pointer, "num_threads"), 1, 4096);
        }
        if (value.contains("max_threads")) {
            const std::string at = child(pointer, "max_threads");
            config.max_threads_origin = where(at);
            config.max_threads = value["max_threads"] == "auto"
                                     ? max_threads_auto
                                     : integer(value["max_threads"], at, 1, 4096);
        }
        if (value.contains("max_idle_time")) {
            config.max_idle_time =
                duration(value["max_idle_time"], child(pointer, "max_idle_time"));
        }
        if (value.contains("max_wait_time")) {
            config.max_wait_time =
                duration(value["max_wait_time"], child(pointer, "max_wait_time"));
        }
        if (value.contains("slowlog_timeout")) {
            config.slowlog_timeout =
                duration(value["slowlog_timeout"], child(pointer, "slowlog_timeout"));
        }
        if (value.contains("max_queue")) {
            config.max_queue =
                integer(value["max_queue"], child(pointer, "max_queue"), 1, 1'000'000);
        }
        if (value.contains("max_requests")) {
            config.max_requests =
                integer(value["max_requests"], child(pointer, "max_requests"), 0, 1'000'000'000);
        }
        if (value.contains("max_memory")) {
            config.max_memory = size(value["max_memory"], child(pointer, "max_memory"));
        }
        if (value.contains("ini_file")) {
            config.php_ini_file = string(value["ini_file"], child(pointer, "ini_file"));
        }
        if (value.contains("ini")) {
            config.php_ini = pairs(value["ini"], child(pointer, "ini"));
        }
        if (value.contains("workers")) {
            config.workers = workers(value["workers"], child(pointer, "workers"));
        }
        if (value.contains("worker_restart_grace")) {
            config.worker_restart_grace =
                duration(value["worker_restart_grace"], child(pointer, "worker_restart_grace"));
        }
        if (value.contains("processes")) {
            config.processes = integer(value["processes"], child(pointer, "processes"), 1, 256);
        }
        if (value.contains("emergency_restart_threshold")) {
            config.emergency_restart_threshold =
                integer(value["emergency_restart_threshold"],
                        child(pointer, "emergency_restart_threshold"), 0, 1'000'000);
        }
        if (value.contains("emergency_restart_interval")) {
            config.emergency_restart_interval = duration(
                value["emergency_restart_interval"], child(pointer, "emergency_restart_interval"));
        }
    }

    // "off", or the address the admin endpoint listens on.
    std::optional<listen_address> admin(const json& value, const std::string& pointer) const {
        const std::string text = string(value, pointer);
        if (text == "off") {
            return std::nullopt;
        }
        listen_address address;
        try {
            address = parse_listen_address(text);
        } catch (const config_error& e) {
            fail(pointer, e.message() + " (or \"off\")");
        }
        if (address.tls) {
            fail(pointer, "the admin endpoint speaks plain HTTP only; keep it on loopback");
        }
        if (!address.unix_path.empty()) {
            fail(pointer, "the admin endpoint listens on TCP (e.g. \"127.0.0.1:2019\")");
        }
        return address;
    }

    void log(const json& value, const std::string& pointer, server_config& config) const {
        object(value, pointer, {"level", "format"});
        if (value.contains("level")) {
            config.log_level = string(value["level"], child(pointer, "level"));
            constexpr std::string_view levels[] = {"trace", "debug", "info", "warn", "error"};
            if (std::find(std::begin(levels), std::end(levels), config.log_level) ==
                std::end(levels)) {
                fail(child(pointer, "level"), "unknown log level \"" + config.log_level +
                                                  "\" (use trace, debug, info, warn or error)");
            }
        }
        if (value.contains("format")) {
            config.log_format = string(value["format"], child(pointer, "format"));
            if (config.log_format != "console" && config.log_format != "json") {
                fail(child(pointer, "format"),
                     "unknown log format \"" + config.log_format + "\" (use console or json)");
            }
        }
    }

  private:
    const std::string& file_;
    const source_map& sources_;
};

}  // namespace

std::string pointer_child(const std::string& pointer, std::string_view key) {
    std::string out = pointer + "/";
    for (char c : key) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

config_error located_error(const source_location& where, const std::string& message) {
    if (where.line > 0) {
        return config_error(message, where.file, where.line);
    }
    if (!where.file.empty()) {
        return config_error(where.pointer.empty() ? message : where.pointer + ": " + message,
                            where.file, 0);
    }
    return config_error(message);
}

server_config config_from_json(const json& document, const std::string& file,
                               const source_map& sources) {
    const document_reader reader(file, sources);
    reader.object(
        document, "",
        {"admin", "log", "grace_period", "http", "php", "env", "sites", "acme", "storage"});
    server_config config;
    if (document.contains("admin")) {
        config.admin = reader.admin(document["admin"], "/admin");
        config.admin_origin = reader.where("/admin");
    }
    if (document.contains("log")) {
        reader.log(document["log"], "/log", config);
    }
    if (document.contains("grace_period")) {
        config.grace_period = reader.duration(document["grace_period"], "/grace_period");
    }
    if (document.contains("http")) {
        reader.http(document["http"], "/http", config);
    }
    if (document.contains("php")) {
        reader.php(document["php"], "/php", config);
    }
    if (document.contains("env")) {
        config.env = reader.env(document["env"], "/env");
    }
    reader.automation(document, config);
    if (!document.contains("sites") || !document["sites"].is_array() || document["sites"].empty()) {
        reader.fail("/sites", "the configuration has no site (\"sites\": [{...}])");
    }
    config.sites.clear();
    for (std::size_t i = 0; i < document["sites"].size(); ++i) {
        config.sites.push_back(reader.site(document["sites"][i], child("/sites", i)));
    }
    return config;
}

json read_json_file(const std::string& text, const std::string& file) {
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        // e.what() is "[json.exception.parse_error.101] parse error at line 3, column 5: ...";
        // keep the reason and give the line the way every other config error does.
        std::string message = e.what();
        if (const std::size_t at = message.find(": "); at != std::string::npos) {
            message.erase(0, at + 2);
        }
        const std::size_t end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        const auto line = static_cast<std::size_t>(
            std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
        throw config_error(message, file, line + 1);
    }
}

}  // namespace spindle::config

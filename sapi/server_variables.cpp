#include "sapi/server_variables.hpp"

#include <array>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

namespace spindle::sapi {
namespace {

// Registers variables into one array, noting their names when asked to.
struct variable_writer {
    zval* array;
    std::vector<std::string>* names;

    // One variable through the input filter, as php-fpm registers its CGI parameters. `name`
    // must be NUL-terminated.
    void add(const char* name, std::string_view value) const noexcept {
        if (names != nullptr) {
            names->emplace_back(name);
        }
        // The filter may replace the value (efree + new allocation), so it must be emalloc'd.
        char* copy = estrndup(value.data(), value.size());
        size_t new_length = value.size();
        if (sapi_module.input_filter(PARSE_SERVER, name, &copy, value.size(), &new_length)) {
            php_register_variable_safe(name, copy, new_length, array);
        }
        efree(copy);
    }

    void add_number(const char* name, std::uint64_t number) const noexcept {
        std::array<char, 24> digits;
        auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), number);
        add(name, std::string_view(digits.data(), static_cast<size_t>(end - digits.data())));
    }
};

// "Content-Type" -> "HTTP_CONTENT_TYPE" into `out` (NUL-terminated). Names reach here already
// restricted to letters, digits and '-' by the front end.
void http_variable_name(std::string_view header_name, std::string& out) {
    out.assign("HTTP_");
    for (char c : header_name) {
        if (c == '-') {
            out.push_back('_');
        } else if (c >= 'a' && c <= 'z') {
            out.push_back(static_cast<char>(c - 'a' + 'A'));
        } else {
            out.push_back(c);
        }
    }
}

bool equals_ignore_case(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) {
        return false;
    }
    for (size_t i = 0; i < a.size(); ++i) {
        char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
        char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
        if (x != y) {
            return false;
        }
    }
    return true;
}

}  // namespace

void register_server_variables(const request& req, const worker_script* worker, zval* array,
                               std::vector<std::string>* added_names) noexcept {
    const variable_writer out{array, added_names};
    const std::string_view scheme = req.is_https ? "https" : "http";

    // The worker's env is part of its environment snapshot, imported before this.
    if (worker != nullptr) {
        out.add("FRANKENPHP_WORKER", "1");
    }

    out.add("SERVER_SOFTWARE", "Spindle/" SPINDLE_VERSION);
    out.add("GATEWAY_INTERFACE", "CGI/1.1");
    out.add("SERVER_PROTOCOL", req.http_version == 10 ? "HTTP/1.0" : "HTTP/1.1");
    out.add("REQUEST_SCHEME", scheme);
    if (req.is_https) {
        out.add("HTTPS", "on");
    }
    out.add("SERVER_NAME", req.server_name);
    out.add("SERVER_ADDR", req.server_addr);
    out.add_number("SERVER_PORT", req.server_port);
    out.add("REMOTE_ADDR", req.remote_addr);
    // No reverse DNS: like Caddy and php-fpm behind nginx, REMOTE_HOST is the address.
    out.add("REMOTE_HOST", req.remote_addr);
    out.add_number("REMOTE_PORT", req.remote_port);
    out.add("REQUEST_METHOD", req.method);
    out.add("REQUEST_URI", req.uri);
    out.add("QUERY_STRING", req.query);
    out.add("DOCUMENT_ROOT", req.document_root);
    out.add("DOCUMENT_URI", req.script_name);
    out.add("SCRIPT_FILENAME", req.script_filename);
    out.add("SCRIPT_NAME", req.script_name);
    out.add("PATH_INFO", req.path_info);
    if (!req.path_info.empty()) {
        out.add("PATH_TRANSLATED", req.document_root + req.path_info);
    }
    out.add("PHP_SELF", req.script_name + req.path_info);
    out.add("CONTENT_TYPE", req.content_type);
    if (req.content_length > 0 || !req.content_type.empty()) {
        out.add_number("CONTENT_LENGTH", req.content_length);
    } else {
        out.add("CONTENT_LENGTH", "");
    }
    if (SG(request_info).auth_user != nullptr) {
        out.add("AUTH_TYPE", "Basic");
    }

    // One HTTP_* per header name; repeated headers are joined as CGI/1.1 says (", "), except
    // Cookie, which PHP parses with "; ".
    std::string name;
    std::string joined;
    const auto& headers = req.headers;
    for (size_t i = 0; i < headers.size(); ++i) {
        const header& h = headers[i];
        if (equals_ignore_case(h.name, "content-type") ||
            equals_ignore_case(h.name, "content-length")) {
            continue;
        }
        // A name seen earlier was already registered with every value.
        bool seen = false;
        for (size_t j = 0; j < i && !seen; ++j) {
            seen = equals_ignore_case(headers[j].name, h.name);
        }
        if (seen) {
            continue;
        }
        http_variable_name(h.name, name);
        std::string_view value = h.value;
        bool repeated = false;
        for (size_t j = i + 1; j < headers.size(); ++j) {
            if (!equals_ignore_case(headers[j].name, h.name)) {
                continue;
            }
            if (!repeated) {
                joined.assign(h.value);
                repeated = true;
            }
            joined.append(equals_ignore_case(h.name, "cookie") ? "; " : ", ");
            joined.append(headers[j].value);
        }
        if (repeated) {
            value = joined;
        }
        out.add(name.c_str(), value);
    }
}

}  // namespace spindle::sapi

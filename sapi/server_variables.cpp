#include "sapi/server_variables.hpp"

#include <array>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

namespace spindle::sapi {
namespace {

// Where add() records the names it registers, while register_server_variables() runs.
thread_local std::vector<std::string>* recorded_names = nullptr;

// Registers one variable through the input filter, as php-fpm does for its CGI parameters.
// `name` must be NUL-terminated.
void add(zval* array, const char* name, std::string_view value) noexcept {
    if (recorded_names != nullptr) {
        recorded_names->emplace_back(name);
    }
    // The filter may replace the value (efree + new allocation), so it must be emalloc'd.
    char* copy = estrndup(value.data(), value.size());
    size_t new_length = value.size();
    if (sapi_module.input_filter(PARSE_SERVER, name, &copy, value.size(), &new_length)) {
        php_register_variable_safe(name, copy, new_length, array);
    }
    efree(copy);
}

void add_number(zval* array, const char* name, std::uint64_t number) noexcept {
    std::array<char, 24> digits;
    auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), number);
    add(array, name, std::string_view(digits.data(), static_cast<size_t>(end - digits.data())));
}

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
    recorded_names = added_names;
    register_request_variables(req, worker, array);
    recorded_names = nullptr;
}

void register_request_variables(const request& req, const worker_script* worker,
                                zval* array) noexcept {
    const std::string_view scheme = req.is_https ? "https" : "http";

    // The worker's env is part of its environment snapshot, imported before this.
    if (worker != nullptr) {
        add(array, "FRANKENPHP_WORKER", "1");
    }

    add(array, "SERVER_SOFTWARE", "Spindle/" SPINDLE_VERSION);
    add(array, "GATEWAY_INTERFACE", "CGI/1.1");
    add(array, "SERVER_PROTOCOL", req.http_version == 10 ? "HTTP/1.0" : "HTTP/1.1");
    add(array, "REQUEST_SCHEME", scheme);
    if (req.is_https) {
        add(array, "HTTPS", "on");
    }
    add(array, "SERVER_NAME", req.server_name);
    add(array, "SERVER_ADDR", req.server_addr);
    add_number(array, "SERVER_PORT", req.server_port);
    add(array, "REMOTE_ADDR", req.remote_addr);
    // No reverse DNS: like Caddy and php-fpm behind nginx, REMOTE_HOST is the address.
    add(array, "REMOTE_HOST", req.remote_addr);
    add_number(array, "REMOTE_PORT", req.remote_port);
    add(array, "REQUEST_METHOD", req.method);
    add(array, "REQUEST_URI", req.uri);
    add(array, "QUERY_STRING", req.query);
    add(array, "DOCUMENT_ROOT", req.document_root);
    add(array, "DOCUMENT_URI", req.script_name);
    add(array, "SCRIPT_FILENAME", req.script_filename);
    add(array, "SCRIPT_NAME", req.script_name);
    add(array, "PATH_INFO", req.path_info);
    if (!req.path_info.empty()) {
        add(array, "PATH_TRANSLATED", req.document_root + req.path_info);
    }
    add(array, "PHP_SELF", req.script_name + req.path_info);
    add(array, "CONTENT_TYPE", req.content_type);
    if (req.content_length > 0 || !req.content_type.empty()) {
        add_number(array, "CONTENT_LENGTH", req.content_length);
    } else {
        add(array, "CONTENT_LENGTH", "");
    }
    if (SG(request_info).auth_user != nullptr) {
        add(array, "AUTH_TYPE", "Basic");
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
        add(array, name.c_str(), value);
    }
}

}  // namespace spindle::sapi

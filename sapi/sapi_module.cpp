// The SAPI callbacks: how PHP reads the request and writes the response through the slot's
// context. Every callback runs on the PHP slot thread serving the request. They are noexcept:
// a C++ exception must never unwind through Zend frames, and no callback keeps a C++ object
// with a destructor alive across a call that may bail out (longjmp) - see ub_write.

#include "sapi/sapi_module.hpp"

#include <strings.h>
#include <syslog.h>

#include <algorithm>

#include <spdlog/spdlog.h>

#include "sapi/cgi_status.hpp"
#include "sapi/env_functions.hpp"
#include "sapi/server_variables.hpp"
#include "sapi/slot_context.hpp"

namespace spindle::sapi {
namespace {

// An RFC 9110 field name (a token). PHP's header() refuses line breaks and NUL but takes any
// name: " X: y" would go out as a folded continuation line, "X : y" as a field that clients
// must reject.
bool is_field_name(std::string_view name) noexcept {
    constexpr std::string_view symbols = "!#$%&'*+-.^_`|~";
    return !name.empty() && std::all_of(name.begin(), name.end(), [&](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               symbols.find(c) != std::string_view::npos;
    });
}

slot_context* context() noexcept {
    return static_cast<slot_context*>(SG(server_context));
}

int on_activate() noexcept {
    slot_context* ctx = context();
    if (ctx == nullptr || ctx->req == nullptr) {
        return SUCCESS;
    }
    // sapi_activate() resets these after our request setup; this callback runs after it.
    SG(request_info).proto_num = ctx->req->http_version * 100;
    // PHP marks HEAD as headers-only; Spindle runs the script fully so HEAD reports the same
    // Content-Length as GET, and drops the body in the front end.
    SG(request_info).headers_only = 0;
    return SUCCESS;
}

// Output after frankenphp_finish_request() goes nowhere; if the client left before the
// response could reach it, the script learns it here as it would from a failed write.
void note_abort_after_finish(const slot_context& ctx) noexcept {
    if ((PG(connection_status) & PHP_CONNECTION_ABORTED) == 0 && ctx.req->sink->is_aborted()) {
        // Bails out (longjmp) unless ignore_user_abort; nothing with a destructor is alive here.
        php_handle_aborted_connection();
    }
}

size_t on_ub_write(const char* str, size_t length) noexcept {
    slot_context* ctx = context();
    if (ctx == nullptr || ctx->req == nullptr) {
        // Output outside any request (start-up warnings): to the log, never to a client.
        spdlog::get("php")->info("{}", std::string_view(str, length));
        return length;
    }
    if (ctx->finished) {
        // After frankenphp_finish_request(): the client already has its complete response,
        // unless it left before that; connection_status() then says so, as in FrankenPHP.
        note_abort_after_finish(*ctx);
        return length;
    }
    bool delivered = ctx->req->sink->write(std::string_view(str, length));
    if (!delivered) {
        // Bails out (longjmp) unless ignore_user_abort; nothing with a destructor is alive here.
        php_handle_aborted_connection();
    }
    return length;
}

void on_flush(void* server_context) noexcept {
    auto* ctx = static_cast<slot_context*>(server_context);
    if (ctx == nullptr || ctx->req == nullptr) {
        return;
    }
    if (ctx->finished) {
        note_abort_after_finish(*ctx);
        return;
    }
    // PHP flushes before headers are out in some paths (flush() on an empty buffer).
    if (!SG(headers_sent)) {
        sapi_send_headers();
    }
    if (!ctx->req->sink->flush()) {
        php_handle_aborted_connection();
    }
}

int on_send_headers(sapi_headers_struct* headers) noexcept {
    // PHP sends its head once, when output starts or the script ends. A status still 1xx then
    // (http_response_code(102), and no final one after it) cannot be the response's: it goes
    // out as an interim response and the response is a 200, as Go's net/http answers under
    // FrankenPHP. A 101 would announce a protocol switch that never comes: only the 200.
    const int code = headers->http_response_code;
    if (code >= 100 && code < 200) {
        if (code != 101) {
            send_headers_to_sink(headers);
        }
        headers->http_response_code = 200;
        if (headers->http_status_line != nullptr) {
            // Its reason phrase was the 1xx's.
            efree(headers->http_status_line);
            headers->http_status_line = nullptr;
        }
    }
    return send_headers_to_sink(headers);
}

size_t on_read_post(char* buffer, size_t count) noexcept {
    slot_context* ctx = context();
    if (ctx == nullptr || ctx->req == nullptr) {
        return 0;
    }
    return ctx->req->body->read(buffer, count);
}

char* on_read_cookies() noexcept {
    slot_context* ctx = context();
    if (ctx == nullptr || ctx->cookies.empty()) {
        return nullptr;
    }
    return ctx->cookies.data();
}

// Classic requests forget what they borrowed here: after the superglobals and the symbol
// table are released (php_request_shutdown steps 8 and 9), before the request memory is.
// Also runs at the end of each worker request (sapi_deactivate), which borrows nothing.
int on_deactivate() noexcept {
    if (slot_context* ctx = current_slot()) {
        ctx->classic_env_arrays.take_back();
    }
    return SUCCESS;
}

void on_register_variables(zval* track_vars_array) noexcept {
    slot_context* ctx = context();
    // A classic request starts from the thread's copy of the environment instead of a new
    // one; a worker keeps its own $_SERVER between requests (worker_request.cpp).
    bool borrowed = ctx != nullptr && ctx->req != nullptr && ctx->worker == nullptr &&
                    ctx->classic_env_arrays.lend_server(track_vars_array, current_environment());
    if (!borrowed) {
        php_import_environment_variables(track_vars_array);
    }
    if (ctx != nullptr && ctx->req != nullptr) {
        register_server_variables(*ctx, track_vars_array,
                                  ctx->worker != nullptr ? &ctx->kept_server.keys : nullptr);
    }
}

void on_log_message(const char* message, int syslog_type) noexcept {
    auto level = spdlog::level::info;
    if (syslog_type <= LOG_ERR) {
        level = spdlog::level::err;
    } else if (syslog_type == LOG_WARNING) {
        level = spdlog::level::warn;
    } else if (syslog_type >= LOG_INFO) {
        level = spdlog::level::debug;
    }
    const slot_context* ctx = context();
    if (ctx != nullptr && ctx->req != nullptr) {
        spdlog::get("php")->log(level, "[slot {} req {}] {}", ctx->index, ctx->req->id, message);
    } else {
        spdlog::get("php")->log(level, "{}", message);
    }
}

zend_result on_get_request_time(double* request_time) noexcept {
    const slot_context* ctx = context();
    if (ctx == nullptr || ctx->req == nullptr) {
        return FAILURE;
    }
    *request_time = ctx->req->start_time;
    return SUCCESS;
}

}  // namespace

int send_headers_to_sink(sapi_headers_struct* headers) noexcept {
    slot_context* ctx = context();
    if (ctx == nullptr || ctx->req == nullptr || ctx->finished) {
        return SAPI_HEADER_SENT_SUCCESSFULLY;
    }
    int status = headers->http_response_code > 0 ? headers->http_response_code : 200;
    const bool informational = status >= 100 && status < 200;
    // header("HTTP/1.1 418 I'm a teapot") keeps its own reason phrase: "HTTP/x.y CODE REASON".
    std::string_view reason;
    if (headers->http_status_line != nullptr) {
        std::string_view line(headers->http_status_line);
        auto first = line.find(' ');
        auto second = first == std::string_view::npos ? first : line.find(' ', first + 1);
        if (second != std::string_view::npos) {
            reason = line.substr(second + 1);
        }
    }

    std::vector<header> fields;
    fields.reserve(zend_llist_count(&headers->headers));
    zend_llist_position pos;
    for (auto* h =
             static_cast<sapi_header_struct*>(zend_llist_get_first_ex(&headers->headers, &pos));
         h != nullptr;
         h = static_cast<sapi_header_struct*>(zend_llist_get_next_ex(&headers->headers, &pos))) {
        std::string_view line(h->header, h->header_len);
        auto colon = line.find(':');
        if (colon == std::string_view::npos || !is_field_name(line.substr(0, colon))) {
            // Dropped, as Go's net/http (FrankenPHP) drops it; nginx would refuse the response.
            spdlog::get("php")->warn(
                "[slot {} req {}] header() line without a valid field name "
                "dropped: \"{}\"",
                ctx->index, ctx->req->id, line);
            continue;
        }
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
            value.remove_prefix(1);
        }
        if (!informational && colon == 6 && strncasecmp(line.data(), "Status", colon) == 0) {
            // A CGI status, which php-fpm hands its web server to read: the status line,
            // never a field of the response. The last one wins, as behind nginx.
            if (auto cgi = parse_cgi_status(value)) {
                status = cgi->code;
                reason = cgi->reason;
                headers->http_response_code = status;  // what http_response_code() reports
            } else {
                spdlog::get("php")->warn(
                    "[slot {} req {}] header(\"Status: {}\") is no status code; dropped",
                    ctx->index, ctx->req->id, value);
            }
            continue;
        }
        fields.push_back({std::string(line.substr(0, colon)), std::string(value)});
    }

    if (informational) {
        ctx->req->sink->send_informational(status, fields);
        return SAPI_HEADER_SENT_SUCCESSFULLY;
    }
    ctx->req->sink->send_head(status, reason, std::move(fields));
    return SAPI_HEADER_SENT_SUCCESSFULLY;
}

sapi_module_struct spindle_sapi_module = {
    const_cast<char*>("spindle"),  // name: also OPcache's allow-list entry (build-php.sh)
    const_cast<char*>("Spindle"),  // pretty name

    nullptr,                      // startup: set by the engine (needs the module entry)
    php_module_shutdown_wrapper,  // shutdown

    on_activate,    // activate
    on_deactivate,  // deactivate

    on_ub_write,  // unbuffered write
    on_flush,     // flush
    nullptr,      // get uid
    nullptr,      // getenv

    php_error,  // error handler

    nullptr,          // header handler: PHP's own list is what we send
    on_send_headers,  // send headers handler
    nullptr,          // send header handler: unused, send_headers takes the whole list

    on_read_post,     // read POST data
    on_read_cookies,  // read Cookies

    on_register_variables,  // register server variables
    on_log_message,         // log message
    on_get_request_time,    // request time
    nullptr,                // child terminate

    STANDARD_SAPI_MODULE_PROPERTIES};

}  // namespace spindle::sapi

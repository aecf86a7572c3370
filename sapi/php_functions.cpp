// PHP functions Spindle exports. Each runs on the slot thread executing the calling script.

#include "sapi/php_functions.hpp"

#include <cinttypes>
#include <string>
#include <string_view>

#include "sapi/sapi_module.hpp"
#include "sapi/slot_context.hpp"
#include "sapi/structured_log.hpp"
#include "sapi/worker_request.hpp"

namespace spindle::sapi {
namespace {

bool equals_ignore_case(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Completes the response now; the script goes on without a client (php-fpm's
// fastcgi_finish_request(), FrankenPHP's frankenphp_finish_request()).
void finish_request(zval* return_value) {
    slot_context* ctx = current_slot();
    if (ctx == nullptr || ctx->req == nullptr || ctx->finished) {
        RETURN_FALSE;
    }
    php_output_end_all();
    php_header();
    complete_response(*ctx, false);
    RETURN_TRUE;
}

// "x-forwarded-for" -> "X-Forwarded-For": php-fpm rebuilds the names from HTTP_* variables and
// Go's net/http (FrankenPHP) canonicalises them, so scripts index getallheaders() that way
// even when a proxy speaking HTTP/2 to its clients forwards every name in lower case.
std::string canonical_header_name(std::string_view name) {
    std::string canonical(name);
    bool word_start = true;
    for (char& c : canonical) {
        if (c >= 'a' && c <= 'z' && word_start) {
            c = static_cast<char>(c - 'a' + 'A');
        } else if (c >= 'A' && c <= 'Z' && !word_start) {
            c = static_cast<char>(c - 'A' + 'a');
        }
        word_start = c == '-';
    }
    return canonical;
}

// The request headers, names canonicalised; repeated names joined with ", ", or "; " for
// Cookie (RFC 6265 5.4), as HTTP_COOKIE has them.
void request_headers(zval* return_value) {
    array_init(return_value);
    slot_context* ctx = current_slot();
    if (ctx == nullptr || ctx->req == nullptr) {
        return;
    }
    const auto& headers = ctx->req->headers;
    for (size_t i = 0; i < headers.size(); ++i) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; ++j) {
            seen = equals_ignore_case(headers[j].name, headers[i].name);
        }
        if (seen) {
            continue;
        }
        std::string value = headers[i].value;
        const std::string_view separator =
            equals_ignore_case(headers[i].name, "cookie") ? "; " : ", ";
        for (size_t j = i + 1; j < headers.size(); ++j) {
            if (equals_ignore_case(headers[j].name, headers[i].name)) {
                value.append(separator).append(headers[j].value);
            }
        }
        const std::string name = canonical_header_name(headers[i].name);
        add_assoc_stringl_ex(return_value, name.data(), name.size(), value.data(), value.size());
    }
}

// The response headers set so far, name => value (Apache's apache_response_headers()).
void response_headers(zval* return_value) {
    array_init(return_value);
    zend_llist_position pos;
    auto& list = SG(sapi_headers).headers;
    for (auto* h = static_cast<sapi_header_struct*>(zend_llist_get_first_ex(&list, &pos));
         h != nullptr; h = static_cast<sapi_header_struct*>(zend_llist_get_next_ex(&list, &pos))) {
        std::string_view line(h->header, h->header_len);
        auto colon = line.find(':');
        if (colon == std::string_view::npos) {
            continue;
        }
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') {
            value.remove_prefix(1);
        }
        add_assoc_stringl_ex(return_value, h->header, colon, value.data(), value.size());
    }
}

}  // namespace

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_finish_request, 0, 0, _IS_BOOL, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_headers_array, 0, 0, IS_ARRAY, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_handle_request, 0, 1, _IS_BOOL, 0)
ZEND_ARG_TYPE_INFO(0, callback, IS_CALLABLE, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_log, 0, 1, IS_VOID, 0)
ZEND_ARG_TYPE_INFO(0, message, IS_STRING, 0)
ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, level, IS_LONG, 0, "FRANKENPHP_LOG_LEVEL_INFO")
ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, context, IS_ARRAY, 0, "[]")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_headers_send, 0, 0, IS_LONG, 0)
ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, status, IS_LONG, 0, "200")
ZEND_END_ARG_INFO()

PHP_FUNCTION(frankenphp_finish_request) {
    ZEND_PARSE_PARAMETERS_NONE();
    finish_request(return_value);
}

// frankenphp_handle_request(callable $callback): bool - the worker loop's one call. Only plain
// C data lives in this frame: the handler may bail out (longjmp) through it.
PHP_FUNCTION(frankenphp_handle_request) {
    zend_fcall_info handler;
    zend_fcall_info_cache handler_cache;
    ZEND_PARSE_PARAMETERS_START(1, 1)
    Z_PARAM_FUNC(handler, handler_cache)
    ZEND_PARSE_PARAMETERS_END();

    slot_context* ctx = current_slot();
    if (ctx == nullptr || ctx->worker == nullptr) {
        // FrankenPHP's message, word for word: its tests and apps' error handling match on it.
        zend_throw_exception(spl_ce_RuntimeException,
                             "frankenphp_handle_request() called while not in worker mode", 0);
        RETURN_THROWS();
    }
    if (ctx->in_worker_request) {
        zend_throw_exception(spl_ce_RuntimeException,
                             "frankenphp_handle_request() cannot be called from its own handler",
                             0);
        RETURN_THROWS();
    }
    RETURN_BOOL(handle_worker_request(*ctx, &handler, &handler_cache));
}

// frankenphp_log(string $message, int $level = FRANKENPHP_LOG_LEVEL_INFO, array $context = []):
// one line in the "php" log, the context's entries as structured fields. The text is built in
// smart_strs: Zend memory, released with the request even if encoding a value bails out.
PHP_FUNCTION(frankenphp_log) {
    zend_string* message = nullptr;
    zend_long level = 0;
    HashTable* context = nullptr;
    ZEND_PARSE_PARAMETERS_START(1, 3)
    Z_PARAM_STR(message)
    Z_PARAM_OPTIONAL
    Z_PARAM_LONG(level)
    Z_PARAM_ARRAY_HT(context)
    ZEND_PARSE_PARAMETERS_END();

    constexpr int options = PHP_JSON_UNESCAPED_SLASHES | PHP_JSON_UNESCAPED_UNICODE |
                            PHP_JSON_INVALID_UTF8_SUBSTITUTE | PHP_JSON_PARTIAL_OUTPUT_ON_ERROR;
    smart_str fields = {};
    if (context != nullptr) {
        zend_ulong index = 0;
        zend_string* key = nullptr;
        zval* value = nullptr;
        ZEND_HASH_FOREACH_KEY_VAL(context, index, key, value) {
            if (fields.s != nullptr) {
                smart_str_appendc(&fields, ',');
            }
            if (key != nullptr) {
                zend_string* name = php_json_encode_string(ZSTR_VAL(key), ZSTR_LEN(key), options);
                smart_str_append(&fields, name);
                zend_string_release(name);
            } else {
                smart_str_appendc(&fields, '"');
                smart_str_append_unsigned(&fields, index);
                smart_str_appendc(&fields, '"');
            }
            smart_str_appendc(&fields, ':');
            php_json_encode(&fields, value, options);
        }
        ZEND_HASH_FOREACH_END();
    }
    smart_str line = {};
    const slot_context* ctx = current_slot();
    if (ctx != nullptr && ctx->req != nullptr) {
        smart_str_append_printf(&line, "[slot %zu req %" PRIu64 "] ", ctx->index, ctx->req->id);
    }
    smart_str_append(&line, message);
    smart_str_0(&line);
    log_with_fields(slog_level(level), {ZSTR_VAL(line.s), ZSTR_LEN(line.s)},
                    fields.s != nullptr ? std::string_view(ZSTR_VAL(fields.s), ZSTR_LEN(fields.s))
                                        : std::string_view());
    smart_str_free(&line);
    smart_str_free(&fields);
}

// The slog levels frankenphp_log() takes, under FrankenPHP's names.
PHP_MINIT_FUNCTION(spindle) {
    REGISTER_LONG_CONSTANT("FRANKENPHP_LOG_LEVEL_DEBUG", -4, CONST_CS | CONST_PERSISTENT);
    REGISTER_LONG_CONSTANT("FRANKENPHP_LOG_LEVEL_INFO", 0, CONST_CS | CONST_PERSISTENT);
    REGISTER_LONG_CONSTANT("FRANKENPHP_LOG_LEVEL_WARN", 4, CONST_CS | CONST_PERSISTENT);
    REGISTER_LONG_CONSTANT("FRANKENPHP_LOG_LEVEL_ERROR", 8, CONST_CS | CONST_PERSISTENT);
    return SUCCESS;
}

PHP_FUNCTION(getallheaders) {
    ZEND_PARSE_PARAMETERS_NONE();
    request_headers(return_value);
}

PHP_FUNCTION(apache_response_headers) {
    ZEND_PARSE_PARAMETERS_NONE();
    response_headers(return_value);
}

// headers_send(int $status = 200): sends the headers set so far. A 1xx status sends them as an
// interim response (103 Early Hints) and keeps the final status; FrankenPHP's semantics.
PHP_FUNCTION(headers_send) {
    zend_long status = 200;
    ZEND_PARSE_PARAMETERS_START(0, 1)
    Z_PARAM_OPTIONAL
    Z_PARAM_LONG(status)
    ZEND_PARSE_PARAMETERS_END();

    int previous = SG(sapi_headers).http_response_code;
    SG(sapi_headers).http_response_code = static_cast<int>(status);
    if (status >= 100 && status < 200) {
        int result = send_headers_to_sink(&SG(sapi_headers));
        SG(sapi_headers).http_response_code = previous;
        RETURN_LONG(result);
    }
    RETURN_LONG(sapi_send_headers());
}

namespace {

const zend_function_entry spindle_functions[] = {
    ZEND_FE(frankenphp_handle_request, arginfo_handle_request) ZEND_FALIAS(
        spindle_handle_request, frankenphp_handle_request, arginfo_handle_request)
        ZEND_FE(frankenphp_finish_request, arginfo_finish_request) ZEND_FALIAS(
            fastcgi_finish_request, frankenphp_finish_request, arginfo_finish_request)
            ZEND_FE(getallheaders, arginfo_headers_array) ZEND_FALIAS(
                apache_request_headers, getallheaders, arginfo_headers_array)
                ZEND_FALIAS(frankenphp_request_headers, getallheaders, arginfo_headers_array)
                    ZEND_FE(apache_response_headers, arginfo_headers_array) ZEND_FALIAS(
                        frankenphp_response_headers, apache_response_headers, arginfo_headers_array)
                        ZEND_FE(headers_send, arginfo_headers_send)
                            ZEND_FE(frankenphp_log, arginfo_log) ZEND_FE_END};

}  // namespace

zend_module_entry spindle_module_entry = {STANDARD_MODULE_HEADER,
                                          "spindle",
                                          spindle_functions,
                                          PHP_MINIT(spindle),
                                          nullptr,  // MSHUTDOWN
                                          nullptr,  // RINIT
                                          nullptr,  // RSHUTDOWN
                                          nullptr,  // MINFO
                                          SPINDLE_VERSION,
                                          STANDARD_MODULE_PROPERTIES};

}  // namespace spindle::sapi

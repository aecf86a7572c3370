// getenv() and putenv() for a multi-threaded server. Both run on the slot thread executing
// the calling script.

#include "sapi/env_functions.hpp"

#include "sapi/env_snapshot.hpp"
#include "sapi/internal_functions.hpp"
#include "sapi/php.hpp"
#include "sapi/server_variables.hpp"
#include "sapi/slot_context.hpp"

namespace spindle::sapi {
namespace {

using overlay = std::vector<std::pair<std::string, std::optional<std::string>>>;

const std::pair<std::string, std::optional<std::string>>* find_in(const overlay& entries,
                                                                  std::string_view name) {
    for (const auto& entry : entries) {
        if (entry.first == name) {
            return &entry;
        }
    }
    return nullptr;
}

// putenv(string $assignment): bool - "NAME=value" sets, "NAME" unsets, for this thread only.
ZEND_FUNCTION(spindle_putenv) {
    zend_string* assignment;
    ZEND_PARSE_PARAMETERS_START(1, 1)
    Z_PARAM_STR(assignment)
    ZEND_PARSE_PARAMETERS_END();

    std::string_view text(ZSTR_VAL(assignment), ZSTR_LEN(assignment));
    if (text.empty() || text.front() == '=') {
        zend_argument_value_error(1, "must have a valid syntax");
        RETURN_THROWS();
    }
    // PHP's putenv() looks for '=' with strchr() and hands the string to the C library's
    // putenv() (ext/standard/basic_functions.c), both of which stop at the first NUL:
    // "A\0B=1" unsets "A" and returns true. FrankenPHP cuts it there too.
    text = text.substr(0, text.find('\0'));
    auto equals = text.find('=');
    std::string_view name = text.substr(0, equals);
    slot_context* ctx = current_slot();
    if (ctx == nullptr) {
        RETURN_FALSE;
    }
    std::optional<std::string> value;
    if (equals != std::string_view::npos) {
        value.emplace(text.substr(equals + 1));
    }
    for (auto& entry : ctx->env_overlay) {
        if (entry.first == name) {
            entry.second = std::move(value);
            RETURN_TRUE;
        }
    }
    ctx->env_overlay.emplace_back(std::string(name), std::move(value));
    RETURN_TRUE;
}

// getenv(?string $name = null, bool $local_only = false): array|string|false
ZEND_FUNCTION(spindle_getenv) {
    zend_string* name = nullptr;
    bool local_only = false;
    ZEND_PARSE_PARAMETERS_START(0, 2)
    Z_PARAM_OPTIONAL
    Z_PARAM_STR_OR_NULL(name)
    Z_PARAM_BOOL(local_only)
    ZEND_PARSE_PARAMETERS_END();

    const slot_context* ctx = current_slot();
    const env_snapshot& environment = current_environment();
    if (name == nullptr) {
        array_init(return_value);
        environment.import_into(return_value);
        if (ctx != nullptr) {
            for (const auto& [key, value] : ctx->env_overlay) {
                if (value) {
                    add_assoc_stringl_ex(return_value, key.data(), key.size(), value->data(),
                                         value->size());
                } else {
                    zend_symtable_str_del(Z_ARRVAL_P(return_value), key.data(), key.size());
                }
            }
        }
        return;
    }
    std::string_view key(ZSTR_VAL(name), ZSTR_LEN(name));
    if (ctx != nullptr) {
        if (const auto* entry = find_in(ctx->env_overlay, key)) {
            if (!entry->second) {
                RETURN_FALSE;
            }
            RETURN_STRINGL(entry->second->data(), entry->second->size());
        }
    }
    if (!local_only && ctx != nullptr && ctx->req != nullptr) {
        // php-fpm's getenv() sees the request's CGI variables (REMOTE_ADDR, HTTP_HOST...).
        if (variables_order_has_server()) {
            if (zend_is_auto_global_str(ZEND_STRL("_SERVER"))) {
                zval* server = &PG(http_globals)[TRACK_VARS_SERVER];
                if (Z_TYPE_P(server) == IS_ARRAY) {
                    zval* value = zend_symtable_find(Z_ARRVAL_P(server), name);
                    if (value != nullptr && Z_TYPE_P(value) == IS_STRING) {
                        RETURN_STR_COPY(Z_STR_P(value));
                    }
                }
            }
        } else {
            // $_SERVER stays empty without 'S', but php-fpm's getenv() still sees its FastCGI
            // parameters: look in the request's variables, built for this call.
            zval variables;
            array_init(&variables);
            register_server_variables(*current_slot(), &variables, nullptr, true);
            zval* value = zend_symtable_find(Z_ARRVAL(variables), name);
            if (value != nullptr && Z_TYPE_P(value) == IS_STRING) {
                RETVAL_STR_COPY(Z_STR_P(value));
            }
            zval_ptr_dtor(&variables);
            if (Z_TYPE_P(return_value) == IS_STRING) {
                return;
            }
        }
    }
    if (auto value = environment.find(key)) {
        RETURN_STRINGL(value->data(), value->size());
    }
    RETURN_FALSE;
}

}  // namespace

void install_env_functions() {
    replace_internal_handler("putenv", zif_spindle_putenv);
    replace_internal_handler("getenv", zif_spindle_getenv);
}

}  // namespace spindle::sapi

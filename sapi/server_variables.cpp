// The request part of $_SERVER, built in one pass on the slot thread that serves the request.
// Keys come prepared (sapi/server_keys.hpp), values are inserted directly: no per-variable
// name parsing and no trip through the input filter unless filter.default asks for one.

#include "sapi/server_variables.hpp"

#include <array>
#include <charconv>
#include <cstring>
#include <string_view>

#include "sapi/env_functions.hpp"
#include "sapi/env_snapshot.hpp"
#include "sapi/server_keys.hpp"

namespace spindle::sapi {
namespace {

// Set on the control thread by init_server_variables() before any slot thread starts, read
// only afterwards.
bool values_are_filtered = false;
// Header keys that need a decision per request, looked up once.
zend_string* content_type_key = nullptr;
zend_string* content_length_key = nullptr;
zend_string* cookie_key = nullptr;
zend_string* proxy_key = nullptr;

// A request-memory copy of a key owned by a thread's header_key_cache, hash included: the
// array gets a string that lives as long as the array, whatever the cache evicts.
zend_string* request_copy(const zend_string* cached) noexcept {
    zend_string* copy = zend_string_alloc(ZSTR_LEN(cached), 0);
    std::memcpy(ZSTR_VAL(copy), ZSTR_VAL(cached), ZSTR_LEN(cached) + 1);
    ZSTR_H(copy) = ZSTR_H(cached);
    return copy;
}

bool same_key(const zend_string* a, const zend_string* b) noexcept {
    return a == b || (ZSTR_H(a) == ZSTR_H(b) && zend_string_equal_content(a, b));
}

// Inserts into one array and notes the keys when asked to.
//
// Reusing a worker thread's $_SERVER (reuse_server_variables), `added` starts out as the
// previous request's keys, which the table still holds after the environment's entries, and
// `reused` counts how many of them this request has set again, at the same position. While
// they match, the value is replaced in place: one lookup instead of a delete and an insert.
// At the first key that differs, the rest of the previous keys leave the table (last first,
// so the table shrinks) and building goes on as in a fresh array. Either way the table ends
// up, in content and in order, as a fresh build would leave it.
class variable_writer {
  public:
    variable_writer(HashTable* table, std::vector<zend_string*>* added, bool filtered,
                    bool reusing) noexcept
        : table_(table), added_(added), filtered_(filtered), reused_(reusing ? 0 : not_reusing) {
        if (reusing && filtered) {
            // The filter registers (or drops) values itself: no in-place replacement.
            drop_previous();
        }
    }

    void add(zend_string* key, std::string_view value) noexcept {
        if (filtered_) {
            add_filtered(key, value);
            note(key);
        } else {
            zval entry;
            ZVAL_STRINGL_FAST(&entry, value.data(), value.size());
            put(key, &entry);
        }
    }

    void add(server_key key, std::string_view value) noexcept { add(key_of(key), value); }

    // `first` + `second` without a temporary.
    void add(server_key name, std::string_view first, std::string_view second) noexcept {
        zend_string* key = key_of(name);
        zend_string* value =
            zend_string_concat2(first.data(), first.size(), second.data(), second.size());
        if (filtered_) {
            add_filtered(key, std::string_view(ZSTR_VAL(value), ZSTR_LEN(value)));
            zend_string_release(value);
            note(key);
        } else {
            zval entry;
            ZVAL_STR(&entry, value);
            put(key, &entry);
        }
    }

    void add_number(server_key key, std::uint64_t number) noexcept {
        std::array<char, 24> digits;
        auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), number);
        add(key, std::string_view(digits.data(), static_cast<size_t>(end - digits.data())));
    }

    // A value PHP itself adds after the SAPI's (php_register_server_variables); never
    // filtered there either.
    void add_engine(server_key key, zval* value) noexcept { put(key_of(key), value); }

    // Ends a reuse: previous keys that this request did not set again leave the table.
    void finish() noexcept {
        if (reused_ != not_reusing) {
            drop_previous();
        }
    }

  private:
    static constexpr std::size_t not_reusing = static_cast<std::size_t>(-1);

    void put(zend_string* key, zval* value) noexcept {
        if (reused_ != not_reusing) {
            if (reused_ < added_->size() && same_key((*added_)[reused_], key)) {
                zend_hash_update(table_, key, value);
                ++reused_;
                return;
            }
            drop_previous();
        }
        zend_hash_update(table_, key, value);
        note(key);
    }

    // While reusing: the previous keys from position reused_ on leave the table, last first; one
    // that shadowed an environment variable gets the environment's value back, in the bucket it
    // always had.
    void drop_previous() noexcept {
        const env_snapshot& environment = current_environment();
        while (added_->size() > reused_) {
            zend_string* key = added_->back();
            if (const zval* value = environment.find_value(key)) {
                zval restored;
                ZVAL_COPY_VALUE(&restored, value);
                zend_hash_update(table_, key, &restored);
            } else {
                zend_hash_del(table_, key);
            }
            added_->pop_back();
            zend_string_release(key);
        }
        reused_ = not_reusing;
    }

    // As php-fpm registers a CGI parameter: the filter gets an emalloc'd copy it may replace.
    // ext/filter's php_sapi_filter() registers the filtered value into
    // PG(http_globals)[TRACK_VARS_SERVER] itself (the array being built) and returns 0; a
    // filter that returns non-zero leaves the registration to us.
    void add_filtered(zend_string* key, std::string_view value) const noexcept {
        char* copy = estrndup(value.data(), value.size());
        size_t new_length = value.size();
        if (sapi_module.input_filter(PARSE_SERVER, ZSTR_VAL(key), &copy, value.size(),
                                     &new_length)) {
            zval entry;
            ZVAL_STRINGL_FAST(&entry, copy, new_length);
            zend_hash_update(table_, key, &entry);
        }
        efree(copy);
    }

    void note(zend_string* key) const noexcept {
        if (added_ != nullptr) {
            added_->push_back(zend_string_copy(key));
        }
    }

    HashTable* table_;
    std::vector<zend_string*>* added_;
    bool filtered_;
    std::size_t reused_;
};

// Variables added besides the headers, for sizing the table: the CGI set, HTTPS, AUTH_TYPE,
// REMOTE_USER, FRANKENPHP_WORKER and the five PHP adds after us.
constexpr uint32_t fixed_variable_count = static_cast<uint32_t>(server_key::count);

}  // namespace

void init_server_variables() {
    create_server_keys();
    content_type_key = common_header_key("Content-Type");
    content_length_key = common_header_key("Content-Length");
    cookie_key = common_header_key("Cookie");
    proxy_key = common_header_key("Proxy");
    // Unset (no filter extension), empty or unsafe_raw: values go in as received. Any other
    // name goes through the filter, which also handles names it does not know (it falls back
    // to unsafe_raw) - slower, never wrong.
    bool exists = false;
    const char* filter =
        zend_ini_string_ex("filter.default", sizeof("filter.default") - 1, 0, &exists);
    values_are_filtered =
        exists && filter != nullptr && filter[0] != '\0' && strcasecmp(filter, "unsafe_raw") != 0;
}

void shutdown_server_variables() noexcept {
    content_type_key = content_length_key = cookie_key = proxy_key = nullptr;
    destroy_server_keys();
}

void release_server_keys(std::vector<zend_string*>& keys) noexcept {
    for (zend_string* key : keys) {
        zend_string_release(key);
    }
    keys.clear();
}

void release_kept_server(kept_server_array& kept) noexcept {
    if (kept.array != nullptr) {
        zend_array_release(kept.array);
        kept.array = nullptr;
    }
    release_server_keys(kept.keys);
}

bool variables_order_has_server() noexcept {
    const char* order = PG(variables_order);
    return order != nullptr && (std::strchr(order, 'S') != nullptr || std::strchr(order, 's'));
}

namespace {

// One allocation for everything a request adds, instead of doubling as it grows. A packed
// table (an environment of numeric names only) is converted by the first insert.
void reserve_for_request(HashTable* table, const request& req) noexcept {
    if (!HT_IS_PACKED(table)) {
        zend_hash_extend(table,
                         zend_hash_num_elements(table) + fixed_variable_count +
                             static_cast<uint32_t>(req.headers.size()),
                         0);
    }
}

// The SAPI's part of $_SERVER, in the order php-fpm's CGI parameters would come.
void add_request_variables(slot_context& ctx, variable_writer& out) noexcept {
    const request& req = *ctx.req;
    const std::vector<header>& headers = req.headers;

    // Only while the script boots, as in FrankenPHP: that is how a script written in its
    // executor pattern tells that it runs as a worker. A request's $_SERVER has no
    // FRANKENPHP_WORKER, so code run by the handler behaves as it would in a classic script.
    if (ctx.worker != nullptr && ctx.req == ctx.boot_request) {
        out.add(server_key::frankenphp_worker, "1");
    }
    out.add(server_key::server_software, "Spindle/" SPINDLE_VERSION);
    out.add(server_key::gateway_interface, "CGI/1.1");
    out.add(server_key::server_protocol, req.http_version == 20   ? "HTTP/2.0"
                                         : req.http_version == 10 ? "HTTP/1.0"
                                                                  : "HTTP/1.1");
    out.add(server_key::request_scheme, req.is_https ? "https" : "http");
    // What Apache's mod_ssl names; FrankenPHP defines them empty on plain HTTP, and so do we:
    // `!empty($_SERVER['HTTPS'])`, the usual test, reads them the same either way.
    out.add(server_key::https, req.is_https ? "on" : "");
    out.add(server_key::ssl_protocol, req.is_https ? req.tls_protocol : "");
    out.add(server_key::ssl_cipher, req.is_https ? req.tls_cipher : "");
    out.add(server_key::server_name, req.server_name);
    out.add(server_key::server_addr, req.server_addr);
    out.add_number(server_key::server_port, req.server_port);
    out.add(server_key::remote_addr, req.remote_addr);
    // No reverse DNS: like Caddy and php-fpm behind nginx, REMOTE_HOST is the address.
    out.add(server_key::remote_host, req.remote_addr);
    out.add_number(server_key::remote_port, req.remote_port);
    out.add(server_key::request_method, req.method);
    out.add(server_key::request_uri, req.uri);
    out.add(server_key::query_string, req.query);
    out.add(server_key::document_root, req.document_root);
    out.add(server_key::document_uri, req.script_name);
    out.add(server_key::script_filename, req.script_filename);
    out.add(server_key::script_name, req.script_name);
    out.add(server_key::path_info, req.path_info);
    if (!req.path_info.empty()) {
        out.add(server_key::path_translated, req.document_root, req.path_info);
    }
    out.add(server_key::php_self, req.script_name, req.path_info);
    out.add(server_key::content_type, req.content_type);
    if (req.content_length > 0 || !req.content_type.empty()) {
        out.add_number(server_key::content_length, req.content_length);
    } else {
        out.add(server_key::content_length, "");
    }
    // Empty, as FrankenPHP sets them: no authentication is done by the server, and no ident
    // lookup (RFC 1413).
    out.add(server_key::auth_type, "");
    out.add(server_key::remote_ident, "");
    if (SG(request_info).auth_user != nullptr) {
        // The Basic user, as nginx's fastcgi_params and FrankenPHP pass it.
        out.add(server_key::remote_user, SG(request_info).auth_user);
    }

    // The key of every header first (null: not a variable), so that repeated names can be
    // joined. Scratch buffers live in the slot's context: nothing with a destructor may sit
    // in this frame, which an allocation failure can leave by longjmp.
    std::vector<zend_string*>& keys = ctx.header_key_scratch;
    keys.clear();
    for (const header& h : headers) {
        zend_string* key = common_header_key(h.name);
        if (key == nullptr) {
            const zend_string* cached = ctx.header_keys.find_or_convert(h.name);
            key = cached != nullptr ? request_copy(cached) : nullptr;
        } else if (key == content_type_key || key == content_length_key || key == proxy_key) {
            key = nullptr;
        }
        keys.push_back(key);
    }

    // One HTTP_* per name; repeated headers are joined as CGI/1.1 says (", "), except Cookie,
    // which PHP parses with "; ".
    std::string& joined = ctx.header_join_scratch;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        zend_string* key = keys[i];
        if (key == nullptr) {
            continue;
        }
        std::string_view value = headers[i].value;
        bool repeated = false;
        for (std::size_t j = i + 1; j < keys.size(); ++j) {
            if (keys[j] == nullptr || !same_key(keys[j], key)) {
                continue;
            }
            if (!repeated) {
                joined.assign(value);
                repeated = true;
            }
            joined.append(key == cookie_key ? "; " : ", ");
            joined.append(headers[j].value);
            zend_string_release(keys[j]);
            keys[j] = nullptr;
        }
        out.add(key, repeated ? std::string_view(joined) : value);
        // The array holds its own reference (or kept the equal key it already had).
        zend_string_release(key);
        keys[i] = nullptr;
    }
}

}  // namespace

void register_server_variables(slot_context& ctx, zval* array,
                               std::vector<zend_string*>* added_keys, bool raw) noexcept {
    HashTable* table = Z_ARRVAL_P(array);
    reserve_for_request(table, *ctx.req);
    variable_writer out(table, added_keys, values_are_filtered && !raw, false);
    add_request_variables(ctx, out);
}

void reuse_server_variables(slot_context& ctx, HashTable* table,
                            std::vector<zend_string*>& keys) noexcept {
    reserve_for_request(table, *ctx.req);
    variable_writer out(table, &keys, values_are_filtered, true);
    add_request_variables(ctx, out);
    // What php_register_server_variables() adds after the SAPI's own variables.
    zval value;
    if (SG(request_info).auth_user != nullptr) {
        ZVAL_STRING(&value, SG(request_info).auth_user);
        out.add_engine(server_key::php_auth_user, &value);
    }
    if (SG(request_info).auth_password != nullptr) {
        ZVAL_STRING(&value, SG(request_info).auth_password);
        out.add_engine(server_key::php_auth_pw, &value);
    }
    if (SG(request_info).auth_digest != nullptr) {
        ZVAL_STRING(&value, SG(request_info).auth_digest);
        out.add_engine(server_key::php_auth_digest, &value);
    }
    ZVAL_DOUBLE(&value, sapi_get_request_time());
    const double now = Z_DVAL(value);
    out.add_engine(server_key::request_time_float, &value);
    ZVAL_LONG(&value, zend_dval_to_lval(now));
    out.add_engine(server_key::request_time, &value);
    out.finish();
}

void note_engine_server_variables(std::vector<zend_string*>& keys) noexcept {
    if (SG(request_info).auth_user != nullptr) {
        keys.push_back(key_of(server_key::php_auth_user));
    }
    if (SG(request_info).auth_password != nullptr) {
        keys.push_back(key_of(server_key::php_auth_pw));
    }
    if (SG(request_info).auth_digest != nullptr) {
        keys.push_back(key_of(server_key::php_auth_digest));
    }
    keys.push_back(key_of(server_key::request_time_float));
    keys.push_back(key_of(server_key::request_time));
}

}  // namespace spindle::sapi

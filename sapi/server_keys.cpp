#include "sapi/server_keys.hpp"

#include <cstring>
#include <utility>

#include "sapi/php.hpp"

namespace spindle::sapi {
namespace {

// In server_key order.
constexpr std::array<std::string_view, static_cast<std::size_t>(server_key::count)> key_names = {
    "FRANKENPHP_WORKER",  "SERVER_SOFTWARE", "GATEWAY_INTERFACE", "SERVER_PROTOCOL",
    "REQUEST_SCHEME",     "HTTPS",           "SSL_PROTOCOL",      "SSL_CIPHER",
    "SERVER_NAME",        "SERVER_ADDR",     "SERVER_PORT",       "REMOTE_ADDR",
    "REMOTE_HOST",        "REMOTE_PORT",     "REQUEST_METHOD",    "REQUEST_URI",
    "QUERY_STRING",       "DOCUMENT_ROOT",   "DOCUMENT_URI",      "SCRIPT_FILENAME",
    "SCRIPT_NAME",        "PATH_INFO",       "PATH_TRANSLATED",   "PHP_SELF",
    "CONTENT_TYPE",       "CONTENT_LENGTH",  "AUTH_TYPE",         "REMOTE_IDENT",
    "REMOTE_USER",        "PHP_AUTH_USER",   "PHP_AUTH_PW",       "PHP_AUTH_DIGEST",
    "REQUEST_TIME_FLOAT", "REQUEST_TIME",
};
static_assert(key_names.back() == "REQUEST_TIME", "one name per server_key, in order");

// Request headers common enough to get a prepared key: the standard request fields, client
// hints and fetch metadata that browsers send, and the forwarding, tracing and CDN fields that
// proxies add. Content-Type and Content-Length are here so that they are recognised (they are
// CONTENT_TYPE/CONTENT_LENGTH, never HTTP_*), as is Proxy (httpoxy: never HTTP_PROXY).
constexpr std::string_view common_header_names[] = {
    "A-IM",
    "Accept",
    "Accept-Charset",
    "Accept-Datetime",
    "Accept-Encoding",
    "Accept-Language",
    "Access-Control-Request-Headers",
    "Access-Control-Request-Method",
    "Authorization",
    "Baggage",
    "Cache-Control",
    "CDN-Loop",
    "CF-Connecting-IP",
    "CF-IPCountry",
    "CF-Ray",
    "CF-Visitor",
    "CloudFront-Forwarded-Proto",
    "CloudFront-Viewer-Address",
    "CloudFront-Viewer-Country",
    "Connection",
    "Content-Disposition",
    "Content-Encoding",
    "Content-Language",
    "Content-Length",
    "Content-MD5",
    "Content-Type",
    "Cookie",
    "Date",
    "Device-Memory",
    "DNT",
    "Downlink",
    "DPR",
    "Early-Data",
    "ECT",
    "Expect",
    "Forwarded",
    "From",
    "Front-End-Https",
    "Host",
    "HTTP2-Settings",
    "If-Match",
    "If-Modified-Since",
    "If-None-Match",
    "If-Range",
    "If-Unmodified-Since",
    "Keep-Alive",
    "Last-Event-ID",
    "Max-Forwards",
    "Origin",
    "Pragma",
    "Prefer",
    "Priority",
    "Proxy",
    "Proxy-Authorization",
    "Proxy-Connection",
    "Purpose",
    "Range",
    "Referer",
    "RTT",
    "Save-Data",
    "Sec-CH-Prefers-Color-Scheme",
    "Sec-CH-UA",
    "Sec-CH-UA-Arch",
    "Sec-CH-UA-Bitness",
    "Sec-CH-UA-Full-Version",
    "Sec-CH-UA-Full-Version-List",
    "Sec-CH-UA-Mobile",
    "Sec-CH-UA-Model",
    "Sec-CH-UA-Platform",
    "Sec-CH-UA-Platform-Version",
    "Sec-Fetch-Dest",
    "Sec-Fetch-Mode",
    "Sec-Fetch-Site",
    "Sec-Fetch-User",
    "Sec-GPC",
    "Sec-Purpose",
    "Sec-WebSocket-Extensions",
    "Sec-WebSocket-Key",
    "Sec-WebSocket-Protocol",
    "Sec-WebSocket-Version",
    "Service-Worker-Navigation-Preload",
    "TE",
    "Traceparent",
    "Tracestate",
    "Trailer",
    "Transfer-Encoding",
    "Upgrade",
    "Upgrade-Insecure-Requests",
    "User-Agent",
    "Via",
    "Viewport-Width",
    "Want-Digest",
    "Warning",
    "Width",
    "X-Amzn-Trace-Id",
    "X-Cloud-Trace-Context",
    "X-Correlation-ID",
    "X-CSRF-Token",
    "X-Forwarded-For",
    "X-Forwarded-Host",
    "X-Forwarded-Port",
    "X-Forwarded-Prefix",
    "X-Forwarded-Proto",
    "X-Forwarded-Ssl",
    "X-HTTP-Method-Override",
    "X-Inertia",
    "X-Livewire",
    "X-Real-IP",
    "X-Request-ID",
    "X-Requested-With",
    "X-XSRF-Token",
};
constexpr std::size_t common_header_count = std::size(common_header_names);

// Open addressing, at most half full so that probe sequences stay short.
constexpr int common_table_bits = 8;
constexpr std::size_t common_table_size = std::size_t{1} << common_table_bits;
static_assert(common_table_size >= 2 * common_header_count);

struct common_entry {
    std::string lower_name;  ///< as listed above, lower-cased
    zend_string* key = nullptr;
};

// Process-wide, written only by create_server_keys()/destroy_server_keys() on the control
// thread while no slot thread runs; read-only (and so shared without locks) in between.
std::array<zend_string*, static_cast<std::size_t>(server_key::count)> server_keys{};
std::array<common_entry, common_table_size> common_table{};

constexpr char to_lower(char c) noexcept {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Word-at-a-time hash of a header name: names are short, and a byte-serial hash (FNV) cost
// more than the rest of the lookup. With `fold` set, bit 5 of every byte is forced on, which
// maps 'A'-'Z' to 'a'-'z' and leaves digits and '-' alone, so every spelling of a valid name
// hashes alike; the final comparison stays exact.
std::uint64_t name_hash(std::string_view name, bool fold) noexcept {
    const std::uint64_t mask = fold ? 0x2020202020202020ull : 0;
    const char* p = name.data();
    const std::size_t n = name.size();
    std::uint64_t h = n * 0x9e3779b97f4a7c15ull;
    auto mix = [&h, mask](std::uint64_t word) {
        h = (h ^ (word | mask)) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
    };
    if (n >= 8) {
        std::size_t i = 0;
        for (; i + 8 < n; i += 8) {
            std::uint64_t word;
            std::memcpy(&word, p + i, 8);
            mix(word);
        }
        // The last 8 bytes, overlapping the previous word: fixed-size loads only (a
        // variable-length memcpy is a library call that costs more than the whole hash).
        std::uint64_t word;
        std::memcpy(&word, p + n - 8, 8);
        mix(word);
    } else {
        std::uint64_t word = 0;
        for (std::size_t i = 0; i < n; ++i) {
            word = (word << 8) | static_cast<unsigned char>(p[i]);
        }
        mix(word);
    }
    return h * 0x94d049bb133111ebull;
}

// `name` equals `lower_name` ignoring the case of ASCII letters.
bool equals_lower(std::string_view name, std::string_view lower_name) noexcept {
    if (name.size() != lower_name.size()) {
        return false;
    }
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (to_lower(name[i]) != lower_name[i]) {
            return false;
        }
    }
    return true;
}

// A persistent string that PHP treats as interned: never reference-counted nor freed by the
// engine. The hash is computed here, before the string is shared, because zend_hash would
// otherwise compute it lazily (a write) on first use.
zend_string* make_interned_key(std::string_view text) {
    zend_string* s = zend_string_init(text.data(), text.size(), 1);
    GC_TYPE_INFO(s) = GC_STRING | ((IS_STR_INTERNED | IS_STR_PERSISTENT) << GC_FLAGS_SHIFT);
    zend_string_hash_val(s);
    return s;
}

void free_interned_key(zend_string*& s) noexcept {
    if (s != nullptr) {
        free(s);
        s = nullptr;
    }
}

// header_key_cache: 2 ways per set, the set taken from the hash's top bits.
constexpr std::size_t ways = 2;
constexpr int set_bits = 7;
static_assert(header_key_cache::capacity == ways << set_bits);

}  // namespace

std::string_view to_string(server_key key) noexcept {
    return key_names[static_cast<std::size_t>(key)];
}

bool http_variable_name(std::string_view header_name, std::string& out) {
    if (header_name.empty()) {
        return false;
    }
    out.assign("HTTP_");
    for (char c : header_name) {
        if (c >= 'a' && c <= 'z') {
            out.push_back(static_cast<char>(c - 'a' + 'A'));
        } else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            out.push_back(c);
        } else if (c == '-') {
            out.push_back('_');
        } else {
            return false;
        }
    }
    return true;
}

void create_server_keys() {
    for (std::size_t i = 0; i < server_keys.size(); ++i) {
        server_keys[i] = make_interned_key(key_names[i]);
    }
    std::string name;
    for (std::string_view header : common_header_names) {
        http_variable_name(header, name);
        std::size_t slot = name_hash(header, true) >> (64 - common_table_bits);
        while (common_table[slot].key != nullptr) {
            slot = (slot + 1) & (common_table_size - 1);
        }
        common_table[slot].lower_name.assign(header);
        for (char& c : common_table[slot].lower_name) {
            c = to_lower(c);
        }
        common_table[slot].key = make_interned_key(name);
    }
}

void destroy_server_keys() noexcept {
    for (zend_string*& key : server_keys) {
        free_interned_key(key);
    }
    for (common_entry& entry : common_table) {
        free_interned_key(entry.key);
        entry.lower_name.clear();
    }
}

zend_string* key_of(server_key key) noexcept {
    return server_keys[static_cast<std::size_t>(key)];
}

zend_string* common_header_key(std::string_view header_name) noexcept {
    std::size_t slot = name_hash(header_name, true) >> (64 - common_table_bits);
    // The table is never full, so an empty slot ends every probe sequence.
    while (common_table[slot].key != nullptr) {
        if (equals_lower(header_name, common_table[slot].lower_name)) {
            return common_table[slot].key;
        }
        slot = (slot + 1) & (common_table_size - 1);
    }
    return nullptr;
}

header_key_cache::~header_key_cache() {
    clear();
}

header_key_cache::header_key_cache(header_key_cache&& other) noexcept {
    *this = std::move(other);
}

header_key_cache& header_key_cache::operator=(header_key_cache&& other) noexcept {
    if (this != &other) {
        clear();
        for (std::size_t i = 0; i < capacity; ++i) {
            entries_[i].hash = other.entries_[i].hash;
            entries_[i].name = std::move(other.entries_[i].name);
            entries_[i].key = std::exchange(other.entries_[i].key, nullptr);
        }
        recent_ = other.recent_;
    }
    return *this;
}

zend_string* header_key_cache::find_or_convert(std::string_view header_name) noexcept {
    std::uint64_t hash = name_hash(header_name, false);
    std::size_t set = (hash >> (64 - set_bits)) * ways;
    for (std::size_t way = 0; way < ways; ++way) {
        entry& e = entries_[set + way];
        if (e.key != nullptr && e.hash == hash && e.name == header_name) {
            recent_[set / ways] = static_cast<std::uint8_t>(way);
            return e.key;
        }
    }
    // A miss replaces the way not used last (a free one first).
    std::size_t way = entries_[set].key == nullptr ? 0 : 1 - recent_[set / ways];
    entry& e = entries_[set + way];
    try {
        if (!http_variable_name(header_name, scratch_)) {
            return nullptr;
        }
        // Assigning reuses the entry's buffer once it has one.
        e.name.assign(header_name);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
    if (e.key != nullptr) {
        free(e.key);
    }
    // Persistent (malloc) and private to this thread; never handed to PHP itself.
    e.key = zend_string_init(scratch_.data(), scratch_.size(), 1);
    zend_string_hash_val(e.key);
    e.hash = hash;
    recent_[set / ways] = static_cast<std::uint8_t>(way);
    return e.key;
}

void header_key_cache::clear() noexcept {
    for (entry& e : entries_) {
        if (e.key != nullptr) {
            free(e.key);
            e.key = nullptr;
        }
        e.name.clear();
        e.name.shrink_to_fit();
    }
}

}  // namespace spindle::sapi

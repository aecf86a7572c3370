#include "server/http/forwarded_client.hpp"

#include <algorithm>
#include <charconv>

namespace spindle::server {

namespace {

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return (x >= 'A' && x <= 'Z' ? x + 32 : x) == (y >= 'A' && y <= 'Z' ? y + 32 : y);
           });
}

std::string_view trim(std::string_view text) {
    const std::size_t begin = text.find_first_not_of(" \t");
    if (begin == std::string_view::npos) {
        return {};
    }
    return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

// The comma-separated members of every field named `name`, in order: repeated fields are one
// list (RFC 9110, 5.3).
std::vector<std::string_view> list_members(std::span<const field_view> fields,
                                           std::string_view name) {
    std::vector<std::string_view> out;
    for (const field_view& field : fields) {
        if (!iequals(field.name, name)) {
            continue;
        }
        std::string_view rest = field.value;
        while (true) {
            const std::size_t comma = rest.find(',');
            if (const std::string_view member = trim(rest.substr(0, comma)); !member.empty()) {
                out.push_back(member);
            }
            if (comma == std::string_view::npos) {
                break;
            }
            rest.remove_prefix(comma + 1);
        }
    }
    return out;
}

std::optional<std::uint16_t> parse_port(std::string_view text) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value == 0 || value > 65535) {
        return std::nullopt;
    }
    return static_cast<std::uint16_t>(value);
}

// RFC 9110 token characters.
bool is_token_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// A host a proxy may name: letters, digits, '.', '-', '_', an IPv6 literal in brackets and a
// port. Anything else (spaces, '/', '@', control bytes) is refused rather than handed to PHP
// as SERVER_NAME.
bool is_plausible_host(std::string_view host) {
    return !host.empty() && host.size() <= 255 && std::all_of(host.begin(), host.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '-' || c == '_' || c == ':' || c == '[' || c == ']';
    });
}

// The client address from a list of nodes, right to left past trusted proxies (strict), or
// the first that is an address.
std::optional<node_address> pick_client(const forwarding_rules& rules,
                                        const std::vector<std::string_view>& nodes) {
    if (rules.strict) {
        for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
            const std::optional<node_address> node = parse_node(*it);
            if (!node) {
                // "unknown" or an obfuscated name where the first untrusted hop should be:
                // nobody can say who the client is, and no earlier entry may be believed.
                return std::nullopt;
            }
            if (!rules.trusted.contains(node->address)) {
                return node;
            }
        }
        return std::nullopt;
    }
    for (const std::string_view text : nodes) {
        if (const std::optional<node_address> node = parse_node(text)) {
            return node;
        }
    }
    return std::nullopt;
}

}  // namespace

void parse_forwarded(std::string_view value, std::vector<forwarded_element>& out) {
    std::size_t i = 0;
    const auto skip_spaces = [&] {
        while (i < value.size() && (value[i] == ' ' || value[i] == '\t')) {
            ++i;
        }
    };
    forwarded_element element;
    bool element_has_pair = false;
    while (true) {
        skip_spaces();
        if (i == value.size()) {
            break;
        }
        const std::size_t name_begin = i;
        while (i < value.size() && is_token_char(value[i])) {
            ++i;
        }
        const std::string_view name = value.substr(name_begin, i - name_begin);
        if (name.empty() || i == value.size() || value[i] != '=') {
            return;  // malformed: stop, keeping the complete elements before it
        }
        ++i;
        std::string_view pair_value;
        if (i < value.size() && value[i] == '"') {
            const std::size_t begin = ++i;
            while (i < value.size() && value[i] != '"' && value[i] != '\\') {
                ++i;
            }
            if (i == value.size() || value[i] != '"') {
                return;  // unterminated, or a quoted-pair: not a value a proxy writes
            }
            pair_value = value.substr(begin, i - begin);
            ++i;
        } else {
            const std::size_t begin = i;
            while (i < value.size() && is_token_char(value[i])) {
                ++i;
            }
            pair_value = value.substr(begin, i - begin);
        }
        if (iequals(name, "for")) {
            element.for_node = pair_value;
        } else if (iequals(name, "proto")) {
            element.proto = pair_value;
        } else if (iequals(name, "host")) {
            element.host = pair_value;
        }
        element_has_pair = true;
        skip_spaces();
        if (i == value.size()) {
            break;
        }
        if (value[i] == ';') {
            ++i;
            continue;
        }
        if (value[i] != ',') {
            return;
        }
        ++i;
        out.push_back(element);
        element = {};
        element_has_pair = false;
    }
    if (element_has_pair) {
        out.push_back(element);
    }
}

std::optional<node_address> parse_node(std::string_view text) {
    text = trim(text);
    node_address node;
    std::string_view address = text;
    std::string_view port;
    if (text.starts_with('[')) {
        const std::size_t close = text.find(']');
        if (close == std::string_view::npos) {
            return std::nullopt;
        }
        address = text.substr(1, close - 1);
        const std::string_view rest = text.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') {
                return std::nullopt;
            }
            port = rest.substr(1);
        }
    } else if (std::count(text.begin(), text.end(), ':') == 1) {
        // One colon: IPv4 with a port. More: a bare IPv6 address, which has no port.
        const std::size_t colon = text.find(':');
        address = text.substr(0, colon);
        port = text.substr(colon + 1);
    }
    const std::optional<config::ip_bytes> parsed = config::parse_ip(address);
    if (!parsed) {
        return std::nullopt;
    }
    node.address = *parsed;
    // An obfuscated port ("_abc", RFC 7239 6.3) or none leaves 0.
    node.port = parse_port(port).value_or(0);
    return node;
}

forwarding_rules::forwarding_rules(const config::trusted_proxies_config& config)
    : trusted(config.ranges),
      strict(config.strict),
      trust_unix(config.trust_unix),
      use_host(config.use_host),
      client_ip_headers(config.client_ip_headers) {}

bool is_trusted_peer(const forwarding_rules& rules, std::string_view peer, bool is_unix) noexcept {
    return is_unix ? rules.trust_unix : rules.trusted.contains(peer);
}

forwarded_client read_forwarded(const forwarding_rules& rules, std::span<const field_view> fields) {
    forwarded_client client;
    std::vector<forwarded_element> forwarded;
    for (const field_view& field : fields) {
        if (iequals(field.name, "forwarded")) {
            parse_forwarded(field.value, forwarded);
        }
    }

    for (const std::string& header : rules.client_ip_headers) {
        std::vector<std::string_view> nodes;
        if (iequals(header, "forwarded")) {
            for (const forwarded_element& element : forwarded) {
                nodes.push_back(element.for_node);
            }
        } else {
            nodes = list_members(fields, header);
        }
        if (nodes.empty()) {
            continue;
        }
        if (const std::optional<node_address> node = pick_client(rules, nodes)) {
            client.address = config::format_ip(node->address);
            client.port = node->port;
        }
        // The first header present decides, whether or not it named a usable address: a
        // later one must not overrule what the nearest proxy wrote.
        break;
    }

    // The scheme, port and host the client used are those the first proxy saw: the left-most.
    std::string_view proto;
    if (const auto members = list_members(fields, "x-forwarded-proto"); !members.empty()) {
        proto = members.front();
    } else {
        for (const forwarded_element& element : forwarded) {
            if (!element.proto.empty()) {
                proto = element.proto;
                break;
            }
        }
    }
    if (iequals(proto, "https") || iequals(proto, "wss")) {
        client.is_https = true;
    } else if (iequals(proto, "http") || iequals(proto, "ws")) {
        client.is_https = false;
    }
    if (const auto members = list_members(fields, "x-forwarded-port"); !members.empty()) {
        client.server_port = parse_port(members.front());
    }
    if (rules.use_host) {
        std::string_view host;
        if (const auto members = list_members(fields, "x-forwarded-host"); !members.empty()) {
            host = members.front();
        } else {
            for (const forwarded_element& element : forwarded) {
                if (!element.host.empty()) {
                    host = element.host;
                    break;
                }
            }
        }
        if (is_plausible_host(host)) {
            client.host = std::string(host);
        }
    }
    return client;
}

}  // namespace spindle::server

#include "server/http/header_rules.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include <boost/beast/core/string.hpp>

namespace spindle::server {

void apply_header_rules(std::string& head, const std::vector<config::header_rule>& rules) {
    if (rules.empty()) {
        return;
    }
    const std::size_t status_end = head.find("\r\n") + 2;
    std::string fields;
    // Keep each field line whose name no set/remove rule claims.
    for (std::size_t at = status_end; at + 2 <= head.size();) {
        const std::size_t end = head.find("\r\n", at);
        if (end == std::string::npos || end == at) {
            break;
        }
        const std::string_view line(head.data() + at, end - at);
        const std::string_view name = line.substr(0, line.find(':'));
        bool dropped = false;
        for (const config::header_rule& rule : rules) {
            dropped = dropped || (rule.operation != config::header_rule::op::add &&
                                  boost::beast::iequals(name, rule.name));
        }
        if (!dropped) {
            fields.append(line).append("\r\n");
        }
        at = end + 2;
    }
    for (const config::header_rule& rule : rules) {
        if (rule.operation != config::header_rule::op::remove) {
            fields.append(rule.name).append(": ").append(rule.value).append("\r\n");
        }
    }
    head.resize(status_end);
    head.append(fields).append("\r\n");
}

void apply_header_rules(std::vector<head_field>& fields,
                        const std::vector<config::header_rule>& rules) {
    for (const config::header_rule& rule : rules) {
        if (rule.operation == config::header_rule::op::add) {
            continue;
        }
        std::erase_if(fields, [&](const head_field& field) {
            return boost::beast::iequals(field.name, rule.name);
        });
    }
    for (const config::header_rule& rule : rules) {
        if (rule.operation != config::header_rule::op::remove) {
            std::string name = rule.name;
            std::transform(name.begin(), name.end(), name.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            fields.push_back({std::move(name), rule.value});
        }
    }
}

}  // namespace spindle::server

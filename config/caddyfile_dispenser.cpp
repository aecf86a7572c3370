#include "config/caddyfile_dispenser.hpp"

#include <utility>

namespace spindle::config::caddyfile {

namespace {

bool is_open_brace(const token& t) {
    return !t.quoted && t.text == "{";
}

bool is_close_brace(const token& t) {
    return !t.quoted && t.text == "}";
}

/// The lexer gives every token of a logical line (one continued with a backslash, or holding a
/// multi-line string) that line's first line, so equal lines mean the same line.
bool on_same_line(const token& a, const token& b) {
    return a.line == b.line && a.file == b.file;
}

/// What current() shows before the first next(): no text, no place.
const token& no_token() {
    static const token empty;
    return empty;
}

}  // namespace

dispenser::dispenser(std::vector<token> tokens) : tokens_(std::move(tokens)) {}

bool dispenser::next() {
    if (cursor_ + 1 < static_cast<std::ptrdiff_t>(tokens_.size())) {
        ++cursor_;
        return true;
    }
    return false;
}

bool dispenser::next_is_arg() const {
    const auto next_index = static_cast<std::size_t>(cursor_ + 1);
    if (next_index >= tokens_.size() || is_open_brace(tokens_[next_index])) {
        return false;
    }
    // Before the first next() the first token counts as an argument, as in Caddy.
    return cursor_ < 0 || on_same_line(tokens_[next_index - 1], tokens_[next_index]);
}

bool dispenser::next_arg() {
    if (!next_is_arg()) {
        return false;
    }
    ++cursor_;
    return true;
}

bool dispenser::next_block(std::size_t nesting) {
    if (nesting_ <= nesting) {
        // First call: the current line must end in "{"; arguments not read yet are skipped.
        if (tokens_.empty()) {
            return false;
        }
        auto last = static_cast<std::size_t>(cursor_ < 0 ? 0 : cursor_);
        while (last + 1 < tokens_.size() && on_same_line(tokens_[last], tokens_[last + 1])) {
            ++last;
        }
        if (!is_open_brace(tokens_[last])) {
            return false;
        }
        cursor_ = static_cast<std::ptrdiff_t>(last);
        ++nesting_;
    }
    // Move to the next line that starts at the block's own depth, passing over what is left of
    // the current line and any block it opened, or stop on the block's closing brace. Every
    // unquoted brace counts, as it does for parse(), so both agree where a block ends.
    while (next()) {
        const token& t = tokens_[static_cast<std::size_t>(cursor_)];
        if (is_close_brace(t)) {
            if (nesting_ > 0) {
                --nesting_;
            }
            if (nesting_ <= nesting) {
                return false;
            }
        } else if (is_open_brace(t)) {
            ++nesting_;
        } else if (nesting_ == nesting + 1 &&
                   (cursor_ == 0 ||
                    !on_same_line(tokens_[static_cast<std::size_t>(cursor_ - 1)], t))) {
            return true;
        }
    }
    // The tokens ended inside the block; parse() never makes such a segment.
    nesting_ = nesting;
    return false;
}

std::size_t dispenser::nesting() const {
    return nesting_;
}

std::vector<std::string> dispenser::remaining_args() {
    std::vector<std::string> args;
    while (next_arg()) {
        args.push_back(val());
    }
    return args;
}

const std::string& dispenser::val() const {
    return current().text;
}

const token& dispenser::current() const {
    if (cursor_ < 0) {
        return no_token();
    }
    return tokens_[static_cast<std::size_t>(cursor_)];
}

config_error dispenser::error(const std::string& message) const {
    // Before the first next() the segment's first token is still the best place to point at.
    if (cursor_ < 0 && !tokens_.empty()) {
        return config_error(message, tokens_.front().file, tokens_.front().line);
    }
    if (cursor_ < 0) {
        return config_error(message);
    }
    return config_error(message, current().file, current().line);
}

config_error dispenser::arg_error() const {
    return error("wrong argument count or unexpected line ending after '" + val() + "'");
}

}  // namespace spindle::config::caddyfile

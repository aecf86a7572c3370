#include "config/caddyfile_lexer.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config_error.hpp"

namespace spindle::config::caddyfile {

namespace {

/// Whitespace that separates tokens without ending the line. '\r' is here so CRLF files lex
/// like LF files.
bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool is_space(char c) {
    return is_blank(c) || c == '\n';
}

bool is_marker_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
}

/// Spaces and tabs only: what may indent a heredoc line.
bool is_indent(char c) {
    return c == ' ' || c == '\t';
}

bool is_all_blank(std::string_view text) {
    for (char c : text) {
        if (!is_blank(c)) {
            return false;
        }
    }
    return true;
}

/// Reads one file into tokens. Two line counters: line_ is the physical line under the cursor
/// (for errors), logical_line_ the line every token of the current logical line carries. They
/// differ after a backslash-newline, a multi-line string or a heredoc, which continue the line:
/// the dispenser decides "same line" by comparing token lines, so those tokens must keep the
/// line where their logical line started.
class lexer {
  public:
    lexer(std::string_view text, const std::string& file) : text_(text), file_(file) {}

    std::vector<token> run() {
        std::vector<token> tokens;
        // An editor's UTF-8 byte order mark is not part of the first token.
        if (text_.starts_with("\xEF\xBB\xBF")) {
            pos_ = 3;
        }
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == '\n') {
                ++pos_;
                ++line_;
                logical_line_ = line_;
            } else if (is_blank(c)) {
                ++pos_;
            } else if (is_continuation()) {
                skip_continuation();
            } else if (c == '#') {
                skip_comment();
            } else {
                tokens.push_back(next_token());
            }
        }
        return tokens;
    }

  private:
    char at(std::size_t pos) const { return pos < text_.size() ? text_[pos] : '\0'; }

    /// A backslash right before the end of the line joins the next line to this one.
    bool is_continuation() const {
        return at(pos_) == '\\' &&
               (at(pos_ + 1) == '\n' || (at(pos_ + 1) == '\r' && at(pos_ + 2) == '\n'));
    }

    void skip_continuation() {
        pos_ = text_.find('\n', pos_) + 1;
        ++line_;
    }

    /// Up to, not including, the newline: the newline still ends the line.
    void skip_comment() {
        const std::size_t end = text_.find('\n', pos_);
        pos_ = end == std::string_view::npos ? text_.size() : end;
    }

    token next_token() {
        const char c = text_[pos_];
        if (c == '"' || c == '`') {
            return quoted_string(c);
        }
        if (c == '<' && at(pos_ + 1) == '<') {
            return heredoc();
        }
        return word();
    }

    token make_token(std::string text, bool quoted) const {
        token t;
        t.text = std::move(text);
        t.file = file_;
        t.line = logical_line_;
        t.quoted = quoted;
        return t;
    }

    /// A plain word runs to the next whitespace. A backslash keeps the character after it (so
    /// "\\" does not continue the line), except that "\<" is a plain '<' (for "\<<" that is
    /// not a heredoc) and a backslash before the end of the line continues it.
    token word() {
        std::string text;
        while (pos_ < text_.size() && !is_space(text_[pos_])) {
            const char c = text_[pos_];
            if (c != '\\') {
                text += c;
                ++pos_;
            } else if (is_continuation()) {
                break;
            } else if (at(pos_ + 1) == '<') {
                text += '<';
                pos_ += 2;
            } else if (pos_ + 1 < text_.size() && !is_space(text_[pos_ + 1])) {
                text += text_.substr(pos_, 2);
                pos_ += 2;
            } else {
                text += c;
                ++pos_;
            }
        }
        return make_token(std::move(text), false);
    }

    /// "double quotes" (\" and \\ are escapes, any other backslash stays) or `backquotes`
    /// (raw). Either may span lines.
    token quoted_string(char quote) {
        const std::size_t open_line = line_;
        ++pos_;
        std::string text;
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (c == quote) {
                ++pos_;
                return make_token(std::move(text), true);
            }
            if (quote == '"' && c == '\\' && (at(pos_ + 1) == '"' || at(pos_ + 1) == '\\')) {
                text += text_[pos_ + 1];
                pos_ += 2;
                continue;
            }
            if (c == '\n') {
                ++line_;
            }
            text += c;
            ++pos_;
        }
        throw config_error(std::string("unterminated string: no closing ") + quote, file_,
                           open_line);
    }

    /// <<MARKER, then lines up to one holding MARKER alone after its indentation; that
    /// indentation is taken off every line (Caddy's rule, so the text can be indented with the
    /// file). The newline before the closing marker is not part of the text. Tokens after the
    /// closing marker are on the heredoc's line.
    token heredoc() {
        const std::size_t open_line = line_;
        pos_ += 2;
        if (at(pos_) == '<') {
            throw config_error("too many '<' for a heredoc: write two, as in <<END", file_,
                               open_line);
        }
        std::size_t end = text_.find('\n', pos_);
        if (end == std::string_view::npos) {
            end = text_.size();
        }
        std::string_view marker = text_.substr(pos_, end - pos_);
        while (!marker.empty() && is_blank(marker.back())) {
            marker.remove_suffix(1);
        }
        if (marker.empty()) {
            throw config_error("a heredoc needs a marker after '<<', as in <<END", file_,
                               open_line);
        }
        for (char c : marker) {
            if (!is_marker_char(c)) {
                throw config_error("heredoc marker may only hold letters, digits, '-' and '_': '" +
                                       std::string(marker) + "'",
                                   file_, open_line);
            }
        }
        const std::string unclosed = "heredoc <<" + std::string(marker) +
                                     " is not closed: no line with " + std::string(marker) +
                                     " before the end of the file";
        if (end == text_.size()) {
            throw config_error(unclosed, file_, open_line);
        }
        pos_ = end + 1;
        ++line_;

        std::vector<std::pair<std::string_view, std::size_t>> lines;
        std::string_view padding;
        for (;;) {
            std::size_t line_end = text_.find('\n', pos_);
            if (line_end == std::string_view::npos) {
                line_end = text_.size();
            }
            const std::string_view line = text_.substr(pos_, line_end - pos_);
            std::size_t indent = 0;
            while (indent < line.size() && is_indent(line[indent])) {
                ++indent;
            }
            const std::string_view rest = line.substr(indent);
            if (rest.starts_with(marker) &&
                (rest.size() == marker.size() || is_space(rest[marker.size()]))) {
                padding = line.substr(0, indent);
                pos_ += indent + marker.size();
                break;
            }
            if (line_end == text_.size()) {
                throw config_error(unclosed, file_, open_line);
            }
            lines.emplace_back(line, line_);
            pos_ = line_end + 1;
            ++line_;
        }

        std::string text;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            std::string_view line = lines[i].first;
            if (line.ends_with('\r')) {
                line.remove_suffix(1);
            }
            if (line.starts_with(padding)) {
                line.remove_prefix(padding.size());
            } else if (is_all_blank(line)) {
                // Editors trim trailing spaces, which leaves blank lines less indented.
                line = {};
            } else {
                throw config_error("heredoc <<" + std::string(marker) +
                                       ": line is indented less than the closing marker",
                                   file_, lines[i].second);
            }
            if (i > 0) {
                text += '\n';
            }
            text += line;
        }
        return make_token(std::move(text), true);
    }

    std::string_view text_;
    const std::string& file_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    std::size_t logical_line_ = 1;
};

/// Replaces {$NAME} and {$NAME:default} in the whole text before it is split into tokens, as
/// Caddy does (caddyfile/parse.go, replaceEnvVars): a value may hold several words, a quoted
/// string or whole lines, as FrankenPHP's stock Caddyfile relies on ({$CADDY_GLOBAL_OPTIONS},
/// {$CADDY_SERVER_EXTRA_DIRECTIVES}). An unset variable without a default becomes "". What is
/// put in is not scanned again, so a value holding "{$X}" stays as it is.
std::string replace_env_vars(std::string_view text, const env_lookup& env) {
    std::string out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t open = text.find("{$", pos);
        const std::size_t close = open == std::string_view::npos ? open : text.find('}', open + 2);
        if (close == std::string_view::npos) {
            break;
        }
        out.append(text, pos, open - pos);
        std::string name(text.substr(open + 2, close - open - 2));
        if (name.empty()) {
            out.append(text, open, close + 1 - open);
            pos = close + 1;
            continue;
        }
        std::optional<std::string> fallback;
        if (const std::size_t colon = name.find(':'); colon != std::string::npos) {
            fallback = name.substr(colon + 1);
            name.resize(colon);
        }
        std::optional<std::string> value = env ? env(name) : std::nullopt;
        out += value ? *value : fallback.value_or("");
        pos = close + 1;
    }
    out.append(text.substr(pos));
    return out;
}

/// Replaces {env.NAME} in one token's text with the variable ("" when unset). Caddy reads
/// {env.*} per request; Spindle's configuration is read once, so it is read here. Anything else
/// in braces ({path}, {args[0]}) is left for later stages.
std::string expand_env_placeholders(const std::string& text, const env_lookup& env) {
    std::string out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t open = text.find("{env.", pos);
        const std::size_t close = open == std::string::npos ? open : text.find('}', open + 5);
        if (close == std::string::npos || close == open + 5) {
            break;
        }
        out.append(text, pos, open - pos);
        std::optional<std::string> value =
            env ? env(text.substr(open + 5, close - open - 5)) : std::nullopt;
        out += value.value_or("");
        pos = close + 1;
    }
    out.append(text, pos);
    return out;
}

}  // namespace

std::vector<token> lex(std::string_view text, const std::string& file, const env_lookup& env) {
    const std::string replaced = replace_env_vars(text, env);
    std::vector<token> tokens = lexer(replaced, file).run();
    std::vector<token> expanded;
    expanded.reserve(tokens.size());
    for (token& t : tokens) {
        if (t.text.find("{env.") != std::string::npos) {
            t.text = expand_env_placeholders(t.text, env);
            // An unset variable standing alone leaves nothing, as if it had not been written:
            // "{$EXTRA_DIRECTIVES}" on its own line is then no directive named "".
            if (t.text.empty() && !t.quoted) {
                continue;
            }
        }
        expanded.push_back(std::move(t));
    }
    return expanded;
}

}  // namespace spindle::config::caddyfile

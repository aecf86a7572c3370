#include "config/caddyfile_lexer.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config_error.hpp"

// parse(): groups the lexer's tokens into blocks and segments, expanding imports on the way,
// after Caddy's caddyconfig/caddyfile/parse.go.

namespace spindle::config::caddyfile {

namespace {

using read_function = std::function<std::string(const std::string&)>;

/// A cycle is caught on its own, but a file importing "sub/Caddyfile" at every level never
/// repeats a path (a symlink loop on disk does exactly that).
constexpr std::size_t max_import_depth = 64;

/// What imports may splice in, all together: two snippets that each import the previous one
/// twice double the count per level, so a few lines could otherwise ask for gigabytes.
constexpr std::size_t max_imported_tokens = std::size_t{1} << 18;
constexpr std::size_t max_imported_bytes = std::size_t{16} << 20;

/// A token and the logical line it is on. The id is unique per line per import: two imports of
/// the same snippet give equal file:line pairs but different ids, which is how the parser knows
/// where a line ends even when the tokens alone cannot tell.
struct line_token {
    token tok;
    std::size_t line_id = 0;
};

bool is_open_brace(const token& t) {
    return !t.quoted && t.text == "{";
}

bool is_close_brace(const token& t) {
    return !t.quoted && t.text == "}";
}

std::string place(const token& t) {
    return t.file + ":" + std::to_string(t.line);
}

[[noreturn]] void fail_at(const token& t, const std::string& message) {
    throw config_error(message, t.file, t.line);
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

/// Reads decimal digits at text[pos...], moving pos past them. nullopt when there are none;
/// a number too long to matter reads as "very large".
std::optional<std::size_t> read_index(std::string_view text, std::size_t& pos) {
    const std::size_t start = pos;
    std::size_t value = 0;
    while (pos < text.size() && is_digit(text[pos])) {
        value = pos - start < 9 ? value * 10 + static_cast<std::size_t>(text[pos] - '0')
                                : static_cast<std::size_t>(-1);
        ++pos;
    }
    if (pos == start) {
        return std::nullopt;
    }
    return value;
}

/// {args[N]} and {args.N} (Caddy's older spelling) become the Nth import argument. A
/// placeholder for an argument the import did not pass stays as written, as in Caddy.
std::string replace_args(const std::string& text, const std::vector<std::string>& args) {
    if (text.find("{args") == std::string::npos) {
        return text;
    }
    std::string out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        if (text.compare(pos, 5, "{args") == 0 && pos + 5 < text.size() &&
            (text[pos + 5] == '[' || text[pos + 5] == '.')) {
            const std::string_view close = text[pos + 5] == '[' ? "]}" : "}";
            std::size_t end = pos + 6;
            const std::optional<std::size_t> index = read_index(text, end);
            if (index && *index < args.size() && text.compare(end, close.size(), close) == 0) {
                out += args[*index];
                pos = end + close.size();
                continue;
            }
        }
        out += text[pos];
        ++pos;
    }
    return out;
}

/// The argument a token stands for when it is exactly {args[N]} or {args.N}.
std::optional<std::size_t> whole_arg(std::string_view text, std::size_t count) {
    std::string_view close;
    if (text.starts_with("{args[")) {
        close = "]}";
    } else if (text.starts_with("{args.")) {
        close = "}";
    } else {
        return std::nullopt;
    }
    std::size_t pos = 6;
    const std::optional<std::size_t> index = read_index(text, pos);
    if (!index || *index >= count || text.substr(pos) != close) {
        return std::nullopt;
    }
    return index;
}

/// A token that is exactly {args[i:j]} (either bound optional) stands for that many arguments,
/// each its own token; bounds are clamped to the arguments there are.
std::optional<std::pair<std::size_t, std::size_t>> variadic_range(std::string_view text,
                                                                  std::size_t count) {
    if (!text.starts_with("{args[") || !text.ends_with("]}")) {
        return std::nullopt;
    }
    std::size_t pos = 6;
    const std::optional<std::size_t> from = read_index(text, pos);
    if (pos >= text.size() || text[pos] != ':') {
        return std::nullopt;
    }
    ++pos;
    const std::optional<std::size_t> to = read_index(text, pos);
    if (pos != text.size() - 2) {
        return std::nullopt;
    }
    const std::size_t end = to ? std::min(*to, count) : count;
    const std::size_t begin = std::min(from.value_or(0), end);
    return std::pair{begin, end};
}

/// What an import brings in. The same one twice on the import chain is a cycle.
struct import_target {
    bool is_snippet = false;
    std::string name;  ///< snippet name, or the file's normalized path

    bool operator==(const import_target&) const = default;

    std::string describe() const { return is_snippet ? "(" + name + ")" : name; }
};

/// A run of tokens being read: the main file or one import's expansion. Sources stack up as
/// imports nest, so the stack is the import chain of the token being read.
struct source {
    std::vector<line_token> tokens;
    std::size_t next = 0;
    import_target target;
    std::string imported_at;  ///< file:line of the import; empty for the main file

    bool is_exhausted() const { return next == tokens.size(); }
};

struct snippet {
    std::vector<line_token> tokens;
    token key;  ///< "(name)" where it was defined
};

class parser {
  public:
    parser(const env_lookup& env, const read_function& read_file, const list_function& list_folder,
           std::vector<std::string>* warnings)
        : env_(env), read_file_(read_file), list_folder_(list_folder), warnings_(warnings) {}

    std::vector<server_block> run(std::string_view text, const std::string& file) {
        source main;
        main.tokens = with_line_ids(lex(text, file, env_));
        main.target = {false, std::filesystem::path(file).lexically_normal().string()};
        sources_.push_back(std::move(main));
        std::vector<server_block> blocks;
        while (peek() != nullptr) {
            parse_block(blocks);
        }
        return blocks;
    }

  private:
    /// Tokens of one lexed file: the lexer gives a logical line's tokens one line number.
    std::vector<line_token> with_line_ids(std::vector<token> tokens) {
        std::vector<line_token> out;
        out.reserve(tokens.size());
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            if (i == 0 || tokens[i].line != tokens[i - 1].line) {
                ++next_line_id_;
            }
            out.push_back({std::move(tokens[i]), next_line_id_});
        }
        ++next_line_id_;
        return out;
    }

    // ---- the token stream ----

    /// The next token as written, imports not expanded (snippet bodies are kept that way).
    const line_token* peek_raw() {
        while (!sources_.empty() && sources_.back().is_exhausted()) {
            sources_.pop_back();
        }
        if (sources_.empty()) {
            return nullptr;
        }
        return &sources_.back().tokens[sources_.back().next];
    }

    line_token take_raw() {
        peek_raw();
        source& from = sources_.back();
        line_token t = from.tokens[from.next];
        ++from.next;
        last_line_id_ = t.line_id;
        return t;
    }

    /// The next token once any import there has been replaced by what it brings in. An import
    /// starts a line, or, where a directive is expected, may follow the block's "{" on its line
    /// ("a.test { import common }"), as in Caddy.
    const line_token* peek(bool directive_expected = false) {
        for (;;) {
            const line_token* t = peek_raw();
            if (t == nullptr || t->tok.quoted || t->tok.text != "import" ||
                !(directive_expected || starts_line(*t))) {
                return t;
            }
            expand_import();
        }
    }

    line_token take() {
        peek();
        return take_raw();
    }

    bool starts_line(const line_token& t) const { return t.line_id != last_line_id_; }

    // ---- imports ----

    /// Reads "import NAME [ARGS...]" and stacks what it brings in. The importing source stays
    /// on the stack even when the import was its last line, so the chain stays whole for the
    /// cycle check.
    void expand_import() {
        const line_token import = take_raw();
        std::vector<token> words;
        source& from = sources_.back();
        while (!from.is_exhausted() && from.tokens[from.next].line_id == import.line_id &&
               !is_close_brace(from.tokens[from.next].tok)) {
            const token& t = from.tokens[from.next].tok;
            if (is_open_brace(t)) {
                fail_at(t, "unexpected '{' on an import line: import brings in whole lines");
            }
            words.push_back(t);
            ++from.next;
        }
        if (words.empty()) {
            fail_at(import.tok, "import needs a snippet name or a file path");
        }
        const token name = words.front();
        if (name.text.empty()) {
            fail_at(name, "import needs a non-empty snippet name or file path");
        }
        const std::vector<token> args(words.begin() + 1, words.end());

        import_target target;
        std::vector<line_token> brought;
        if (const auto found = snippets_.find(name.text); found != snippets_.end()) {
            target = {true, name.text};
            check_chain(import.tok, target);
            brought = found->second.tokens;
        } else if (name.text.find_first_of("*?[") != std::string::npos) {
            std::filesystem::path pattern(name.text);
            if (pattern.is_relative()) {
                pattern = std::filesystem::path(import.tok.file).parent_path() / pattern;
            }
            target = {false, pattern.lexically_normal().string()};
            check_chain(import.tok, target);
            brought = read_glob_import(import.tok, name, target.name);
        } else {
            std::filesystem::path path(name.text);
            if (path.is_relative()) {
                path = std::filesystem::path(import.tok.file).parent_path() / path;
            }
            target = {false, path.lexically_normal().string()};
            check_chain(import.tok, target);
            brought = read_import(name, target.name);
        }

        source expansion;
        expansion.target = target;
        expansion.imported_at = place(import.tok);
        expansion.tokens = instantiate(import.tok, std::move(brought), args);
        sources_.push_back(std::move(expansion));
    }

    void check_chain(const token& import, const import_target& target) const {
        for (std::size_t i = 0; i < sources_.size(); ++i) {
            if (sources_[i].target != target) {
                continue;
            }
            std::string chain;
            for (std::size_t j = i; j < sources_.size(); ++j) {
                if (!sources_[j].imported_at.empty()) {
                    chain += sources_[j].imported_at + " imports " + sources_[j].target.describe() +
                             ", ";
                }
            }
            chain += place(import) + " imports " + target.describe();
            fail_at(import, "import cycle: " + chain);
        }
        if (sources_.size() > max_import_depth) {
            fail_at(import,
                    "imports nested more than " + std::to_string(max_import_depth) + " deep");
        }
    }

    /// "import Caddyfile.d/*.caddyfile", as Caddy reads it: one wildcard (* or ?), in the file
    /// name; the matching files in name order, a name starting with '.' only when the pattern
    /// does. No match is a warning, not an error (the folder may be empty or missing, as in
    /// FrankenPHP's image).
    std::vector<line_token> read_glob_import(const token& import, const token& name,
                                             const std::string& pattern_path) {
        const std::filesystem::path pattern(pattern_path);
        const std::string file_pattern = pattern.filename().string();
        const std::string folder = pattern.parent_path().string();
        const auto wildcards = std::count(pattern_path.begin(), pattern_path.end(), '*') +
                               std::count(pattern_path.begin(), pattern_path.end(), '?');
        if (wildcards > 1 || pattern_path.find('[') != std::string::npos ||
            folder.find_first_of("*?") != std::string::npos) {
            fail_at(name, "import '" + name.text +
                              "': a glob may have one wildcard (* or ?), in the file name, as in "
                              "Caddy");
        }
        if (!list_folder_) {
            fail_at(name, "cannot import '" + name.text + "': no folder can be listed here");
        }
        std::vector<std::string> entries;
        try {
            entries = list_folder_(folder.empty() ? "." : folder);
        } catch (const config_error& error) {
            fail_at(name, "cannot import '" + name.text + "': " + error.what());
        }
        std::sort(entries.begin(), entries.end());
        std::vector<line_token> brought;
        bool matched = false;
        for (const std::string& entry : entries) {
            if (fnmatch(file_pattern.c_str(), entry.c_str(), FNM_PERIOD) != 0) {
                continue;
            }
            std::vector<line_token> file_tokens =
                read_import(name, (pattern.parent_path() / entry).string());
            brought.insert(brought.end(), std::make_move_iterator(file_tokens.begin()),
                           std::make_move_iterator(file_tokens.end()));
            matched = true;
        }
        if (!matched && warnings_ != nullptr) {
            warnings_->push_back(
                config_error("import '" + name.text + "': no file matches; nothing imported",
                             import.file, import.line)
                    .what());
        }
        return brought;
    }

    std::vector<line_token> read_import(const token& name, const std::string& path) {
        if (!read_file_) {
            fail_at(name, "cannot import '" + name.text + "': no files can be read here");
        }
        std::string text;
        try {
            text = read_file_(path);
        } catch (const config_error& error) {
            fail_at(name, "cannot import '" + name.text + "': " + error.what());
        }
        return with_line_ids(lex(text, path, env_));
    }

    /// One use of a snippet or file: fresh line ids (so consecutive uses stay apart) and the
    /// import's arguments put in. A token that is one whole argument takes over its quotes, so a
    /// quoted "{" passed in stays text rather than opening a block.
    std::vector<line_token> instantiate(const token& import, std::vector<line_token> brought,
                                        const std::vector<token>& args) {
        std::vector<std::string> arg_texts;
        for (const token& arg : args) {
            arg_texts.push_back(arg.text);
        }
        std::map<std::size_t, std::size_t> new_ids;
        std::vector<line_token> out;
        out.reserve(brought.size());
        const auto add = [&](line_token t) {
            ++imported_tokens_;
            imported_bytes_ += sizeof(line_token) + t.tok.text.size() + t.tok.file.size();
            if (imported_tokens_ > max_imported_tokens || imported_bytes_ > max_imported_bytes) {
                fail_at(import, "imports expand to more than " +
                                    std::to_string(max_imported_tokens) + " tokens or " +
                                    std::to_string(max_imported_bytes >> 20) + " MiB");
            }
            out.push_back(std::move(t));
        };
        for (line_token& t : brought) {
            const auto [id, added] = new_ids.try_emplace(t.line_id, next_line_id_);
            if (added) {
                ++next_line_id_;
            }
            t.line_id = id->second;
            if (const auto range = variadic_range(t.tok.text, args.size())) {
                for (std::size_t i = range->first; i < range->second; ++i) {
                    line_token arg = t;
                    arg.tok.text = args[i].text;
                    arg.tok.quoted = t.tok.quoted || args[i].quoted;
                    add(std::move(arg));
                }
                continue;
            }
            if (const auto index = whole_arg(t.tok.text, args.size())) {
                t.tok.text = args[*index].text;
                t.tok.quoted = t.tok.quoted || args[*index].quoted;
            } else {
                t.tok.text = replace_args(t.tok.text, arg_texts);
            }
            // "" can only be written quoted; an empty result must not read as a bare word.
            if (t.tok.text.empty()) {
                t.tok.quoted = true;
            }
            add(std::move(t));
        }
        return out;
    }

    // ---- the grammar ----

    /// One top-level block: site addresses, then a braced block, a snippet definition, or (for
    /// a file with one site) the directives up to the end without braces.
    void parse_block(std::vector<server_block>& blocks) {
        std::vector<token> keys;
        std::optional<token> last;
        bool expecting_more = false;
        for (;;) {
            const line_token* t = peek();
            if (t == nullptr) {
                if (expecting_more) {
                    fail_at(*last, "expected another site address after ','");
                }
                break;
            }
            if (is_open_brace(t->tok)) {
                if (expecting_more) {
                    fail_at(t->tok, "expected another site address after ',' but found '{'");
                }
                break;
            }
            // A trailing comma carries the addresses on to the next line.
            if (last && !expecting_more && starts_line(*t)) {
                break;
            }
            if (is_close_brace(t->tok)) {
                fail_at(t->tok, "unexpected '}' without a matching '{'");
            }
            token key = take().tok;
            last = key;
            if (key.text.ends_with('{')) {
                fail_at(key, "site address '" + key.text +
                                 "' ends with '{': put a space before the brace");
            }
            expecting_more = key.text.ends_with(',');
            if (expecting_more) {
                key.text.pop_back();
            }
            if (key.text.find(',') != std::string::npos) {
                fail_at(key, "site address '" + key.text +
                                 "' contains ',': separate addresses with \", \"");
            }
            // "a.test , b.test" leaves a lone comma: nothing to keep.
            if (!key.text.empty()) {
                keys.push_back(std::move(key));
            }
        }
        if (last && keys.empty()) {
            fail_at(*last, "empty site address");
        }

        const line_token* next = peek();
        if (keys.size() == 1 && keys[0].text.size() >= 2 && keys[0].text.starts_with('(') &&
            keys[0].text.ends_with(')')) {
            if (next == nullptr || !is_open_brace(next->tok)) {
                fail_at(keys[0],
                        "snippet " + keys[0].text + " needs a block: " + keys[0].text + " { ... }");
            }
            define_snippet(keys[0]);
            return;
        }

        server_block block;
        block.keys = std::move(keys);
        if (next != nullptr && is_open_brace(next->tok)) {
            const token brace = take().tok;
            if (block.keys.empty()) {
                if (!blocks.empty()) {
                    fail_at(brace,
                            "a block without site addresses must come first: it is the global "
                            "options block");
                }
                block.global_options = true;
            }
            parse_directives(block, &brace);
        } else if (next != nullptr) {
            parse_directives(block, nullptr);
        }
        blocks.push_back(std::move(block));
    }

    /// Keeps a snippet's tokens as written; imports in it are expanded where it is used.
    void define_snippet(const token& key) {
        const std::string name = key.text.substr(1, key.text.size() - 2);
        if (const auto found = snippets_.find(name); found != snippets_.end()) {
            fail_at(key,
                    "snippet " + key.text + " is already defined at " + place(found->second.key));
        }
        std::vector<token> open{take_raw().tok};
        std::vector<line_token> body;
        for (;;) {
            if (peek_raw() == nullptr) {
                fail_at(open.back(), "unclosed '{': missing '}'");
            }
            line_token t = take_raw();
            if (is_close_brace(t.tok)) {
                open.pop_back();
                if (open.empty()) {
                    break;
                }
            } else if (is_open_brace(t.tok)) {
                open.push_back(t.tok);
            }
            body.push_back(std::move(t));
        }
        snippets_.emplace(name, snippet{std::move(body), key});
    }

    /// Directives up to the "}" closing open_brace, or to the end for a block without braces.
    void parse_directives(server_block& block, const token* open_brace) {
        for (;;) {
            const line_token* t = peek(true);
            if (t == nullptr) {
                if (open_brace != nullptr) {
                    fail_at(*open_brace, "unclosed '{': missing '}'");
                }
                return;
            }
            if (is_close_brace(t->tok)) {
                if (open_brace == nullptr) {
                    fail_at(t->tok, "unexpected '}' without a matching '{'");
                }
                take();
                return;
            }
            if (is_open_brace(t->tok)) {
                fail_at(t->tok, "unexpected '{': a block opens at the end of its directive's line");
            }
            block.segments.push_back(parse_directive());
        }
    }

    /// One segment: the directive's line, and the block it opens, through its closing brace.
    /// A "}" on the directive's own line closes the enclosing block ("a.test { php_server }").
    segment parse_directive() {
        segment seg;
        line_token first = take();
        std::size_t line_id = first.line_id;
        seg.tokens.push_back(std::move(first.tok));
        std::vector<token> open;
        for (;;) {
            const line_token* t = peek();
            if (t == nullptr) {
                if (!open.empty()) {
                    fail_at(open.back(), "unclosed '{': missing '}'");
                }
                break;
            }
            const bool new_line = starts_line(*t);
            if (open.empty() && (new_line || is_close_brace(t->tok))) {
                break;
            }
            line_token next = take();
            if (is_open_brace(next.tok)) {
                if (new_line) {
                    fail_at(next.tok,
                            "unexpected '{': a block opens at the end of its directive's line");
                }
                open.push_back(next.tok);
            } else if (is_close_brace(next.tok)) {
                open.pop_back();
            }
            check_distinct(seg.tokens.back(), line_id, next);
            line_id = next.line_id;
            seg.tokens.push_back(std::move(next.tok));
        }
        return seg;
    }

    /// The dispenser sees only file:line, so two lines that share one (a one-line snippet
    /// imported twice in a row inside a block) would read as one line there. Refuse rather than
    /// hand over a segment that means something else than what was written.
    static void check_distinct(const token& previous, std::size_t previous_line_id,
                               const line_token& next) {
        if (next.line_id != previous_line_id && next.tok.line == previous.line &&
            next.tok.file == previous.file) {
            fail_at(next.tok, "cannot tell this line from the one before it: both come from " +
                                  place(next.tok) +
                                  " (one snippet line imported twice in a row?); write one of "
                                  "them out instead of importing it");
        }
    }

    const env_lookup& env_;
    const read_function& read_file_;
    const list_function& list_folder_;
    std::vector<std::string>* warnings_;
    std::vector<source> sources_;
    std::map<std::string, snippet> snippets_;
    std::size_t last_line_id_ = 0;
    std::size_t next_line_id_ = 0;
    std::size_t imported_tokens_ = 0;
    std::size_t imported_bytes_ = 0;
};

}  // namespace

std::vector<server_block> parse(std::string_view text, const std::string& file,
                                const env_lookup& env, const read_function& read_file,
                                const list_function& list_folder,
                                std::vector<std::string>* warnings) {
    return parser(env, read_file, list_folder, warnings).run(text, file);
}

}  // namespace spindle::config::caddyfile

#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spindle::config::caddyfile {

/// One Caddyfile token with the place it came from, so every later error can name file:line.
struct token {
    std::string text;  ///< after unquoting and placeholder expansion
    /// The file it was read from: as given to lex()/parse(); for an imported file, the import's
    /// path resolved against the importing file's directory ("conf/sites/a.caddy").
    std::string file;
    /// 1-based line of the token's first character. A token that continues a line (after a
    /// backslash-newline, as Caddy does, or after a multi-line string or heredoc, on its last
    /// line) carries the line where that line started: tokens on one line share one number.
    std::size_t line = 0;
    bool quoted = false;  ///< written "quoted", `backquoted` or as a heredoc: never a brace
};

/// Looks up an environment variable for {$VAR} / {env.VAR}; nullopt when it is unset.
using env_lookup = std::function<std::optional<std::string>(const std::string& name)>;

/// The names of the files in a folder, for glob imports.
using list_function = std::function<std::vector<std::string>(const std::string& folder)>;

/// Splits Caddyfile text into tokens, Caddy's way: whitespace separates tokens, a newline ends
/// a line (tokens remember it), '#' at the start of a token starts a comment to the end of the
/// line, "double quotes" with \" and \\ escapes, `backquotes` raw, a backslash before a newline
/// continues the line, heredocs <<MARKER ... MARKER (closing marker's indentation stripped from
/// every line). `{` and `}` are tokens of their own only when they stand alone as a word.
/// {$VAR} and {$VAR:default} are replaced in the text before it is split, as in Caddy, so a
/// value may be several words or lines ("{$EXTRA_DIRECTIVES}" alone on a line adds nothing when
/// unset); {env.VAR} is replaced in each token's text (an unquoted token left empty by that is
/// dropped). An unset variable with no default gives "". Other placeholders ({path},
/// {args[0]}) stay. A
/// heredoc's text has no trailing newline; its closing marker must stand first on its line, and
/// "\<<" is a literal "<<". Outside quotes a backslash before any other character is kept.
/// Throws config_error("file:line: ...") for an unterminated quote or heredoc, a bad heredoc
/// marker, or a heredoc line indented less than its closing marker.
std::vector<token> lex(std::string_view text, const std::string& file, const env_lookup& env);

/// One directive of a block: its tokens from the directive name to the end of its line, plus
/// its `{ ... }` block if it has one (braces included).
struct segment {
    std::vector<token> tokens;
};

/// A top-level block: its keys (site addresses, e.g. ":8080", "http://a.test:80"), or none for
/// the global options block (the first block, when it has no keys), and its directives.
struct server_block {
    std::vector<token> keys;
    std::vector<segment> segments;
    bool global_options = false;
};

/// Parses a whole Caddyfile into blocks. Handles a keys-only file with no braces (one site
/// whose directives follow), several comma- or space-separated keys, snippets `(name) { ... }`
/// and `import name|file [args...]` (with {args[N]} replaced, a token {args[i:j]} expanded to
/// those arguments, import of a relative file resolved against the importing file's directory,
/// import cycles refused). Only the first block may have no keys: it is the global options.
/// A name that is no defined snippet is read as a file; one with a wildcard in its file name
/// ("Caddyfile.d/*.caddyfile", Caddy's glob import) brings in every matching file of the folder
/// that list_folder lists, in name order, and a warning when none matches. Throws config_error with
/// file:line for unbalanced braces, an unknown snippet, an unreadable import, an import cycle,
/// or two lines of one segment that a dispenser could not tell apart (the same one-line
/// snippet imported twice in a row inside a directive's block: tokens carry no import
/// instance). read_file reads an imported file (throws config_error when it cannot);
/// list_folder gives the names of a folder's files ([] when it does not exist; without it, a
/// glob import is an error). Warnings ("file:line: ...") go to `warnings` when given.
std::vector<server_block> parse(std::string_view text, const std::string& file,
                                const env_lookup& env,
                                const std::function<std::string(const std::string&)>& read_file,
                                const list_function& list_folder = {},
                                std::vector<std::string>* warnings = nullptr);

}  // namespace spindle::config::caddyfile

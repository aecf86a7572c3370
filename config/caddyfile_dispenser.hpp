#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "config/caddyfile_lexer.hpp"
#include "config/config_error.hpp"

namespace spindle::config::caddyfile {

/// A cursor over one segment's tokens, after Caddy's caddyfile.Dispenser. Adapters walk a
/// directive with it and report mistakes at the token they are looking at.
///
///   dispenser d(seg.tokens);
///   d.next();                       // the directive name
///   while (d.next_arg()) { ... }    // arguments on the same line
///   for (std::size_t nesting = d.nesting(); d.next_block(nesting);) { d.val() ... }
class dispenser {
  public:
    explicit dispenser(std::vector<token> tokens);

    /// Moves to the next token; false at the end.
    bool next();
    /// Moves to the next token only if it is on the same line as the current one and is not an
    /// unquoted "{"; false otherwise (the cursor does not move).
    bool next_arg();
    /// Inside a block: moves to the next directive line of the block opened at `nesting`,
    /// passing over arguments not read and nested blocks not entered. On the first call, the
    /// current token's line must end in "{" (else returns false without moving); it steps into
    /// the block. Returns false after consuming the matching "}" (the cursor is on it).
    bool next_block(std::size_t nesting);
    /// How many blocks the cursor is inside now.
    std::size_t nesting() const;
    /// The remaining arguments on the current line (consumes them).
    std::vector<std::string> remaining_args();
    /// true when the current line has more arguments (does not move).
    bool next_is_arg() const;

    /// The current token's text ("" before the first next()).
    const std::string& val() const;
    /// The current token (the last one once past the end; an empty one before the first).
    const token& current() const;

    /// An error at the current token: "file:line: message" (the first token's place before the
    /// first next()).
    config_error error(const std::string& message) const;
    /// "wrong argument count or unexpected line ending after 'X'".
    config_error arg_error() const;

  private:
    std::vector<token> tokens_;
    std::ptrdiff_t cursor_ = -1;
    std::size_t nesting_ = 0;
};

}  // namespace spindle::config::caddyfile

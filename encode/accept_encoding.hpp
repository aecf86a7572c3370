#pragma once

#include <span>
#include <string_view>

#include "encode/content_coding.hpp"

namespace spindle::encode {

/// Chooses the coding of a response from the request's Accept-Encoding (RFC 9110 12.5.3) and
/// the codings the server offers, most preferred first.
///
/// Each offered coding gets the q-value of its own entry, else that of "*", else 0; the highest
/// above 0 wins, ties going to the server's order. Identity wins instead when the client rates
/// it (or "*") above every offered coding ("gzip;q=0.5, identity"). A missing or empty header,
/// malformed entries and unknown codings all lead to identity for what they cover. When the client
/// refuses identity too ("identity;q=0") and accepts nothing offered, the answer is still
/// identity: RFC 9110 allows sending it rather than a 406, as Caddy and nginx do. Pure; any
/// thread.
content_coding negotiate(std::string_view accept_encoding, std::span<const content_coding> offered);

}  // namespace spindle::encode

#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace spindle::encode {

/// Whether a response with this Content-Type is worth compressing. `patterns` are a site's
/// `match { header Content-Type ... }` list; empty means the defaults: text/*, JSON, JavaScript,
/// XML, SVG, WebAssembly, fonts that are not compressed already, and every "+json"/"+xml"
/// type. A pattern is a media type ("application/json", compared without parameters), a
/// prefix ending in '*' ("text/*") or a suffix starting with '*' ("*+json"); all
/// case-insensitive. An empty Content-Type is not compressible. Pure; any thread.
bool is_compressible_type(std::string_view content_type, const std::vector<std::string>& patterns);

}  // namespace spindle::encode

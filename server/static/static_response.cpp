#include "server/static/static_response.hpp"

#include <charconv>

#include "encode/static_variant.hpp"
#include "server/http/http_date.hpp"
#include "server/static/mime_types.hpp"

namespace spindle::server {
namespace {

void append_number(std::string& out, std::uint64_t n) {
    char digits[24];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
    out.append(digits, end);
}

}  // namespace

static_response plan_static_response(int fd, const struct stat& st, const std::string& name,
                                     std::string_view content_type, const static_request& request,
                                     const encode::encode_policy* encode,
                                     encode::compressed_cache& cache,
                                     const std::vector<head_field>& extra) {
    static_response out;
    const file_meta meta{static_cast<std::uint64_t>(st.st_size), st.st_mtime};
    const std::string etag = make_etag(meta);
    std::string last_modified = format_http_date(meta.mtime);
    if (content_type.empty()) {
        content_type = mime_type_for(name);
    }
    // Compressible files may go out compressed (encode/static_variant.hpp); Range requests
    // are always answered from the identity file.
    encode::static_choice encoding;
    if (encode != nullptr) {
        encoding =
            encode::choose_static_coding(*encode, content_type, meta.size, request.accept_encoding);
    }
    const bool is_compressed = encoding.coding != encode::content_coding::identity;

    if (request.is_safe &&
        is_not_modified(request.if_none_match, request.if_modified_since, etag, meta)) {
        out.status = 304;
        out.fields.push_back({"ETag", is_compressed ? encode::weak_etag(etag) : etag});
        out.fields.push_back({"Last-Modified", std::move(last_modified)});
        if (encoding.is_negotiable) {
            out.fields.push_back({"Vary", "Accept-Encoding"});
        }
        out.fields.insert(out.fields.end(), extra.begin(), extra.end());
        return out;
    }
    out.range = {0, meta.size};
    if (request.is_safe && !request.is_head) {
        switch (parse_range(request.range, request.if_range, etag, meta, out.range)) {
            case range_kind::full: out.range = {0, meta.size}; break;
            case range_kind::partial: out.status = 206; break;
            case range_kind::unsatisfiable: {
                out.status = 416;
                out.reason = "requested range not satisfiable";
                std::string content_range = "bytes */";
                append_number(content_range, meta.size);
                out.fields.push_back({"Content-Range", std::move(content_range)});
                return out;
            }
        }
    }
    if (is_compressed && out.status == 200) {
        out.compressed =
            encode::compressed_file(cache, *encode, encoding.coding, fd, name, meta.size,
                                    st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec);
    }
    out.length = out.compressed ? out.compressed->size() : out.range.length;
    out.fields.push_back({"Content-Type", std::string(content_type)});
    out.fields.push_back({"Last-Modified", std::move(last_modified)});
    if (out.compressed) {
        // No Accept-Ranges: ranges are served from the identity file only.
        out.fields.push_back({"ETag", encode::weak_etag(etag)});
        out.fields.push_back({"Content-Encoding", std::string(to_string(encoding.coding))});
    } else {
        out.fields.push_back({"ETag", etag});
        out.fields.push_back({"Accept-Ranges", "bytes"});
    }
    if (encoding.is_negotiable) {
        out.fields.push_back({"Vary", "Accept-Encoding"});
    }
    out.fields.insert(out.fields.end(), extra.begin(), extra.end());
    if (out.status == 206) {
        std::string content_range = "bytes ";
        append_number(content_range, out.range.first);
        content_range.push_back('-');
        append_number(content_range, out.range.first + out.range.length - 1);
        content_range.push_back('/');
        append_number(content_range, meta.size);
        out.fields.push_back({"Content-Range", std::move(content_range)});
    }
    return out;
}

std::vector<head_field> parse_field_lines(std::string_view lines) {
    std::vector<head_field> fields;
    while (!lines.empty()) {
        const std::size_t end = lines.find("\r\n");
        const std::string_view line = lines.substr(0, end);
        lines.remove_prefix(end == std::string_view::npos ? lines.size() : end + 2);
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            continue;
        }
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
            value.remove_prefix(1);
        }
        fields.push_back({std::string(line.substr(0, colon)), std::string(value)});
    }
    return fields;
}

}  // namespace spindle::server

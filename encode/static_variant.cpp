#include "encode/static_variant.hpp"

#include <unistd.h>

#include <cerrno>

#include "encode/content_encoder.hpp"

namespace spindle::encode {

static_choice choose_static_coding(const encode_policy& policy, std::string_view content_type,
                                   std::uint64_t size, std::string_view accept_encoding) {
    static_choice choice;
    // Outside these sizes every client gets the file as it is, so the response does not vary.
    if (size < policy.minimum_length() || size > max_static_compress_size ||
        !policy.is_negotiable({200, content_type, {}, {}, false})) {
        return choice;
    }
    choice.is_negotiable = true;
    choice.coding = policy.choose(accept_encoding);
    return choice;
}

std::shared_ptr<const std::string> compressed_file(compressed_cache& cache,
                                                   const encode_policy& policy,
                                                   content_coding coding, int fd,
                                                   const std::string& path, std::uint64_t size,
                                                   std::int64_t mtime_ns) {
    const compressed_cache::key key{path, size, mtime_ns, coding};
    if (std::shared_ptr<const std::string> cached = cache.find(key)) {
        return cached;
    }
    std::string content(static_cast<std::size_t>(size), '\0');
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n =
            ::pread(fd, content.data() + done, content.size() - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            // Shrunk or unreadable: the fstat size no longer holds.
            return nullptr;
        }
        done += static_cast<std::size_t>(n);
    }
    auto compressed = std::make_shared<std::string>();
    if (!encode_all(coding, policy.level(coding), content, *compressed)) {
        return nullptr;
    }
    cache.insert(key, compressed);
    return compressed;
}

}  // namespace spindle::encode

#include "acme/local_ca.hpp"

#include <stdexcept>

namespace spindle::acme {

namespace {

constexpr const char* root_certificate_key = "pki/authorities/local/root.crt";
constexpr const char* root_private_key = "pki/authorities/local/root.key";

private_key load_or_make_root(const file_storage& storage, std::string& root_pem) {
    const std::optional<std::string> pem = storage.read(root_certificate_key);
    const std::optional<std::string> key = storage.read(root_private_key);
    if (pem && key) {
        try {
            private_key loaded = private_key::from_pem(*key);
            inspect_certificate(*pem);
            root_pem = *pem;
            return loaded;
        } catch (const std::runtime_error& e) {
            throw std::runtime_error("the local CA in " + storage.path("pki/authorities/local") +
                                     " cannot be used (" + e.what() +
                                     "); move it away to make a new one");
        }
    }
    private_key made = private_key::generate();
    certificate_request request;
    request.common_name = "Spindle Local Authority - Root";
    request.is_ca = true;
    request.lifetime = std::chrono::hours(24 * 365 * 10);
    root_pem = make_certificate(request, made, nullptr);
    storage.write(root_private_key, made.to_pem(), true);
    storage.write(root_certificate_key, root_pem, false);
    return made;
}

}  // namespace

local_ca::local_ca(const file_storage& storage)
    : root_key_(load_or_make_root(storage, root_pem_)) {}

pem_pair local_ca::issue(const std::vector<std::string>& names) const {
    const private_key key = private_key::generate();
    certificate_request request;
    request.names = names;
    request.lifetime = leaf_lifetime;
    const signing_ca ca{root_pem_, root_key_};
    return {make_certificate(request, key, &ca) + root_pem_, key.to_pem()};
}

}  // namespace spindle::acme

#pragma once

#include <cstddef>

namespace spindle::sapi {

/// Zend memory manager figures of one slot thread, in bytes.
struct memory_use {
    std::size_t in_use = 0;
    std::size_t peak = 0;
};

}  // namespace spindle::sapi

#pragma once

#include <cstddef>

namespace spindle::sapi {

/// Zend memory manager figures of one slot thread, in bytes.
struct memory_use {
    std::size_t in_use = 0;
    std::size_t peak = 0;
    /// What the thread's Zend heap holds from the system as the request ended
    /// (zend_memory_usage(true): its chunks and huge blocks, cached ones included).
    std::size_t held = 0;
};

}  // namespace spindle::sapi

#include "worker/alternate_signal_stack.hpp"

#include <sys/mman.h>
#include <unistd.h>

namespace spindle::worker {

alternate_signal_stack::alternate_signal_stack() noexcept {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    mapping_size_ = page + size;
    void* mapping =
        mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) {
        return;
    }
    mapping_ = mapping;
    // Stacks grow down: the guard is the lowest page.
    mprotect(mapping_, page, PROT_NONE);
    stack_t stack{};
    stack.ss_sp = static_cast<char*>(mapping_) + page;
    stack.ss_size = size;
    installed_ = sigaltstack(&stack, &previous_) == 0;
}

alternate_signal_stack::~alternate_signal_stack() {
    if (installed_) {
        // What sigaltstack() reported: SS_DISABLE when the thread had none, else its stack (a
        // sanitizer's).
        sigaltstack(&previous_, nullptr);
    }
    if (mapping_ != nullptr) {
        munmap(mapping_, mapping_size_);
    }
}

}  // namespace spindle::worker

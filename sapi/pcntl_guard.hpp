#pragma once

namespace spindle::sapi {

/// Makes the pcntl functions that act on the whole process throw an Error on the calling
/// thread: pcntl_fork() (the child would hold one thread of a server whose other threads,
/// sockets and locks it shares), pcntl_exec() (it would replace the server), pcntl_signal() and
/// pcntl_alarm() (they would take the server's signals, or end it with SIGALRM). The rest of
/// pcntl (pcntl_sigprocmask() acts on the calling thread, the wait and status functions) stays.
/// `spindle php-cli` keeps all of it. On each slot thread, once, after ts_resource().
void refuse_process_wide_pcntl();

}  // namespace spindle::sapi

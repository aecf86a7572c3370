#pragma once

#include "config/server_config.hpp"

namespace spindle::server {

/// `processes N` with N > 1: runs this process as the supervisor of N server processes and
/// returns its exit status. Binds every site address and the admin address first (a port in
/// use fails here, exit 2), then starts each server process as this same binary with the same
/// command line (`argv`), handing it the listening sockets by descriptor
/// (server_process_role.hpp); each runs its own PHP threads. A process that dies is started
/// again at once, until emergency_restart_threshold deaths within emergency_restart_interval:
/// then the supervisor stops restarting and serves with the processes left, and exits 1 once
/// none is left. SIGTERM/SIGINT drain every process (exit 0 when each exited 0), SIGHUP and
/// SIGUSR1 reach every process. A process that exits with a status before it was ever ready
/// (its configuration cannot start) stops them all: the supervisor exits with that status.
/// Control thread; the PHP engine never starts in this process.
int run_supervisor(const config::server_config& config, char** argv);

}  // namespace spindle::server

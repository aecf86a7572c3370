#pragma once

namespace spindle::sapi {

/// Makes session_register_shutdown() a no-op inside a worker request. Symfony's session
/// storage calls it each time it is built, so once per request in a worker, and PHP 8 appends
/// a session_write_close() to the script's shutdown functions at each call; a worker runs
/// those only when its script ends, so they piled up, about 170 bytes a request until
/// memory_limit (bench/RESULTS.md, "Real applications"). The session they would close is
/// closed at each worker request's end (worker_request.cpp, close_session). Outside a worker
/// request (classic scripts, a worker's boot) PHP's own function runs. On each slot thread,
/// once, after ts_resource().
void install_session_shutdown_function();

}  // namespace spindle::sapi

<?php
// The soak mix as a worker script: the same handler, for request after request.
require __DIR__ . '/handler.php';
while (frankenphp_handle_request('soak_handle')) {
}

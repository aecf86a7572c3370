<?php
// The soak mix in classic mode: hello at /, a $_SERVER echo at /vars, an upload at /upload.
require __DIR__ . '/handler.php';
soak_handle();

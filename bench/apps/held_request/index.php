<?php
// held_request/worker.php's page in a classic script, for bench/instructions.sh -m classic.
echo 'Hello, ', $_SERVER['REQUEST_METHOD'], '!';

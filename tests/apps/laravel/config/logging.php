<?php
// Errors go to PHP's error log, which Spindle writes to its own log (stderr).

return [
    'default' => 'errorlog',
    'channels' => [
        'errorlog' => ['driver' => 'errorlog', 'level' => 'debug'],
    ],
];

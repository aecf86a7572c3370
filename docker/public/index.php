<?php
// The placeholder the Spindle image serves until an application is mounted at /app
// (its front controller at /app/public/index.php). See docs/docker.md.
header('Content-Type: text/plain; charset=utf-8');
echo "Spindle is running. Mount your application at /app, with its document root in /app/public.\n";

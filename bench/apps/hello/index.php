<?php
echo "Hello, World!";

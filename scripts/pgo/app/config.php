<?php
return [
    'name' => 'Training Shop',
    'currency' => 'EUR',
    'per_page' => 12,
    'timezone' => 'Europe/Berlin',
    'debug' => false,
];

<?php
// The skeleton's resources/lang/en/validation.php, cut to the rules the form uses.

return [
    'required' => 'The :attribute field is required.',
    'max' => ['string' => 'The :attribute must not be greater than :max characters.'],
    'string' => 'The :attribute must be a string.',
];

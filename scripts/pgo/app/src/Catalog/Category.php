<?php
declare(strict_types=1);

namespace Shop\Catalog;

enum Category: string
{
    case Books = 'books';
    case Music = 'music';
    case Games = 'games';
    case Tools = 'tools';

    public function label(): string
    {
        return match ($this) {
            self::Books => 'Books',
            self::Music => 'Music',
            self::Games => 'Games',
            self::Tools => 'Tools & garden',
        };
    }
}

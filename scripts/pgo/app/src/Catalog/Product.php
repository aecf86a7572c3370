<?php
declare(strict_types=1);

namespace Shop\Catalog;

final class Product implements \JsonSerializable
{
    public function __construct(
        public readonly int $id,
        public readonly string $name,
        public readonly Category $category,
        public readonly int $priceCents,
        public readonly array $tags,
        public readonly \DateTimeImmutable $added,
    ) {
    }

    public function price(): string
    {
        return number_format($this->priceCents / 100, 2, ',', '.') . ' €';
    }

    public function slug(): string
    {
        return trim(preg_replace('/[^a-z0-9]+/', '-', strtolower($this->name)), '-');
    }

    public function jsonSerialize(): array
    {
        return [
            'id' => $this->id,
            'name' => $this->name,
            'slug' => $this->slug(),
            'category' => $this->category->value,
            'price' => $this->priceCents / 100,
            'tags' => $this->tags,
            'added' => $this->added->format(\DATE_ATOM),
        ];
    }
}

<?php
declare(strict_types=1);

namespace Shop\Catalog;

final class ProductRepository
{
    private const WORDS = ['Red', 'Quiet', 'Modern', 'Little', 'Golden', 'Wild', 'Silent', 'Bright'];
    private const THINGS = ['Garden', 'Planet', 'River', 'Machine', 'Forest', 'City', 'Engine'];

    /** @var array<int, Product> */
    private array $products = [];

    public function __construct()
    {
        // What a database query would hand back: rows of scalars, hydrated into objects.
        $rows = [];
        $categories = Category::cases();
        for ($id = 1; $id <= 60; $id++) {
            $rows[] = [
                'id' => $id,
                'name' => self::WORDS[$id % 8] . ' ' . self::THINGS[$id % 7] . " #$id",
                'category' => $categories[$id % count($categories)]->value,
                'price' => ($id * 7919) % 10000 + 199,
                'tags' => implode(',', array_slice(['new', 'sale', 'gift', 'eco', 'limited'], $id % 3, 2)),
                'added' => sprintf('2024-%02d-%02d 10:%02d:00', $id % 12 + 1, $id % 28 + 1, $id % 60),
            ];
        }
        foreach ($rows as $row) {
            $this->products[$row['id']] = new Product(
                $row['id'],
                $row['name'],
                Category::from($row['category']),
                $row['price'],
                explode(',', $row['tags']),
                new \DateTimeImmutable($row['added'], new \DateTimeZone('UTC')),
            );
        }
    }

    public function find(int $id): ?Product
    {
        return $this->products[$id] ?? null;
    }

    /** @return list<Product> */
    public function search(?Category $category, string $sort, string $text): array
    {
        $found = array_filter(
            $this->products,
            static fn (Product $p): bool => ($category === null || $p->category === $category)
                && ($text === '' || stripos($p->name, $text) !== false),
        );
        usort($found, match ($sort) {
            'price' => static fn (Product $a, Product $b): int => $a->priceCents <=> $b->priceCents,
            'newest' => static fn (Product $a, Product $b): int => $b->added <=> $a->added,
            default => static fn (Product $a, Product $b): int => strcmp($a->name, $b->name),
        });
        return $found;
    }
}

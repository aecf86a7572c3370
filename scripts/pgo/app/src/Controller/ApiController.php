<?php
declare(strict_types=1);

namespace Shop\Controller;

use Shop\Catalog\Category;
use Shop\Catalog\Product;
use Shop\Catalog\ProductRepository;
use Shop\Http\JsonResponse;
use Shop\Http\Request;
use Shop\Routing\NotFound;

final class ApiController
{
    public function __construct(private readonly ProductRepository $products)
    {
    }

    public function products(Request $request): JsonResponse
    {
        $found = $this->products->search(Category::tryFrom($request->string('category')), 'price', '');
        $prices = array_map(static fn (Product $p): int => $p->priceCents, $found);
        return new JsonResponse([
            'count' => count($found),
            'total' => array_sum($prices) / 100,
            'cheapest' => $prices === [] ? null : min($prices) / 100,
            'items' => array_values($found),
        ]);
    }

    public function product(Request $request, string $id): JsonResponse
    {
        $product = $this->products->find((int) $id) ?? throw new NotFound("No product $id");
        // A round trip through the encoder, as an API that merges stored JSON would do.
        $data = json_decode(json_encode($product), true, 8, JSON_THROW_ON_ERROR);
        $data['links'] = ['self' => "/api/products/$id", 'html' => "/products/$id"];
        return new JsonResponse($data);
    }
}

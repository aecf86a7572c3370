<?php
declare(strict_types=1);

namespace Shop\Controller;

use Shop\Catalog\Category;
use Shop\Catalog\ProductRepository;
use Shop\Http\Request;
use Shop\Http\Response;
use Shop\Routing\NotFound;
use Shop\View\Template;

final class CatalogController
{
    public function __construct(
        private readonly ProductRepository $products,
        private readonly Template $view,
        private readonly int $perPage,
    ) {
    }

    public function list(Request $request): Response
    {
        $category = Category::tryFrom($request->string('category'));
        $found = $this->products->search($category, $request->string('sort', 'name'), $request->string('q'));
        $pages = max(1, (int) ceil(count($found) / $this->perPage));
        $page = min(max(1, $request->int('page', 1)), $pages);
        return new Response(200, $this->view->render('list', [
            'title' => $category?->label() ?? 'All products',
            'products' => array_slice($found, ($page - 1) * $this->perPage, $this->perPage),
            'page' => $page,
            'pages' => $pages,
            'categories' => Category::cases(),
        ]));
    }

    public function show(Request $request, string $id): Response
    {
        $product = $this->products->find((int) $id) ?? throw new NotFound("No product $id");
        $related = array_slice($this->products->search($product->category, 'newest', ''), 0, 4);
        return (new Response(200, $this->view->render('product', [
            'title' => $product->name,
            'product' => $product,
            'related' => array_filter($related, static fn ($p) => $p->id !== $product->id),
        ])))->withHeader('Cache-Control', 'max-age=60');
    }
}

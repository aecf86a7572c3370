<?php
declare(strict_types=1);

namespace Shop;

use Shop\Catalog\ProductRepository;
use Shop\Controller\ApiController;
use Shop\Controller\CatalogController;
use Shop\Controller\PageController;
use Shop\Http\Request;
use Shop\Http\Response;
use Shop\Routing\NotFound;
use Shop\Routing\Router;
use Shop\View\Template;

final class Kernel
{
    private Container $container;

    public function __construct(private readonly array $config)
    {
        $this->container = new Container();
        $this->container->set('config', fn () => $this->config);
        $this->container->set(ProductRepository::class, fn () => new ProductRepository());
        $this->container->set(Template::class, fn (Container $c) => new Template(
            dirname(__DIR__) . '/templates',
            ['shop' => $c->get('config')['name']],
        ));
        $this->container->set(CatalogController::class, fn (Container $c) => new CatalogController(
            $c->get(ProductRepository::class),
            $c->get(Template::class),
            $c->get('config')['per_page'],
        ));
        $this->container->set(ApiController::class, fn (Container $c) => new ApiController(
            $c->get(ProductRepository::class),
        ));
        $this->container->set(PageController::class, fn (Container $c) => new PageController(
            $c->get(Template::class),
            $c->get('config')['timezone'],
        ));
    }

    public function handle(Request $request): Response
    {
        $router = new Router();
        $router->get('/', [PageController::class, 'home']);
        $router->get('/hello', [PageController::class, 'hello']);
        $router->get('/products', [CatalogController::class, 'list']);
        $router->get('/products/{id}', [CatalogController::class, 'show']);
        $router->get('/api/products', [ApiController::class, 'products']);
        $router->get('/api/products/{id}', [ApiController::class, 'product']);

        try {
            [$handler, $params] = $router->match($request->method, $request->path);
            [$class, $method] = $handler;
            return $this->container->get($class)->$method($request, ...$params);
        } catch (NotFound $e) {
            return new Response(404, $this->container->get(Template::class)->render('error', [
                'title' => 'Not found',
                'message' => $e->getMessage(),
            ]));
        } catch (\Throwable $e) {
            return new Response(500, 'Internal error: ' . $e::class);
        }
    }
}

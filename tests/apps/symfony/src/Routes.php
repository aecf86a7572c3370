<?php

namespace App;

use Symfony\Component\Routing\Route;
use Symfony\Component\Routing\RouteCollection;

final class Routes
{
    public static function all(Controllers $c): RouteCollection
    {
        $routes = new RouteCollection();
        $add = static function (string $name, string $path, string $action, array $methods = ['GET'],
                                array $requirements = []) use ($routes, $c): void {
            $routes->add($name, new Route($path, ['_controller' => [$c, $action]], $requirements,
                                          [], '', [], $methods));
        };
        $add('home', '/', 'home');
        $add('hello', '/hello/{name}', 'hello', ['GET'], ['name' => '.+']);
        $add('post', '/posts/{id}.{_format}', 'post', ['GET'],
             ['id' => '\d+', '_format' => 'json|html']);
        $add('form', '/form', 'form', ['GET', 'POST']);
        $add('notes', '/api/notes', 'notes', ['GET', 'POST']);
        $add('counter', '/api/counter', 'counter');
        $add('visit', '/db/visit', 'visit');
        $add('logout', '/logout', 'logout', ['POST']);
        $add('whoami', '/whoami', 'whoami', ['GET', 'HEAD']);
        $add('upload', '/upload', 'upload', ['POST']);
        $add('upload_check', '/upload/check', 'uploadCheck');
        $add('stream', '/stream/{parts}', 'stream', ['GET'], ['parts' => '\d+']);
        return $routes;
    }
}

<?php

namespace App;

use Symfony\Component\EventDispatcher\EventDispatcher;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\RequestStack;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\HttpFoundation\Session\Session;
use Symfony\Component\HttpFoundation\Session\Storage\Handler\NativeFileSessionHandler;
use Symfony\Component\HttpFoundation\Session\Storage\Handler\RedisSessionHandler;
use Symfony\Component\HttpFoundation\Session\Storage\NativeSessionStorage;
use Symfony\Component\HttpKernel\Controller\ArgumentResolver;
use Symfony\Component\HttpKernel\Controller\ControllerResolver;
use Symfony\Component\HttpKernel\Event\RequestEvent;
use Symfony\Component\HttpKernel\Event\ResponseEvent;
use Symfony\Component\HttpKernel\EventListener\ErrorListener;
use Symfony\Component\HttpKernel\EventListener\RouterListener;
use Symfony\Component\HttpKernel\HttpKernel;
use Symfony\Component\HttpKernel\HttpKernelInterface;
use Symfony\Component\HttpKernel\KernelEvents;
use Symfony\Component\HttpKernel\TerminableInterface;
use Symfony\Component\Routing\Matcher\UrlMatcher;
use Symfony\Component\Routing\RequestContext;
use Symfony\Component\Security\Csrf\CsrfTokenManager;
use Symfony\Component\Security\Csrf\TokenGenerator\UriSafeTokenGenerator;
use Symfony\Component\Security\Csrf\TokenStorage\SessionTokenStorage;
use Twig\Environment;
use Twig\Loader\FilesystemLoader;

/**
 * The application, built once per worker thread: HttpKernel with the router, the error
 * listener, Twig, sessions in files (or in Redis when APP_REDIS_PORT is set), CSRF tokens kept
 * in the session, and a PostgreSQL connection when APP_DATABASE_DSN is set. What it holds
 * (services, the Redis and database connections, $handled) lives as long as the worker; what
 * belongs to one request (the Request, its Session) is made per request and dropped by
 * terminate().
 */
final class AppKernel implements HttpKernelInterface, TerminableInterface
{
    public readonly string $bootId;
    public int $handled = 0;
    private HttpKernel $kernel;
    private RequestStack $requestStack;

    public function __construct(string $sessionDir, ?int $redisPort = null,
                                ?string $databaseDsn = null)
    {
        $this->bootId = bin2hex(random_bytes(8));
        $this->requestStack = new RequestStack();
        $twig = new Environment(new FilesystemLoader(dirname(__DIR__) . '/templates'), [
            'autoescape' => 'html',
            'strict_variables' => true,
            // Compiled templates kept in APP_TWIG_CACHE, as a production app keeps them in
            // var/cache; a classic request would compile every template again otherwise.
            'cache' => getenv('APP_TWIG_CACHE') ?: false,
        ]);
        $csrf = new CsrfTokenManager(new UriSafeTokenGenerator(),
                                     new SessionTokenStorage($this->requestStack));
        $database = $databaseDsn === null ? null : new Database($databaseDsn);
        $controllers = new Controllers($this, $twig, $csrf, $database);
        $sessionHandler = $redisPort === null ? new NativeFileSessionHandler($sessionDir)
                                              : new RedisSessionHandler(self::redis($redisPort));

        $context = new RequestContext();
        $dispatcher = new EventDispatcher();
        $dispatcher->addSubscriber(new RouterListener(new UrlMatcher(Routes::all($controllers),
            $context), $this->requestStack, $context, null, null, false));
        $dispatcher->addSubscriber(new ErrorListener([$controllers, 'error']));
        // A session per request, in PHP's native session (session_start() and its cookie),
        // through the worker's one session handler; the kept database connection checked.
        $dispatcher->addListener(KernelEvents::REQUEST, static function (RequestEvent $event)
            use ($sessionHandler, $database): void {
            if ($event->isMainRequest()) {
                $event->getRequest()->setSession(new Session(new NativeSessionStorage(
                    ['cookie_httponly' => true, 'cookie_samesite' => 'lax'], $sessionHandler)));
                $database?->checkConnection();
            }
        }, 128);
        $dispatcher->addListener(KernelEvents::RESPONSE, static function (ResponseEvent $event):
            void {
            $request = $event->getRequest();
            if ($event->isMainRequest() && $request->hasSession()
                && $request->getSession()->isStarted()) {
                $request->getSession()->save();
                $event->getResponse()->setPrivate();
            }
        }, -1000);
        $this->kernel = new HttpKernel($dispatcher, new ControllerResolver(), $this->requestStack,
                                       new ArgumentResolver());
    }

    /** The worker's Redis connection, opened at boot and kept (as Symfony's RedisAdapter does). */
    private static function redis(int $port): \Redis
    {
        $redis = new \Redis();
        $redis->connect('127.0.0.1', $port, 5.0);
        return $redis;
    }

    public function handle(Request $request, int $type = self::MAIN_REQUEST, bool $catch = true):
        Response {
        if ($type === self::MAIN_REQUEST) {
            ++$this->handled;
        }
        return $this->kernel->handle($request, $type, $catch);
    }

    public function terminate(Request $request, Response $response): void
    {
        $this->kernel->terminate($request, $response);
    }
}

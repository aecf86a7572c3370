<?php

namespace App;

use Symfony\Component\EventDispatcher\EventDispatcher;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\RequestStack;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\HttpFoundation\Session\Session;
use Symfony\Component\HttpFoundation\Session\Storage\Handler\NativeFileSessionHandler;
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
 * listener, Twig, sessions in files and CSRF tokens kept in the session. What it holds
 * (services, $handled) lives as long as the worker; what belongs to one request (the Request,
 * its Session) is made per request and dropped by terminate().
 */
final class AppKernel implements HttpKernelInterface, TerminableInterface
{
    public readonly string $bootId;
    public int $handled = 0;
    private HttpKernel $kernel;
    private RequestStack $requestStack;

    public function __construct(string $sessionDir)
    {
        $this->bootId = bin2hex(random_bytes(8));
        $this->requestStack = new RequestStack();
        $twig = new Environment(new FilesystemLoader(dirname(__DIR__) . '/templates'), [
            'autoescape' => 'html',
            'strict_variables' => true,
        ]);
        $csrf = new CsrfTokenManager(new UriSafeTokenGenerator(),
                                     new SessionTokenStorage($this->requestStack));
        $controllers = new Controllers($this, $twig, $csrf);

        $context = new RequestContext();
        $dispatcher = new EventDispatcher();
        $dispatcher->addSubscriber(new RouterListener(new UrlMatcher(Routes::all($controllers),
            $context), $this->requestStack, $context, null, null, false));
        $dispatcher->addSubscriber(new ErrorListener([$controllers, 'error']));
        // A session per request, in PHP's native session (session_start() and its cookie).
        $dispatcher->addListener(KernelEvents::REQUEST, static function (RequestEvent $event)
            use ($sessionDir): void {
            if ($event->isMainRequest()) {
                $event->getRequest()->setSession(new Session(new NativeSessionStorage(
                    ['cookie_httponly' => true, 'cookie_samesite' => 'lax'],
                    new NativeFileSessionHandler($sessionDir))));
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

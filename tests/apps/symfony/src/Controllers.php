<?php

namespace App;

use Symfony\Component\ErrorHandler\Exception\FlattenException;
use Symfony\Component\HttpFoundation\JsonResponse;
use Symfony\Component\HttpFoundation\RedirectResponse;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\HttpFoundation\StreamedResponse;
use Symfony\Component\Security\Csrf\CsrfToken;
use Symfony\Component\Security\Csrf\CsrfTokenManagerInterface;
use Twig\Environment;

final class Controllers
{
    public function __construct(
        private AppKernel $kernel,
        private Environment $twig,
        private CsrfTokenManagerInterface $csrf,
        private ?Database $database,
    ) {
    }

    public function home(): Response
    {
        return new Response($this->twig->render('home.html.twig', ['handled' => $this->kernel->handled]));
    }

    public function hello(string $name, Request $request): Response
    {
        return new Response($this->twig->render('hello.html.twig', [
            'name' => $name,
            'greeting' => $request->query->get('greeting', 'Hello'),
        ]));
    }

    public function post(int $id, string $_format): Response
    {
        $post = ['id' => $id, 'title' => "Post $id", 'tags' => ['spindle', 'worker']];
        if ($_format === 'json') {
            return new JsonResponse($post);
        }
        return new Response($this->twig->render('post.html.twig', ['post' => $post]));
    }

    /** A form guarded by a CSRF token: POST -> 303 to GET, with a flash message shown once. */
    public function form(Request $request): Response
    {
        $session = $request->getSession();
        if ($request->isMethod('POST')) {
            $token = new CsrfToken('note', (string) $request->request->get('_token'));
            if (!$this->csrf->isTokenValid($token)) {
                return new Response($this->twig->render('form.html.twig', [
                    'error' => 'Invalid CSRF token.', 'token' => $this->csrf->getToken('note')->getValue(),
                    'notes' => $session->get('notes', []), 'flashes' => [],
                ]), 403);
            }
            $note = trim((string) $request->request->get('note'));
            $session->set('notes', [...$session->get('notes', []), $note]);
            $session->getFlashBag()->add('notice', "Saved: $note");
            return new RedirectResponse('/form', 303);
        }
        return new Response($this->twig->render('form.html.twig', [
            'error' => null,
            'token' => $this->csrf->getToken('note')->getValue(),
            'notes' => $session->get('notes', []),
            'flashes' => $session->getFlashBag()->get('notice'),
        ]));
    }

    /** The notes of this client's session, as JSON; POST {"note": "..."} adds one. */
    public function notes(Request $request): JsonResponse
    {
        $session = $request->getSession();
        if ($request->isMethod('POST')) {
            $body = json_decode($request->getContent(), true, 8, JSON_THROW_ON_ERROR);
            $session->set('notes', [...$session->get('notes', []), (string) $body['note']]);
            return new JsonResponse(['notes' => $session->get('notes')], 201);
        }
        return new JsonResponse([
            'notes' => $session->get('notes', []),
            'session_id_matches_cookie' => $request->cookies->get($session->getName()) === $session->getId(),
        ]);
    }

    /**
     * A row written through the worker's kept PostgreSQL connection: which server process
     * (connection) served it and whether this request had to reconnect first. ?setup=1 makes
     * the table.
     */
    public function visit(Request $request): JsonResponse
    {
        if ($this->database === null) {
            return new JsonResponse(['error' => 'APP_DATABASE_DSN is not set'], 500);
        }
        $pdo = $this->database->pdo();
        if ($request->query->has('setup')) {
            $pdo->exec('CREATE TABLE IF NOT EXISTS visits (id serial PRIMARY KEY, tag text NOT NULL)');
        }
        $insert = $pdo->prepare('INSERT INTO visits (tag) VALUES (?) RETURNING id, tag, pg_backend_pid() AS pid');
        $insert->execute([(string) $request->query->get('tag')]);
        return new JsonResponse([...$insert->fetch(), 'reconnected' => $this->database->reconnected()]);
    }

    /** Application state kept by the worker between requests. */
    public function counter(): JsonResponse
    {
        return new JsonResponse(['boot' => $this->kernel->bootId, 'handled' => $this->kernel->handled]);
    }

    public function logout(Request $request): RedirectResponse
    {
        // invalidate() regenerates the id of a started session only, as a firewall's would be.
        $session = $request->getSession();
        $session->start();
        $session->invalidate();
        return new RedirectResponse('/', 303);
    }

    /** How the request looks to Symfony: built from $_SERVER by Request::createFromGlobals(). */
    public function whoami(Request $request): JsonResponse
    {
        return new JsonResponse([
            'uri' => $request->getUri(),
            'base_url' => $request->getBaseUrl(),
            'path_info' => $request->getPathInfo(),
            'scheme_and_host' => $request->getSchemeAndHttpHost(),
            'port' => $request->getPort(),
            'client_ip' => $request->getClientIp(),
            'secure' => $request->isSecure(),
            'method' => $request->getMethod(),
            'query' => $request->query->all(),
        ]);
    }

    /** A multipart upload, moved out of PHP's temporary file with move_uploaded_file(). */
    public function upload(Request $request): JsonResponse
    {
        $file = $request->files->get('file');
        if ($file === null || !$file->isValid()) {
            return new JsonResponse(['error' => $file?->getErrorMessage() ?? 'no file'], 400);
        }
        $temporary = $file->getPathname();
        $content = file_get_contents($temporary);
        $dir = (getenv('APP_SESSION_DIR') ?: sys_get_temp_dir()) . '/uploads';
        $moved = $file->move($dir, sha1($content) . '.bin');
        return new JsonResponse([
            'client_name' => $file->getClientOriginalName(),
            'size' => strlen($content),
            'sha1' => sha1($content),
            'stored' => $moved->getPathname(),
            'temporary' => $temporary,
            'note' => $request->request->get('note'),
        ], 201);
    }

    /** Whether a path is an uploaded file of this request, and whether it still exists. */
    public function uploadCheck(Request $request): JsonResponse
    {
        $path = (string) $request->query->get('path');
        return new JsonResponse(['uploaded' => is_uploaded_file($path), 'exists' => file_exists($path)]);
    }

    /** A response sent in parts as they are made (StreamedResponse, flush()). */
    public function stream(int $parts): StreamedResponse
    {
        return new StreamedResponse(static function () use ($parts): void {
            for ($i = 1; $i <= $parts; ++$i) {
                echo "part $i\n";
                flush();
            }
        }, 200, ['Content-Type' => 'text/plain; charset=UTF-8']);
    }

    /** The error page of every exception (404, 405, 500), rendered by the error listener. */
    public function error(FlattenException $exception, Request $request): Response
    {
        $status = $exception->getStatusCode();
        $content = $this->twig->render('error.html.twig', [
            'status' => $status,
            'text' => $exception->getStatusText(),
            'path' => $request->getPathInfo(),
        ]);
        return new Response($content, $status, $exception->getHeaders());
    }
}

/* Training run for the profile-guided build of libphp (scripts/build-php.sh).
 *
 *   train PHP_INI ROUNDS SCRIPT[?QUERY]...
 *
 * Runs each SCRIPT as a request of its own, ROUNDS times over, through the embed SAPI: request
 * start-up, the script (from OPcache after the first round), request shutdown, which is the
 * cycle Spindle runs for every classic request. QUERY becomes $_GET. Output is discarded by the
 * caller. Exits non-zero when a script fails or answers with a status of 500 or more. One thread:
 * the profile counts what each request executes, not how threads share it.
 */
#include <sapi/embed/php_embed.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(char* target) {
    /* The request's strings live in argv: they must outlive the request, and PHP's per-request
     * allocator is reset when it ends. */
    char path[4096];
    char* query = strchr(target, '?');
    size_t length = query ? (size_t)(query - target) : strlen(target);
    if (length >= sizeof(path)) {
        return -1;
    }
    memcpy(path, target, length);
    path[length] = '\0';

    SG(request_info).request_method = "GET";
    SG(request_info).query_string = query ? query + 1 : NULL;
    SG(request_info).request_uri = target;
    SG(request_info).path_translated = path;
    if (php_request_startup() == FAILURE) {
        return -1;
    }
    zend_file_handle file;
    zend_stream_init_filename(&file, path);
    bool ok = php_execute_script(&file);
    zend_destroy_file_handle(&file);
    /* A server error means the profile is one of an error path: the training app answers 404
     * to one route on purpose, never 500. */
    int status = SG(sapi_headers).http_response_code;
    php_request_shutdown(NULL);
    return ok && status < 500 ? 0 : -1;
}

int main(int argc, char** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s PHP_INI ROUNDS SCRIPT[?QUERY]...\n", argv[0]);
        return 2;
    }
    /* OPcache serves only the SAPIs on its allow-list, which build-php.sh extends with
     * Spindle's name: without OPcache the profile would be one of compiling, not running. */
    php_embed_module.name = "spindle";
    php_embed_module.php_ini_path_override = argv[1];
    int rounds = atoi(argv[2]);
    if (php_embed_init(0, NULL) == FAILURE) {
        return 1;
    }
    /* php_embed_init() opened a request of its own; each script gets a fresh one. */
    php_request_shutdown(NULL);
    int failed = 0;
    for (int round = 0; round < rounds; round++) {
        for (int i = 3; i < argc; i++) {
            if (run(argv[i]) != 0) {
                fprintf(stderr, "train: %s failed\n", argv[i]);
                failed = 1;
            }
        }
    }
    php_request_startup();
    php_embed_shutdown();
    return failed;
}

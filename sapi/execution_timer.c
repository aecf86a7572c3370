// PHP's execution timer, created once per slot thread instead of once per request.
//
// PHP 8.2 built with --enable-zend-max-execution-timers gives each thread a POSIX timer, but
// creates it at every request start-up (init_executor -> zend_max_execution_timer_init) and
// deletes it at every request shutdown: getpid, gettid, timer_create, getpid, rt_sigaction,
// then getpid and timer_delete, seven system calls a classic request pays for nothing, since
// the thread is the same and so is its timer. FrankenPHP's author proposed reusing the timer
// upstream (php-src#12539, not merged); Spindle cannot patch its PHP build without rebuilding
// every cached build (13 minutes or more on 2 cores), so it replaces the one exported function
// instead. libphp calls zend_max_execution_timer_init() through its PLT (scripts/build-php.sh
// binds libphp's other calls inside the library, this one excepted), so the definition
// below, exported by the spindle executable (server/CMakeLists.txt), is the one that runs.
// Without the export (unit tests, the fuzz target) PHP's own runs, and nothing changes but the
// cost.
//
// C, not C++: the Zend header declares the function without C linkage for C++ translation
// units.
#include <php.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sapi/execution_timer.h"

#ifdef ZEND_MAX_EXECUTION_TIMERS

// EG(pid) of a thread whose timer this file created. Not a process id, so PHP's
// zend_max_execution_timer_shutdown(), which deletes only a timer whose EG(pid) is getpid(),
// leaves it to the thread's next request; not zero, so zend_max_execution_timer_settime() still
// arms it.
#define SPINDLE_TIMER_KEPT ((pid_t)-1)

// A forked child (pcntl_fork() in `spindle php-cli`) inherits no timer: the thread that forked
// must create its own again, which pcntl_fork() asks for by calling the function below.
static void forget_timer_in_child(void) {
    if (EG(pid) == SPINDLE_TIMER_KEPT) {
        EG(pid) = 0;
    }
}

static void watch_forks(void) {
    pthread_atfork(NULL, NULL, forget_timer_in_child);
}

ZEND_API void zend_max_execution_timer_init(void) {
    if (EG(pid) == SPINDLE_TIMER_KEPT) {
        return;
    }
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_forks);
    if (EG(pid) != 0 && EG(pid) == getpid()) {
        // Created by PHP's own function before this one was in place: keep that timer.
        EG(pid) = SPINDLE_TIMER_KEPT;
        return;
    }
    // As PHP creates it: wall-clock time, SIGRTMIN to this thread, identified by the address
    // its signal handler compares.
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_value.sival_ptr = &EG(max_execution_timer_timer);
    sev.sigev_signo = SIGRTMIN;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_BOOTTIME, &sev, &EG(max_execution_timer_timer)) != 0) {
        zend_strerror_noreturn(E_ERROR, errno, "Could not create timer");
    }
    EG(pid) = SPINDLE_TIMER_KEPT;
    sigaction(sev.sigev_signo, NULL, &EG(oldact));
}

void spindle_delete_execution_timer(void) {
    if (EG(pid) == SPINDLE_TIMER_KEPT) {
        timer_delete(EG(max_execution_timer_timer));
        EG(pid) = 0;
    }
}

#else

void spindle_delete_execution_timer(void) {}

#endif

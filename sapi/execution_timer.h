#pragma once

// Spindle's zend_max_execution_timer_init() (execution_timer.c) keeps each slot thread's PHP
// execution timer from one request to the next; this deletes it as the thread ends. Slot
// thread, before ts_free_thread().
#ifdef __cplusplus
extern "C" {
#endif

void spindle_delete_execution_timer(void);

#ifdef __cplusplus
}
#endif

#pragma once

// A classic script's working directory (script_directory.c). Slot thread, inside a request.
#ifdef __cplusplus
extern "C" {
#endif

/// Makes the script's directory the request's working directory until the request ends, and
/// keeps php_execute_script() from entering it again and leaving it at the script's end.
void spindle_enter_script_directory(const char* script);

/// Lets php_execute_script() manage the working directory again (a worker's boot does).
void spindle_leave_script_directory(void);

#ifdef __cplusplus
}
#endif

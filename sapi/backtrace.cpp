// PHP backtraces of running requests, taken by the request's own slot thread: the frames are
// read from its own EG(current_execute_data) chain, never from another thread's stack.

#include "sapi/backtrace.hpp"

#include <nlohmann/json.hpp>

#include "sapi/php.hpp"

namespace spindle::sapi {
namespace {

// The name debug_backtrace() gives a frame: "Class->method" / "Class::method", a function's
// own name, or for code outside any function what ran it: the script ("{main}"), or the
// include/require/eval its caller is executing.
std::string frame_function(const zend_execute_data* ex) {
    const zend_function* fn = ex->func;
    if (fn->common.function_name != nullptr) {
        std::string name;
        if (fn->common.scope != nullptr) {
            name.append(ZSTR_VAL(fn->common.scope->name), ZSTR_LEN(fn->common.scope->name));
            name.append(Z_TYPE(ex->This) == IS_OBJECT ? "->" : "::");
        }
        name.append(ZSTR_VAL(fn->common.function_name), ZSTR_LEN(fn->common.function_name));
        return name;
    }
    const zend_execute_data* caller = ex->prev_execute_data;
    while (caller != nullptr && (caller->func == nullptr || !ZEND_USER_CODE(caller->func->type))) {
        caller = caller->prev_execute_data;
    }
    if (caller == nullptr || caller->opline == nullptr ||
        caller->opline->opcode != ZEND_INCLUDE_OR_EVAL) {
        return "{main}";
    }
    switch (caller->opline->extended_value) {
        case ZEND_EVAL: return "eval";
        case ZEND_INCLUDE: return "include";
        case ZEND_INCLUDE_ONCE: return "include_once";
        case ZEND_REQUIRE: return "require";
        case ZEND_REQUIRE_ONCE: return "require_once";
        default: return "{main}";
    }
}

// The line a user frame executes now; as zend_get_executed_lineno() finds it for the current
// frame, where a thrown exception leaves the line it came from.
std::uint32_t frame_line(const zend_execute_data* ex) {
    const zend_op* opline = ex->opline;
    if (opline == nullptr) {
        return 0;
    }
    if (opline->opcode == ZEND_HANDLE_EXCEPTION && EG(opline_before_exception) != nullptr) {
        opline = EG(opline_before_exception);
    }
    return opline->lineno;
}

}  // namespace

std::vector<backtrace_frame> capture_backtrace() {
    std::vector<backtrace_frame> frames;
    std::size_t left_out = 0;
    for (const zend_execute_data* ex = EG(current_execute_data); ex != nullptr;
         ex = ex->prev_execute_data) {
        if (ex->func == nullptr) {
            continue;
        }
        if (frames.size() == max_backtrace_frames - 1) {
            ++left_out;
            continue;
        }
        backtrace_frame frame;
        frame.function = frame_function(ex);
        if (ZEND_USER_CODE(ex->func->type)) {
            const zend_string* file = ex->func->op_array.filename;
            frame.file.assign(ZSTR_VAL(file), ZSTR_LEN(file));
            frame.line = frame_line(ex);
        }
        frames.push_back(std::move(frame));
    }
    if (left_out > 0) {
        frames.push_back({"(" + std::to_string(left_out) + " outer frames left out)", "", 0});
    }
    return frames;
}

std::string backtrace_fields(const backtrace_report& report) {
    nlohmann::json frames = nlohmann::json::array();
    for (const backtrace_frame& frame : report.frames) {
        nlohmann::json entry = {{"function", frame.function}};
        if (!frame.file.empty()) {
            entry["file"] = frame.file;
            entry["line"] = frame.line;
        }
        frames.push_back(std::move(entry));
    }
    const nlohmann::json fields = {
        {"slot", report.slot},
        {"request_id", report.request_id},
        {"method", report.method},
        {"uri", report.uri},
        {"host", report.host},
        {"running_seconds",
         std::chrono::duration_cast<std::chrono::microseconds>(report.running).count() / 1e6},
        {"backtrace", std::move(frames)},
    };
    // nlohmann orders an object's members by name; dump() then strip the braces.
    const std::string text = fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return text.substr(1, text.size() - 2);
}

}  // namespace spindle::sapi

/*
 * User tools written in Lua 5.4 (lib/tools/luatool.c): loading one file in a
 * sandbox, and calling its trigger and analyze. Internal to lib/tools.
 */
#ifndef KP_TOOLS_LUATOOL_H
#define KP_TOOLS_LUATOOL_H

#include "kernelpro/buf.h"
#include "kernelpro/tools.h"

struct kp_luatool;

/*
 * What one file may use. Each call (loading the file, trigger, analyze) gets `instr` steps (VM
 * instructions plus the work library functions do in C, such as pattern matching) and `time_ms`
 * of wall time; the state as a whole `mem` bytes. 0: the KP_LUA_* default.
 */
struct kp_luatool_limits {
	long instr;
	size_t mem;
	long time_ms;
};

/*
 * Loads and validates the tool defined by the Lua file `path` (its chunk
 * returns the tool table). Each file gets its own Lua state with only the
 * base (minus file loading), string, table, math and utf8 libraries, a memory
 * cap, an instruction limit and a time limit; `lim` may be NULL (defaults).
 * On failure *out is NULL and err says "path:line: message".
 */
int kp_luatool_load(struct kp_luatool **out, const char *path, const struct kp_luatool_limits *lim,
		    struct kp_error *err);
/* The same from text in memory; `path` names it in messages (the fuzz target uses this). */
int kp_luatool_load_mem(struct kp_luatool **out, const char *path, const char *text, size_t len,
			const struct kp_luatool_limits *lim, struct kp_error *err);
void kp_luatool_free(struct kp_luatool *lt);

/*
 * The tool's description. `classes` is 0 when the file did not say
 * (the toolset then applies the replaced built-in's classes, or all).
 */
const struct kp_tool_info *kp_luatool_info(const struct kp_luatool *lt);

/*
 * Calls trigger(m, t) and, when it is true, analyze(m, t). `t` holds the
 * threshold values in the order of the info's thresholds. Findings go to
 * `out` (tool id left unset). Returns the status; `msg` receives what is
 * missing (KP_TOOL_MISSING) or the error with its traceback (KP_TOOL_FAILED).
 */
enum kp_tool_status kp_luatool_run(struct kp_luatool *lt, const struct kp_tool_input *in, const double *t,
				   struct kp_findings *out, struct kp_buf *msg);

#endif

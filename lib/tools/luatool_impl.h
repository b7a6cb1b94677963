/* Internal to lib/tools/luatool*.c: one Lua user tool's state, shared by the loader, the view and the library. */
#ifndef KP_LUATOOL_IMPL_H
#define KP_LUATOOL_IMPL_H

#include <lua.h>

#include "tools/luatool.h"

#define SOURCE_CAP ((size_t)1 << 20)
/*
 * The count hook runs every HOOK_STEP VM instructions. Small, because one instruction can take
 * milliseconds (comparing two 30 MB strings) and the time limit is checked only in the hook.
 */
#define HOOK_STEP 100
#define STR_CAP 2000
#define MAX_FINDINGS 16
#define MAX_EVIDENCE 16
#define MAX_RECS 8
#define MAX_METRICS 256
#define MAX_THRESHOLDS 64
#define MISSING_KEY "kp_missing_metric"

struct kp_luatool {
	lua_State *L;
	struct kp_tool_info info;
	char *path, *name, *description, *details;
	struct kp_tool_metric *metrics;
	struct kp_threshold *thresholds;
	int ref_trigger, ref_analyze;
	struct kp_luatool_limits lim;
	size_t mem_used;
	/* During a call (loading the file counts as one). */
	long count;      /* VM instructions and library steps charged so far */
	double deadline; /* kp_now() after which the call stops; 0 outside calls */
	int aborted;     /* a limit was hit: the call ends, whatever pcall or xpcall the tool tries */
	char abort_msg[320];
	const struct kp_tool_input *in;
	const double *t;
	struct kp_findings *out;
	const char *phase; /* "loading", "trigger", "analyze" */
};

/* The class names a tool may list, indexed by enum kp_bound. */
extern const char *const kp__luatool_class_names[5];

/* The tool a Lua state belongs to (kept in the state's extra space). */
struct kp_luatool *kp__luatool_self(lua_State *L);

/*
 * Charges `steps` units of work done inside a C function to the running call and raises the
 * call's final error when the instruction or time limit is past. Every library function that
 * loops in C over data the tool controls calls this (the count hook does not run inside C).
 */
void kp__luatool_charge(lua_State *L, long steps);

/* Pushes the read-only view of one kernel (the `m` argument) and the thresholds table (`t`). */
void kp__luatool_push_m(lua_State *L, const struct kp_tool_input *in);
void kp__luatool_push_t(lua_State *L, const struct kp_luatool *lt, const double *t);

/*
 * Replaces, in the opened libraries, every function that could run unbounded in C or escape
 * the limits: string.find/match/gmatch/gsub (a pattern matcher that charges its steps),
 * string.rep, table.insert/remove/move/sort, pcall, xpcall and setmetatable (no __gc).
 * Runs inside a protected call (luatool_lib.c).
 */
void kp__luatool_bound_libs(lua_State *L);
/*
 * Sets string.find/match/gmatch/gsub to the bounded pattern functions (luatool_match.c). The
 * state's extra space must point at its kp_luatool (their steps are charged to it).
 */
void kp__luatool_open_patterns(lua_State *L);
int kp__luatool_find(lua_State *L);
int kp__luatool_match(lua_State *L);
int kp__luatool_gmatch(lua_State *L);
int kp__luatool_gsub(lua_State *L);

#endif

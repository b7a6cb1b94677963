/* Internal to lib/tools/luatool*.c: the state of one Lua user tool, shared by the loader and the view. */
#ifndef KP_LUATOOL_IMPL_H
#define KP_LUATOOL_IMPL_H

#include <lua.h>

#include "tools/luatool.h"

#define SOURCE_CAP ((size_t)1 << 20)
#define HOOK_STEP 1000
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
	long instr_limit, count;
	size_t mem_limit, mem_used;
	/* During a call. */
	const struct kp_tool_input *in;
	const double *t;
	struct kp_findings *out;
	const char *phase; /* "loading", "trigger", "analyze" */
};

/* The class names a tool may list, indexed by enum kp_bound. */
extern const char *const kp__luatool_class_names[5];

/* The tool a Lua state belongs to (kept in the state's extra space). */
struct kp_luatool *kp__luatool_self(lua_State *L);

/* Pushes the read-only view of one kernel (the `m` argument) and the thresholds table (`t`). */
void kp__luatool_push_m(lua_State *L, const struct kp_tool_input *in);
void kp__luatool_push_t(lua_State *L, const struct kp_luatool *lt, const double *t);

#endif

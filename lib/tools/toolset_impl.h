/* The inside of a kp_toolset, shared by toolset.c, thresholds.c and run.c. Internal to lib/tools. */
#ifndef KP_TOOLS_TOOLSET_IMPL_H
#define KP_TOOLS_TOOLSET_IMPL_H

#include "kernelpro/tools.h"
#include "tools/luatool.h"

struct kp_toolset_entry {
	struct kp_tool_info info; /* info.values points to `values` */
	double *values;           /* thresholds in effect, owned */
	struct kp_luatool *lua;   /* NULL for a built-in */
};

struct kp_toolset {
	struct kp_toolset_entry *v;
	size_t n, alloc;
	struct kp_strvec problems;
	double min_gain; /* < 0: keep every finding */
};

struct kp_toolset_entry *kp_toolset_entry(const struct kp_toolset *ts, const char *name);

#endif

/* Fuzz target: a suite's list file (kp_bench_list_parse_lines, the parse without the file system);
 * every entry parsed has an absolute path and settings within their documented ranges. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_bench_list l;
	struct kp_error err = KP_ERROR_INIT;

	kp_bench_list_init(&l);
	if (kp_bench_list_parse_lines(&l, (const char *)data, size, "/base", "fuzz", &err) == 0) {
		for (size_t i = 0; i < l.n; i++) {
			const struct kp_bench_task_settings *s = &l.v[i].set;
			if (l.v[i].path[0] != '/' || s->budget.evals < 0 || s->budget.tokens < 0 ||
			    ((s->which & KP_RUN_LIMIT_WALL) && !(s->budget.wall_s > 0)) ||
			    ((s->which & KP_RUN_LIMIT_COST) &&
			     !(s->budget.cost > 0 && isfinite(s->budget.cost))) ||
			    (s->name && (!*s->name || s->name[0] == '.' || strchr(s->name, '/'))))
				abort();
		}
	} else if (!err.msg[0]) {
		abort(); /* a refusal always says why */
	}
	kp_bench_list_release(&l);
	return 0;
}

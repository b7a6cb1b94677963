/* kernelpro runs: the runs under the runs directory, one line each (task, status, evaluations, best speedup). */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "kernelpro/json.h"
#include "runs.h"

static const struct kp_opt runs_opts[] = {
	KP_RUNS_DIR_OPT,
	KP_OPT_TABLE_END,
};

static void print_line(struct kp_cli *cli, const json_t *r)
{
	const json_t *best = json_object_get(r, "best");
	if (kp_json_str(r, "error", NULL)) {
		fprintf(cli->out, "%-36s (unreadable: %s)\n", kp_json_str(r, "run", "?"),
			kp_json_str(r, "error", ""));
		return;
	}
	fprintf(cli->out, "%-36s %-18s %-9s %6lld %8.2fx  %s\n", kp_json_str(r, "run", "?"),
		kp_json_str(json_object_get(r, "task"), "name", "?"), kp_json_str(r, "status", "?"),
		kp_json_int(json_object_get(r, "used"), "evaluations", 0),
		json_is_true(json_object_get(best, "improved")) ? kp_json_num(best, "speedup", NAN) : 1.0,
		kp_json_str(json_object_get(r, "search"), "search", "?"));
}

static int run_runs(struct kp_cli *cli, const struct kp_args *args)
{
	const char *root = kp_cli_runs_root(args);
	struct kp_error err = KP_ERROR_INIT;
	json_t *all = NULL;

	if (kp_run_list(root, &all, &err))
		return kp_cli_fail(cli, &err);
	if (cli->json) {
		kp_cli_print_json(cli, all);
		json_decref(all);
		return KP_EXIT_OK;
	}
	kp_cli_json_printable(all, KP_TEXT_LINE);
	if (!json_array_size(all)) {
		fprintf(cli->out, "no runs in '%s' (start one with 'kernelpro optimize TASK')\n", root);
	} else {
		fprintf(cli->out, "%-36s %-18s %-9s %6s %9s  %s\n", "run", "task", "status", "evals", "best",
			"search");
		for (size_t i = 0; i < json_array_size(all); i++)
			print_line(cli, json_array_get(all, i));
	}
	json_decref(all);
	return KP_EXIT_OK;
}

const struct kp_cmd kp_cmd_runs = {
	.name = "runs",
	.summary = "List the optimize runs: task, status, evaluations, best speedup",
	.usage = "[--runs-dir DIR] [--json]",
	.flags = KP_CMD_JSON,
	.opts = runs_opts,
	.max_args = 0,
	.run = run_runs,
	.examples = "kernelpro runs\n"
		    "kernelpro runs --runs-dir /scratch/runs --json",
};

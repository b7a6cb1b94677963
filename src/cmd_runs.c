/* kernelpro runs: the runs under the runs directory, one line each (task, status, evaluations, best speedup). */
#include "base/setup.h"

#include <dirent.h>
#include <math.h>

#include "cli.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/search.h"
#include "runs.h"

static const struct kp_opt runs_opts[] = {
	KP_RUNS_DIR_OPT,
	KP_OPT_TABLE_END,
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One run's summary, or an object saying why it could not be read. */
static json_t *run_entry(const char *dir, const char *name)
{
	struct kp_store *s = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf db = KP_BUF_INIT;
	json_t *sum = NULL;

	kp_path_join(&db, dir, KP_RUN_DB);
	if (kp_store_open(&s, db.buf, KP_STORE_READONLY, &err) || kp_search_summary(s, &sum, &err)) {
		sum = json_object();
		kp_json_set(sum, "run", json_string(name));
		kp_json_set(sum, "error", json_string(kp_error_msg(&err)));
	}
	kp_json_set(sum, "dir", json_string(dir));
	kp_store_close(s);
	kp_buf_release(&db);
	return sum;
}

static int run_runs(struct kp_cli *cli, const struct kp_args *args)
{
	const char *root = kp_runs_dir(args);
	struct kp_strvec names = KP_STRVEC_INIT;
	json_t *all = json_array();
	DIR *d = opendir(root);
	struct dirent *de;

	if (!d) {
		if (errno != ENOENT) {
			kp_cli_error(cli, "cannot read runs directory '%s': %s", root, strerror(errno));
			json_decref(all);
			return KP_EXIT_FAIL;
		}
	} else {
		while ((de = readdir(d))) {
			struct kp_buf p = KP_BUF_INIT;
			if (de->d_name[0] == '.')
				continue;
			kp_path_join(&p, root, de->d_name);
			kp_buf_adds(&p, "/" KP_RUN_DB);
			if (kp_path_exists(p.buf))
				kp_strvec_push(&names, de->d_name);
			kp_buf_release(&p);
		}
		closedir(d);
	}
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), by_name);
	for (size_t i = 0; i < names.n; i++) {
		struct kp_buf dir = KP_BUF_INIT;
		kp_path_join(&dir, root, names.v[i]);
		json_array_append_new(all, run_entry(dir.buf, names.v[i]));
		kp_buf_release(&dir);
	}
	if (cli->json) {
		kp_cli_print_json(cli, all);
	} else if (!names.n) {
		fprintf(cli->out, "no runs in '%s' (start one with 'kernelpro optimize TASK')\n", root);
	} else {
		fprintf(cli->out, "%-36s %-18s %-9s %6s %9s  %s\n", "run", "task", "status", "evals", "best", "search");
		for (size_t i = 0; i < json_array_size(all); i++) {
			json_t *r = json_array_get(all, i), *best = json_object_get(r, "best");
			if (kp_json_str(r, "error", NULL)) {
				fprintf(cli->out, "%-36s (unreadable: %s)\n", names.v[i], kp_json_str(r, "error", ""));
				continue;
			}
			fprintf(cli->out, "%-36s %-18s %-9s %6lld %8.2fx  %s\n", kp_json_str(r, "run", names.v[i]),
				kp_json_str(json_object_get(r, "task"), "name", "?"), kp_json_str(r, "status", "?"),
				kp_json_int(json_object_get(r, "used"), "evaluations", 0),
				json_is_true(json_object_get(best, "improved")) ? kp_json_num(best, "speedup", NAN) : 1.0,
				kp_json_str(json_object_get(r, "search"), "search", "?"));
		}
	}
	json_decref(all);
	kp_strvec_release(&names);
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
};

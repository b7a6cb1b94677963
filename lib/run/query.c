/* The read queries of `runs` and `show`: every run under a directory, a run's tree, one version in full. */
#include "base/setup.h"

#include <dirent.h>
#include <math.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/strvec.h"
#include "run/run_int.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the run directories under root, sorted. */
static int run_names(const char *root, struct kp_strvec *names, struct kp_error *err)
{
	DIR *d = opendir(root);
	struct dirent *de;

	if (!d)
		return errno == ENOENT ? 0
				       : kp_error_set(err, KP_EIO, "cannot read runs directory '%s': %s",
						      root, strerror(errno));
	while ((de = readdir(d))) {
		struct kp_buf p = KP_BUF_INIT;
		if (de->d_name[0] == '.')
			continue;
		kp_path_join(&p, root, de->d_name);
		if (kp_run_exists(p.buf))
			kp_strvec_push(names, de->d_name);
		kp_buf_release(&p);
	}
	closedir(d);
	if (names->n)
		qsort(names->v, names->n, sizeof(*names->v), by_name);
	return 0;
}

/* One run's summary, or an object saying why it could not be read. */
static json_t *list_entry(const char *dir, const char *name)
{
	struct kp_run *r = NULL;
	struct kp_error err = KP_ERROR_INIT;
	json_t *sum = NULL;

	if (kp_run_open(&r, dir, KP_RUN_READONLY, &err) || kp_run_summary(r, &sum, &err)) {
		sum = json_object();
		kp_json_set(sum, "run", json_string(name));
		kp_json_set(sum, "error", json_string(kp_error_msg(&err)));
		kp_json_set(sum, "dir", json_string(dir));
	}
	kp_run_close(r);
	return sum;
}

int kp_run_list(const char *root, json_t **out, struct kp_error *err)
{
	struct kp_strvec names = KP_STRVEC_INIT;
	int rc = run_names(root, &names, err);

	*out = NULL;
	if (!rc) {
		*out = json_array();
		for (size_t i = 0; i < names.n; i++) {
			struct kp_buf dir = KP_BUF_INIT;
			kp_path_join(&dir, root, names.v[i]);
			json_array_append_new(*out, list_entry(dir.buf, names.v[i]));
			kp_buf_release(&dir);
		}
	}
	kp_strvec_release(&names);
	return rc;
}

int kp_run_tree(struct kp_run *r, json_t **out, struct kp_error *err)
{
	struct kp_node_row *rows = NULL;
	size_t n = 0;
	int rc = kp_store_nodes_load(r->store, &rows, &n, err);

	*out = NULL;
	if (rc)
		return rc;
	*out = json_array();
	for (size_t i = 0; i < n && !rc; i++) {
		json_t *o;
		if (!(rc = kp_run_node_json(r, &rows[i], KP_RUN_NODE_TREE | KP_RUN_NODE_REASON, &o, err)))
			json_array_append_new(*out, o);
	}
	free(rows);
	if (rc) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

/* A JSON text a tuning row holds, parsed (new reference; null when absent or unreadable). */
static json_t *parsed(const char *text)
{
	json_t *v = text ? json_loads(text, 0, NULL) : NULL;
	return v ? v : json_null();
}

json_t *kp__run_tuning_json(const struct kp_tuning_row *r)
{
	json_t *o = json_object();
	kp_json_set(o, "node", json_integer(r->node));
	kp_json_set(o, "status", json_string(r->status));
	kp_json_set(o, "strategy", json_string(r->strategy));
	kp_json_set(o, "budget", json_integer(r->budget));
	kp_json_set(o, "derive", r->derive ? json_string(r->derive) : NULL);
	kp_json_set(o, "gpu", r->gpu ? json_string(r->gpu) : NULL);
	kp_json_set(o, "trials", json_integer(r->trials));
	kp_json_set(o, "evaluated", json_integer(r->evaluated));
	kp_json_set(o, "cache_hits", json_integer(r->cache_hits));
	kp_json_set(o, "untuned_point", r->untuned_point ? json_string(r->untuned_point) : NULL);
	kp_json_set(o, "untuned_ms", kp_json_real(r->untuned_ms));
	kp_json_set(o, "best_point", r->best_point ? json_string(r->best_point) : NULL);
	kp_json_set(o, "best_ms", kp_json_real(r->best_ms));
	kp_json_set(o, "children", r->children_json ? parsed(r->children_json) : json_array());
	kp_json_set(o, "note", r->note ? json_string(r->note) : NULL);
	kp_json_set(o, "wall_s", kp_json_real(r->wall_s));
	return o;
}

/* The tune action of one version, with its space and trials, when it was tuned. */
struct node_tuning {
	long node;
	json_t *out;
};

static int find_tuning(const struct kp_tuning_row *r, void *ud)
{
	struct node_tuning *t = ud;
	if (r->node != t->node)
		return 0;
	t->out = kp__run_tuning_json(r);
	kp_json_set(t->out, "space", parsed(r->space_json));
	kp_json_set(t->out, "tried", parsed(r->trials_json));
	return 1;
}

static int add_exchange(const struct kp_exchange_row *x, void *ud)
{
	json_t *o = json_object();
	kp_json_set(o, "mode", json_string(x->mode ? x->mode : ""));
	kp_json_set(o, "round", json_integer(x->round));
	kp_json_set(o, "prompt", json_string(x->prompt ? x->prompt : ""));
	kp_json_set(o, "reply", json_string(x->reply ? x->reply : ""));
	kp_json_set(o, "error", x->error ? json_string(x->error) : NULL);
	kp_json_set(o, "tokens_in", json_integer(x->tokens_in));
	kp_json_set(o, "tokens_out", json_integer(x->tokens_out));
	json_array_append_new(ud, o);
	return 0;
}

int kp_run_node(struct kp_run *r, long id, json_t **out, struct kp_error *err)
{
	struct kp_node_row row;
	json_t *o = NULL, *ex = json_array();
	struct node_tuning tuning = {id, NULL};
	int rc;

	*out = NULL;
	if ((rc = kp_store_node_get(r->store, id, &row, err)) ||
	    (rc = kp_store_exchanges_each(r->store, id, add_exchange, ex, err)) ||
	    (rc = kp_store_tunings_each(r->store, find_tuning, &tuning, err)) ||
	    (rc = kp_run_node_json(r, &row, KP_RUN_NODE_TREE | KP_RUN_NODE_EVAL | KP_RUN_NODE_SOURCE, &o, err)))
		goto out;
	kp_json_set(o, "exchanges", ex);
	kp_json_set(o, "tuning", tuning.out);
	tuning.out = NULL;
	ex = NULL;
	*out = o;
out:
	json_decref(ex);
	json_decref(tuning.out);
	return rc;
}

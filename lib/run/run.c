/* Run directories: where they live, opening one, its lock, the settings its sessions share. */
#include "base/setup.h"

#include <fcntl.h>
#include <math.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"
#include "run/run_int.h"

/* ---- where runs live ------------------------------------------------------------------------- */

const char *kp_run_root(const char *given)
{
	return kp_dir_setting(given, "KERNELPRO_RUNS", "kernelpro-runs");
}

int kp_run_exists(const char *dir)
{
	struct kp_buf p = KP_BUF_INIT;
	int ok;
	kp_path_join(&p, dir, KP_RUN_DB);
	ok = kp_path_exists(p.buf);
	kp_buf_release(&p);
	return ok;
}

int kp_run_resolve(const char *root, const char *run, struct kp_buf *dir, struct kp_error *err)
{
	struct kp_buf p = KP_BUF_INIT;
	int found;

	if (kp_run_exists(run)) {
		kp_buf_adds(dir, run);
		return 0;
	}
	kp_path_join(&p, root, run);
	found = !strchr(run, '/') && kp_run_exists(p.buf);
	if (found)
		kp_buf_adds(dir, p.buf);
	kp_buf_release(&p);
	if (found)
		return 0;
	return kp_error_set(err, KP_ENOENT,
			    "no run '%s' (neither a directory holding %s nor a run in '%s'); "
			    "'kernelpro runs' lists them",
			    run, KP_RUN_DB, root);
}

/* ---- settings -------------------------------------------------------------------------------- */

void kp_run_settings_init(struct kp_run_settings *s)
{
	memset(s, 0, sizeof(*s));
	kp_search_params_default(&s->params);
	s->orchestration = KP_ORCH_PROACTIVE;
	s->tool_rounds = 3;
}

void kp_run_settings_release(struct kp_run_settings *s)
{
	free(s->family);
	free(s->llm);
	free(s->evaluator);
	free(s->formats);
	kp_run_settings_init(s);
}

/* How the tools reach the model; kept with the run, so a resumed run asks the same way. */
static json_t *orchestration_json(const struct kp_run_settings *s)
{
	json_t *o = json_object();
	kp_json_set(o, "mode", json_string(kp_orchestration_name(s->orchestration)));
	kp_json_set(o, "tool_rounds", json_integer(s->tool_rounds));
	return o;
}

int kp__run_meta_json(struct kp_store *s, const char *key, json_t **out, struct kp_error *err)
{
	return kp_store_meta_get_json(s, key, out, err);
}

char *kp__run_meta_str(struct kp_store *s, const char *key)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error ignore = KP_ERROR_INIT;
	char *v = NULL;
	if (!kp_store_meta_get(s, key, &b, &ignore) && b.len)
		v = kp_buf_detach(&b, NULL);
	kp_buf_release(&b);
	return v;
}

int kp__run_profiled(struct kp_store *s, long node)
{
	struct kp_error ignore = KP_ERROR_INIT;
	int yes = 0;
	kp_store_profile_exists(s, node, &yes, &ignore);
	return yes;
}

/* Records what every later session reads back: one transaction, so a run has all of it or none. */
int kp__run_save_settings(struct kp_run *r, const char *stamp, struct kp_error *err)
{
	const struct kp_run_settings *s = &r->settings;
	int rc = kp_store_begin(r->store, err);
	if (rc)
		return rc;
	if ((rc = kp_store_meta_set(r->store, "run_name", r->name, err)) ||
	    (rc = kp_store_meta_set(r->store, "kernelpro", KP_VERSION " (" KP_GIT_REV ")", err)) ||
	    (rc = kp_store_meta_set(r->store, "created", stamp, err)) ||
	    (rc = kp_store_meta_set(r->store, "family", s->family, err)) ||
	    (rc = kp_store_meta_set(r->store, "llm", s->llm ? s->llm : "", err)) ||
	    (rc = kp_store_meta_set(r->store, "evaluator", s->evaluator ? s->evaluator : "harness", err)) ||
	    (s->formats && (rc = kp_store_meta_set(r->store, "formats", s->formats, err))) ||
	    (rc = kp_store_meta_set_json(r->store, "orchestration", orchestration_json(s), err)) ||
	    (rc = kp_store_meta_set_json(r->store, "task", json_incref(r->task), err)) ||
	    (rc = kp_store_meta_set(r->store, "task_sha256", r->task_sha256, err)) ||
	    (rc = kp_store_meta_set_json(r->store, "params", kp_search_params_to_json(&s->params), err)) ||
	    (rc = kp_store_meta_set_json(r->store, "budget", kp_search_budget_to_json(&s->budget), err))) {
		kp_store_rollback(r->store);
		return rc;
	}
	return kp_store_commit(r->store, err);
}

/* The orchestration a run records (runs made before it was recorded were proactive). */
static int load_orchestration(struct kp_run *r, struct kp_error *err)
{
	json_t *o = NULL;
	struct kp_error absent = KP_ERROR_INIT;
	int rc = 0;

	if (kp__run_meta_json(r->store, "orchestration", &o, &absent))
		return absent.code == KP_ENOENT ? 0
						: kp_error_set(err, absent.code, "%s", kp_error_msg(&absent));
	if (kp_orchestration_parse(kp_json_str(o, "mode", ""), &r->settings.orchestration))
		rc = kp_error_set(err, KP_EPARSE,
				  "the run records orchestration '%s', which this kernelpro does not know",
				  kp_json_str(o, "mode", ""));
	r->settings.tool_rounds = (int)kp_json_int(o, "tool_rounds", 3);
	json_decref(o);
	return rc;
}

/*
 * Reads the settings back. The task, parameters and budget are required to work on a run
 * (strict); a reader takes what is there.
 */
static int load_settings(struct kp_run *r, int strict, struct kp_error *err)
{
	struct kp_run_settings *s = &r->settings;
	json_t *pj = NULL, *bj = NULL;
	struct kp_error soft = KP_ERROR_INIT, *e = strict ? err : &soft;
	int rc = kp__run_meta_json(r->store, "task", &r->task, e), one;
	char *v;

	r->name = kp__run_meta_str(r->store, "run_name");
	if ((v = kp__run_meta_str(r->store, "task_sha256"))) {
		kp_strlcpy(r->task_sha256, v, sizeof(r->task_sha256));
		free(v);
	}
	s->family = kp__run_meta_str(r->store, "family");
	s->llm = kp__run_meta_str(r->store, "llm");
	s->evaluator = kp__run_meta_str(r->store, "evaluator");
	s->formats = kp__run_meta_str(r->store, "formats");
	if (!(one = kp__run_meta_json(r->store, "params", &pj, e)))
		one = kp_search_params_from_json(&s->params, pj, e);
	rc = rc ? rc : one;
	if (!(one = kp__run_meta_json(r->store, "budget", &bj, e)))
		kp_search_budget_from_json(bj, &s->budget);
	rc = rc ? rc : one;
	json_decref(pj);
	json_decref(bj);
	if (!r->name) {
		const char *slash = strrchr(r->dir, '/');
		r->name = kp_xstrdup(slash && slash[1] ? slash + 1 : r->dir);
	}
	r->kind = kp_task_kind_find(kp_json_str(r->task, "kind", NULL));
	if (strict && rc)
		return rc;
	rc = load_orchestration(r, e);
	return strict ? rc : 0;
}

/* ---- the lock -------------------------------------------------------------------------------- */

/*
 * The previous holder of the lock is gone (we hold it now): whatever its children left running
 * (a killed session's evaluator and what that started) is killed before this session starts any.
 * The file's second line is that session's kp_child_owner() mark.
 */
static void sweep_previous(int f)
{
	char text[192];
	ssize_t n = pread(f, text, sizeof(text) - 1, 0);
	char *nl, *mark;
	int killed;
	if (n <= 0)
		return;
	text[n] = '\0';
	if (!(nl = strchr(text, '\n')))
		return;
	mark = nl + 1;
	mark[strcspn(mark, "\n")] = '\0';
	if (*mark && (killed = kp_child_sweep(mark)) > 0)
		kp_warn("killed %d process%s left running by the earlier session of this run", killed,
			killed == 1 ? "" : "es");
}

/*
 * An flock on DIR/run.lock, released when the process ends (kill -9 included) or the handle
 * closes: one process, and one handle, works on a run at a time.
 */
int kp__run_lock(const char *dir, int *fd, struct kp_error *err)
{
	struct kp_buf p = KP_BUF_INIT;
	char pid[32];
	int f;

	kp_path_join(&p, dir, "run.lock");
	f = open(p.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (f < 0) {
		int rc = kp_error_set(err, KP_EIO, "cannot open '%s': %s", p.buf, strerror(errno));
		kp_buf_release(&p);
		return rc;
	}
	kp_buf_release(&p);
	if (flock(f, LOCK_EX | LOCK_NB) != 0) {
		ssize_t n = read(f, pid, sizeof(pid) - 1);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0'; /* the first line; the owner mark follows */
		close(f);
		return kp_error_set(err, KP_EEXISTS,
				    "run '%s' is in use by another kernelpro process%s%s%s; wait for it "
				    "or stop it",
				    dir, pid[0] ? " (pid " : "", pid[0] ? kp_str_trim(pid) : "",
				    pid[0] ? ")" : "");
	}
	sweep_previous(f);
	if (ftruncate(f, 0) == 0) {
		/* The pid for the message above; the owner mark for the next session's sweep. */
		char line[160];
		int n = snprintf(line, sizeof(line), "%ld\n%s\n", (long)getpid(), kp_child_owner());
		if (pwrite(f, line, (size_t)n, 0) < 0)
			line[0] = '\0';
	}
	*fd = f;
	return 0;
}

/* ---- lifecycle ------------------------------------------------------------------------------- */

struct kp_run *kp__run_alloc(const char *dir)
{
	struct kp_run *r = kp_xcalloc(1, sizeof(*r));
	r->dir = kp_xstrdup(dir);
	r->lock_fd = -1;
	kp_run_settings_init(&r->settings);
	return r;
}

int kp__run_open_db(struct kp_run *r, unsigned store_flags, struct kp_error *err)
{
	struct kp_buf db = KP_BUF_INIT;
	int rc;
	kp_path_join(&db, r->dir, KP_RUN_DB);
	rc = kp_store_open(&r->store, db.buf, store_flags, err);
	kp_buf_release(&db);
	return rc;
}

int kp_run_open(struct kp_run **out, const char *dir, unsigned flags, struct kp_error *err)
{
	struct kp_run *r = kp__run_alloc(dir);
	int ro = !!(flags & KP_RUN_READONLY);
	int rc;

	*out = NULL;
	if ((!ro && (rc = kp__run_lock(r->dir, &r->lock_fd, err))) ||
	    (rc = kp__run_open_db(r, ro ? KP_STORE_READONLY : 0, err)) || (rc = load_settings(r, !ro, err))) {
		kp_run_close(r);
		if (rc != KP_EEXISTS && kp__run_half_made(dir)) {
			kp_error_clear(err);
			rc = kp_error_set(err, KP_EINVAL,
					  "run '%s' was never completely created (kernelpro was killed while "
					  "creating it): it holds nothing; start it again with 'kernelpro "
					  "optimize TASK --name NAME', which replaces it",
					  dir);
		}
		return rc;
	}
	*out = r;
	return 0;
}

void kp_run_close(struct kp_run *r)
{
	if (!r)
		return;
	kp_store_close(r->store);
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	kp_run_settings_release(&r->settings);
	json_decref(r->task);
	free(r->dir);
	free(r->name);
	free(r->made_root);
	free(r);
}

void kp_run_abandon(struct kp_run *r)
{
	struct kp_error ignore = KP_ERROR_INIT;
	int remove;

	if (!r)
		return;
	remove = r->created && (!r->store || !kp_store_session_count(r->store));
	kp_store_close(r->store);
	r->store = NULL;
	if (remove) {
		kp_rm_rf(r->dir, &ignore);
		if (r->made_root)
			rmdir(r->made_root); /* only when empty: another run may have appeared meanwhile */
	}
	kp_run_close(r);
}

const char *kp_run_dir(const struct kp_run *r)
{
	return r->dir;
}

const char *kp_run_name(const struct kp_run *r)
{
	return r->name;
}

const struct kp_run_settings *kp_run_settings(const struct kp_run *r)
{
	return &r->settings;
}

struct kp_store *kp_run_store(struct kp_run *r)
{
	return r->store;
}

void kp__run_task_identity(const struct kp_task *t, char hex[KP_SHA256_HEX_LEN + 1])
{
	static const char *const not_identity[] = {"name", "description", "path", "reference"};
	json_t *j = kp_task_to_json(t);
	struct kp_sha256 h;
	char *text;

	for (size_t i = 0; i < KP_ARRAY_SIZE(not_identity); i++)
		json_object_del(j, not_identity[i]);
	text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	kp_sha256_init(&h);
	kp_sha256_update_str(&h, text ? text : "");
	kp_sha256_update_str(&h, t->source ? t->source : "");
	kp_sha256_final(&h, hex);
	free(text);
	json_decref(j);
}

int kp__run_same_task(const struct kp_run *r, const struct kp_task *t, const char *given,
		      struct kp_error *err)
{
	const char *kind = kp_json_str(r->task, "kind", NULL);
	char hex[KP_SHA256_HEX_LEN + 1];

	if (kind && strcmp(kind, kp_task_kind_name(t->kind)))
		return kp_error_set(err, KP_EINVAL,
				    "'%s' is not the task run '%s' optimizes: it is a %s task, the run's is "
				    "a %s one; start a new run for it: kernelpro optimize %s",
				    t->path, r->name, kp_task_kind_name(t->kind), kind, t->path);
	if (!r->task_sha256[0])
		return 0;
	kp__run_task_identity(t, hex);
	if (!strcmp(hex, r->task_sha256))
		return 0;
	if (given)
		return kp_error_set(err, KP_EINVAL,
				    "'%s' is not the task run '%s' optimizes (its reference or specification "
				    "differs: code, tensors, tolerance or hints); start a new run for it: "
				    "kernelpro optimize %s",
				    t->path, r->name, t->path);
	return kp_error_set(err, KP_EINVAL,
			    "the task at '%s' changed since run '%s' began (its reference or "
			    "specification differs: code, tensors, tolerance or hints); restore it (if "
			    "it moved, give its new place: kernelpro optimize --resume RUN TASK), or start "
			    "a new run for the changed task: kernelpro optimize %s",
			    t->path, r->name, t->path);
}

/* A resumed run's task from a new place, and the identity a run from before never recorded. */
static int remember_task(struct kp_run *r, const struct kp_task *t, struct kp_error *err)
{
	const char *was = kp_json_str(r->task, "path", NULL);
	int rc = 0;

	if (r->lock_fd < 0)
		return 0; /* read-only */
	if (!r->task_sha256[0]) {
		kp__run_task_identity(t, r->task_sha256);
		rc = kp_store_meta_set(r->store, "task_sha256", r->task_sha256, err);
	}
	if (!rc && t->path && (!was || strcmp(was, t->path))) {
		kp_json_set(r->task, "path", json_string(t->path));
		rc = kp_store_meta_set_json(r->store, "task", json_incref(r->task), err);
	}
	return rc;
}

int kp_run_load_task(struct kp_run *r, const char *moved, struct kp_task *t, struct kp_error *err)
{
	const char *path = moved ? moved : kp_json_str(r->task, "path", NULL);
	int rc;

	if (!path)
		return kp_error_set(err, KP_EPARSE,
				    "run '%s' does not record its task; give TASK with --resume", r->dir);
	rc = kp_task_load(t, path, err);
	if (rc) {
		kp_error_prefix(err, "the run's task (give its new place as TASK with --resume)");
		return rc;
	}
	if ((rc = kp__run_same_task(r, t, moved, err)) || (rc = remember_task(r, t, err)))
		kp_task_release(t);
	return rc;
}

int kp_run_set_budget(struct kp_run *r, const struct kp_search_budget *b, unsigned which,
		      struct kp_error *err)
{
	struct kp_search_budget *cur = &r->settings.budget;
	if (!which)
		return 0;
	if (which & KP_RUN_LIMIT_EVALS)
		cur->evals = b->evals;
	if (which & KP_RUN_LIMIT_WALL)
		cur->wall_s = b->wall_s;
	if (which & KP_RUN_LIMIT_TOKENS)
		cur->tokens = b->tokens;
	if (which & KP_RUN_LIMIT_COST)
		cur->cost = b->cost;
	return kp_store_meta_set_json(r->store, "budget", kp_search_budget_to_json(cur), err);
}

const struct kp_task_kind_info *kp__run_kind(const struct kp_run *r, const char *lang)
{
	const struct kp_task_kind_info *k = r->kind;
	if (lang && (!k || strcmp(k->lang, lang)))
		k = kp_task_kind_for_lang(lang); /* the database says otherwise: it is the source of truth */
	return k ? k : kp_task_kind_info(KP_TASK_NATIVE);
}

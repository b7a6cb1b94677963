/* The replay backend: answers from a directory of recordings or hand-written replies, in order or by hash. */
#include "base/setup.h"

#include <dirent.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "llm/backend.h"

/* One reply, loaded at setup. */
struct kp_replay_entry {
	char *file;          /* base name, for messages */
	char hash[65];       /* "" for plain-text replies */
	char *text;
	size_t len;
	char finish_reason[32];
	int truncated;
	char model[128];
	long input_tokens, output_tokens; /* -1: not recorded */
	int used;
};

/* The backend's state (llm->be_data). Positions change under llm->lock. */
struct kp_replay {
	struct kp_replay_entry *e;
	size_t n, alloc;
	size_t next;         /* order mode: the next entry to hand out */
};

static void replay_release(struct kp_replay *rp)
{
	for (size_t i = 0; i < rp->n; i++) {
		free(rp->e[i].file);
		free(rp->e[i].text);
	}
	free(rp->e);
	memset(rp, 0, sizeof(*rp));
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_record(struct kp_replay_entry *e, const char *path, struct kp_error *err)
{
	json_t *root = NULL;
	const json_t *rp, *usage, *text;
	const char *hash;
	int rc = kp_json_load_file(path, KP_LLM_REPLY_CAP, &root, err);
	if (rc)
		return rc;
	rp = json_object_get(root, "reply");
	text = json_object_get(rp, "text");
	hash = kp_json_str(root, "prompt_hash", "");
	if (!json_is_string(text)) {
		rc = kp_error_set(err, KP_EPARSE, "replay: %s has no reply.text; is it a kernelpro recording?", path);
		goto out;
	}
	if (*hash && strlen(hash) != 64) {
		rc = kp_error_set(err, KP_EPARSE, "replay: %s: prompt_hash must be 64 hex digits", path);
		goto out;
	}
	kp_strlcpy(e->hash, hash, sizeof(e->hash));
	/* As recorded, NUL bytes included: answer() refuses such a reply rather than cut it. */
	e->len = json_string_length(text);
	e->text = kp_xmemdupz(json_string_value(text), e->len);
	kp_strlcpy(e->finish_reason, kp_json_str(rp, "finish_reason", "stop"), sizeof(e->finish_reason));
	e->truncated = kp_json_bool(rp, "truncated", 0);
	kp_strlcpy(e->model, kp_json_str(rp, "model", ""), sizeof(e->model));
	usage = json_object_get(rp, "usage");
	e->input_tokens = (long)kp_json_int(usage, "input_tokens", -1);
	e->output_tokens = (long)kp_json_int(usage, "output_tokens", -1);
out:
	json_decref(root);
	return rc;
}

static int load_text(struct kp_replay_entry *e, const char *path, struct kp_error *err)
{
	struct kp_buf b = KP_BUF_INIT;
	int rc = kp_read_file(path, KP_LLM_REPLY_CAP, &b, err);
	if (rc)
		return rc;
	e->text = kp_buf_detach(&b, &e->len);
	kp_strlcpy(e->finish_reason, "stop", sizeof(e->finish_reason));
	e->input_tokens = e->output_tokens = -1;
	return 0;
}

static int replay_load(struct kp_replay *rp, const char *dir, enum kp_llm_replay_mode mode, struct kp_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct kp_strvec names = KP_STRVEC_INIT;
	struct kp_buf path = KP_BUF_INIT;
	int rc = 0;

	memset(rp, 0, sizeof(*rp));
	if (!d)
		return kp_error_set(err, errno == ENOENT ? KP_ENOENT : KP_EIO, "replay: cannot open directory '%s': %s",
				    dir, strerror(errno));
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    (kp_ends_with(de->d_name, ".json") || kp_ends_with(de->d_name, ".txt") || kp_ends_with(de->d_name, ".md")))
			kp_strvec_push(&names, de->d_name);
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_names);
	for (size_t i = 0; i < names.n; i++) {
		struct kp_replay_entry *e;
		KP_ALLOC_GROW(rp->e, rp->n + 1, rp->alloc);
		e = &rp->e[rp->n];
		memset(e, 0, sizeof(*e));
		kp_buf_reset(&path);
		kp_path_join(&path, dir, names.v[i]);
		rc = kp_ends_with(names.v[i], ".json") ? load_record(e, path.buf, err) : load_text(e, path.buf, err);
		if (rc)
			goto out;
		e->file = kp_xstrdup(names.v[i]);
		rp->n++;
		if (mode == KP_LLM_REPLAY_HASH && !e->hash[0]) {
			rc = kp_error_set(err, KP_EINVAL,
					  "replay: '%s' has no prompt hash, so it cannot be matched by hash; use "
					  "--llm replay:DIR (in order) or replies recorded with --record",
					  path.buf);
			goto out;
		}
	}
	if (!rp->n)
		rc = kp_error_set(err, KP_ENOENT, "replay: '%s' holds no replies (*.json recordings, *.txt or *.md)", dir);
out:
	kp_strvec_release(&names);
	kp_buf_release(&path);
	if (rc)
		replay_release(rp);
	return rc;
}

static struct kp_replay_entry *pick(struct kp_llm *llm, struct kp_llm_job *job)
{
	struct kp_replay *rp = llm->be_data;
	if (llm->cfg.replay_mode == KP_LLM_REPLAY_ORDER) {
		if (rp->next >= rp->n) {
			kp_llm_fail(llm, job, KP_ENOENT,
				    "replay: all %zu replies in '%s' are used; request %zu has none (record more with --record)",
				    rp->n, llm->cfg.replay_dir, rp->next + 1);
			return NULL;
		}
		return &rp->e[rp->next++];
	}
	for (size_t i = 0; i < rp->n; i++)
		if (!rp->e[i].used && !strcmp(rp->e[i].hash, job->hash))
			return &rp->e[i];
	kp_llm_fail(llm, job, KP_ENOENT, "replay: no unused reply in '%s' for prompt hash %.12s%s%s", llm->cfg.replay_dir,
		    job->hash, job->req->tag ? " (" : "", job->req->tag ? job->req->tag : "");
	return NULL;
}

static void answer(struct kp_llm *llm, struct kp_llm_job *job, const struct kp_replay_entry *e)
{
	struct kp_llm_reply *r = job->reply;
	job->attempts = 1;
	r->text = kp_xmemdupz(e->text, e->len);
	r->len = e->len;
	if (kp_llm_check_text(llm, job))
		return;
	kp_strlcpy(r->finish_reason, e->finish_reason, sizeof(r->finish_reason));
	r->truncated = e->truncated;
	kp_strlcpy(r->model, e->model, sizeof(r->model));
	/* A recording without usage (or a plain-text reply): kp_llm_job_done estimates it. */
	r->usage.input_tokens = e->input_tokens;
	r->usage.output_tokens = e->output_tokens;
	r->usage.attempts = 1;
	kp_llm_job_done(llm, job);
}

static void replay_run(struct kp_llm *llm, struct kp_llm_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct kp_llm_job *job = &jobs[i];
		struct kp_replay_entry *e;
		if (job->done || kp_llm_job_canceled(llm, job))
			continue;
		pthread_mutex_lock(&llm->lock);
		e = pick(llm, job);
		if (e)
			e->used = 1;
		pthread_mutex_unlock(&llm->lock);
		if (e)
			answer(llm, job, e);
	}
}

static int replay_setup(struct kp_llm *llm, struct kp_error *err)
{
	struct kp_replay *rp;
	int rc;
	if (!llm->cfg.replay_dir)
		return kp_error_set(err, KP_EINVAL, "llm: replay needs a directory: --llm replay:DIR");
	rp = kp_xcalloc(1, sizeof(*rp));
	llm->be_data = rp;
	rc = replay_load(rp, llm->cfg.replay_dir, llm->cfg.replay_mode, err);
	if (!rc && llm->cfg.replay_mode == KP_LLM_REPLAY_ORDER && llm->cfg.replay_skip > 0)
		rp->next = (size_t)llm->cfg.replay_skip; /* past the end: the next request says so */
	return rc;
}

static void replay_cleanup(struct kp_llm *llm)
{
	if (!llm->be_data)
		return;
	replay_release(llm->be_data);
	free(llm->be_data);
	llm->be_data = NULL;
}

/* --- Spec --------------------------------------------------------------------------------------------- */

static int replay_parse_spec(struct kp_llm_config *cfg, const char *word, const char *rest, struct kp_error *err)
{
	cfg->replay_mode = strcmp(word, "replay-hash") ? KP_LLM_REPLAY_ORDER : KP_LLM_REPLAY_HASH;
	free(cfg->replay_dir);
	cfg->replay_dir = kp_xstrdup(rest);
	return 0;
}

static void replay_format_spec(const struct kp_llm_config *cfg, struct kp_buf *out)
{
	/* Absolute, so a run resumed from another directory finds its replies. */
	char *abs = cfg->replay_dir ? realpath(cfg->replay_dir, NULL) : NULL;
	kp_buf_addf(out, "%s:%s", cfg->replay_mode == KP_LLM_REPLAY_HASH ? "replay-hash" : "replay",
		    abs ? abs : cfg->replay_dir ? cfg->replay_dir : "");
	free(abs);
}

static int replay_resume(struct kp_llm_config *cfg, long done)
{
	if (cfg->replay_mode != KP_LLM_REPLAY_ORDER)
		return 0;
	/* In order: each exchange made earlier used one reply; go on from the next. */
	cfg->replay_skip = done;
	return 1;
}

static const char *const replay_words[] = {"replay", "replay-hash", NULL};

const struct kp_llm_backend kp_llm_backend_replay = {
	.id = KP_LLM_REPLAY,
	.name = "replay",
	.words = replay_words,
	.arg = "DIR",
	.free_of_charge = 1,
	.parse_spec = replay_parse_spec,
	.format_spec = replay_format_spec,
	.resume = replay_resume,
	.setup = replay_setup,
	.run = replay_run,
	.cleanup = replay_cleanup,
};

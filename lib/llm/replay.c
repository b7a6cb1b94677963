/* Recording exchanges to a directory, and the replay backend that answers from one. */
#include "base/setup.h"

#include <dirent.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "llm/llm_int.h"

/* --- Recording ------------------------------------------------------------------------------------ */

static json_t *redacted_string(const struct kp_llm *llm, const char *s)
{
	struct kp_buf b = KP_BUF_INIT;
	json_t *v;
	kp_buf_adds(&b, s ? s : "");
	kp_redact_buf(&llm->redact, &b, 0);
	v = json_stringn(b.buf, b.len);
	kp_buf_release(&b);
	return v ? v : json_string("");
}

static json_t *usage_json(const struct kp_llm_usage *u)
{
	json_t *o = json_object();
	kp_json_set(o, "input_tokens", json_integer(u->input_tokens));
	kp_json_set(o, "output_tokens", json_integer(u->output_tokens));
	kp_json_set(o, "estimated", json_boolean(u->estimated));
	kp_json_set(o, "cost_usd", u->cost_known ? kp_json_real(u->cost_usd) : json_null());
	kp_json_set(o, "attempts", json_integer(u->attempts));
	kp_json_set(o, "elapsed_s", kp_json_real(u->elapsed_s));
	return o;
}

int kp_llm_record(struct kp_llm *llm, const struct kp_llm_job *job, struct kp_error *err)
{
	const struct kp_llm_request *req = job->req;
	const struct kp_llm_reply *rep = job->reply;
	json_t *root = json_object(), *rq = json_object(), *msgs = json_array(), *rp = json_object();
	struct kp_buf path = KP_BUF_INIT;
	int rc;

	/* Only the exchange itself: no URL, no headers, nothing that could hold a key. */
	kp_json_set(root, "format", json_string("kernelpro-llm-record-1"));
	kp_json_set(root, "seq", json_integer(job->seq));
	kp_json_set(root, "tag", req->tag ? redacted_string(llm, req->tag) : json_null());
	kp_json_set(root, "provider", json_string(kp_llm_provider_name(llm->cfg.provider)));
	kp_json_set(root, "model", llm->cfg.model ? json_string(llm->cfg.model) : json_null());
	kp_json_set(root, "prompt_hash", json_string(job->hash));
	kp_json_set(rq, "system", redacted_string(llm, req->system));
	for (size_t i = 0; i < req->nmsgs; i++) {
		json_t *m = json_object();
		kp_json_set(m, "role", json_string(req->msgs[i].role == KP_LLM_ASSISTANT ? "assistant" : "user"));
		kp_json_set(m, "content", redacted_string(llm, req->msgs[i].content));
		json_array_append_new(msgs, m);
	}
	kp_json_set(rq, "messages", msgs);
	kp_json_set(root, "request", rq);
	kp_json_set(rp, "text", redacted_string(llm, rep->text));
	kp_json_set(rp, "finish_reason", json_string(rep->finish_reason));
	kp_json_set(rp, "truncated", json_boolean(rep->truncated));
	kp_json_set(rp, "model", json_string(rep->model));
	kp_json_set(rp, "usage", usage_json(&rep->usage));
	kp_json_set(root, "reply", rp);

	kp_buf_addf(&path, "%s/%06ld.json", llm->cfg.record_dir, job->seq);
	rc = kp_json_write_file(path.buf, root, err);
	kp_buf_release(&path);
	json_decref(root);
	return rc;
}

/* --- Replay ----------------------------------------------------------------------------------------- */

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
	e->text = kp_xstrndup(json_string_value(text), json_string_length(text));
	e->len = strlen(e->text);
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

int kp_replay_load(struct kp_replay *rp, const char *dir, enum kp_llm_replay_mode mode, struct kp_error *err)
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
		kp_replay_release(rp);
	return rc;
}

void kp_replay_release(struct kp_replay *rp)
{
	for (size_t i = 0; i < rp->n; i++) {
		free(rp->e[i].file);
		free(rp->e[i].text);
	}
	free(rp->e);
	memset(rp, 0, sizeof(*rp));
}

static struct kp_replay_entry *pick(struct kp_llm *llm, struct kp_llm_job *job)
{
	struct kp_replay *rp = &llm->replay;
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

void kp_llm_replay_run(struct kp_llm *llm, struct kp_llm_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct kp_llm_job *job = &jobs[i];
		struct kp_replay_entry *e;
		if (job->done || kp_llm_budget_check(llm, job))
			continue;
		pthread_mutex_lock(&llm->lock);
		e = pick(llm, job);
		if (e)
			e->used = 1;
		pthread_mutex_unlock(&llm->lock);
		if (!e)
			continue;
		job->attempts = 1;
		job->reply->text = kp_xstrndup(e->text, e->len);
		job->reply->len = strlen(job->reply->text);
		kp_strlcpy(job->reply->finish_reason, e->finish_reason, sizeof(job->reply->finish_reason));
		job->reply->truncated = e->truncated;
		kp_strlcpy(job->reply->model, e->model, sizeof(job->reply->model));
		if (e->input_tokens >= 0 && e->output_tokens >= 0) {
			job->reply->usage.input_tokens = e->input_tokens;
			job->reply->usage.output_tokens = e->output_tokens;
		} else {
			struct kp_buf p = KP_BUF_INIT;
			kp_llm_render_plain(job->req, &p);
			job->reply->usage.input_tokens = (long)(p.len + 3) / 4;
			job->reply->usage.output_tokens = (long)(e->len + 3) / 4;
			job->reply->usage.estimated = 1;
			kp_buf_release(&p);
		}
		job->reply->usage.attempts = 1;
		kp_llm_account(llm, &job->reply->usage);
		job->done = 1;
		job->rc = 0;
	}
}

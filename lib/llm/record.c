/* Recordings: every exchange written as DIR/NNNNNN.json, scrubbed, for replay and for the record. */
#include "base/setup.h"

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "llm/core.h"

/* The next number after the highest NNNNNN.json already in the recording directory. */
long kp_llm_record_next_seq(const char *dir)
{
	long next = 1;
	struct kp_buf p = KP_BUF_INIT;
	for (long lo = 1, hi = 1;; hi *= 2) {
		/* Exponential then binary search over existing files: recordings are dense from 1. */
		kp_buf_reset(&p);
		kp_buf_addf(&p, "%s/%06ld.json", dir, hi);
		if (kp_path_exists(p.buf)) {
			lo = hi;
			continue;
		}
		while (lo < hi) {
			long mid = lo + (hi - lo) / 2;
			kp_buf_reset(&p);
			kp_buf_addf(&p, "%s/%06ld.json", dir, mid);
			if (kp_path_exists(p.buf))
				lo = mid + 1;
			else
				hi = mid;
		}
		next = lo;
		break;
	}
	kp_buf_release(&p);
	return next;
}

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

/*
 * One version of a run as JSON, the one view `show --tree`, `show --node`, the summary and the run
 * report share: one rule for the reference's speedup, and the stored verdict read back so every
 * reader can say which check refused a version and why.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/json.h"
#include "run/run_int.h"

#define REASON_CAP 1024 /* a reason's message is one line; the verdict keeps the whole */

/* The reference is the yardstick: 1.0 once it is timed, unknown before. */
static json_t *speedup_json(const struct kp_node_row *row)
{
	if (!row->parent)
		return row->evaluated ? json_real(1.0) : json_null();
	return kp_json_real(row->speedup);
}

static json_t *text_or_null(const struct kp_buf *b)
{
	return b->len ? json_string(b->buf) : NULL; /* json_string refuses invalid UTF-8: null then */
}

/* A stored JSON text, parsed; NULL when empty or not JSON (a reader shows what it can). */
static json_t *parsed_or_null(const struct kp_buf *b)
{
	return b->len ? json_loadb(b->buf, b->len, JSON_DECODE_ANY, NULL) : NULL;
}

/* The parts of a stored verdict that say what happened: status, phase, message, flags. */
static json_t *verdict_brief(const json_t *v)
{
	const json_t *flags = json_object_get(v, "flags");
	json_t *o;

	if (!json_is_object(v))
		return NULL;
	o = json_object();
	kp_json_set(o, "status", json_incref(json_object_get(v, "status")));
	kp_json_set(o, "phase", json_incref(json_object_get(v, "phase")));
	kp_json_set(o, "message", json_incref(json_object_get(v, "message")));
	kp_json_set(o, "flags", json_is_array(flags) ? json_incref((json_t *)flags) : json_array());
	return o;
}

/* The mean over the timed trials: a candidate's verdict has it in "runtime", the reference's in "eager". */
static json_t *mean_ms(const json_t *v)
{
	double m = kp_json_num(json_object_get(v, "runtime"), "mean_ms", NAN);
	if (!isfinite(m))
		m = kp_json_num(json_object_get(v, "eager"), "mean_ms", NAN);
	return isfinite(m) && m > 0 ? json_real(m) : NULL;
}

/* The first line of s, at most REASON_CAP bytes cut on a character boundary (new reference). */
static json_t *one_line(const char *s)
{
	size_t n = strcspn(s, "\n");
	char *cut;
	json_t *j;
	if (n > REASON_CAP)
		for (n = REASON_CAP; n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
			;
	cut = kp_xstrndup(s, n);
	j = json_string(cut);
	free(cut);
	return j;
}

static const json_t *deciding_flag(const json_t *flags, const char *severity)
{
	for (size_t i = 0; i < json_array_size(flags); i++) {
		const json_t *f = json_array_get(flags, i);
		if (!strcmp(kp_json_str(f, "severity", ""), severity) && kp_json_str(f, "check", NULL))
			return f;
	}
	return NULL;
}

json_t *kp_run_verdict_reason(const json_t *verdict, const char *outcome, const char *log)
{
	const json_t *flags = json_object_get(verdict, "flags"), *flag = NULL;
	const char *msg = NULL;
	json_t *o;

	if (!outcome || !strcmp(outcome, "correct") || !strcmp(outcome, "pending") ||
	    !strcmp(outcome, "none"))
		return NULL;
	if (!strcmp(outcome, "cheat_suspected"))
		flag = deciding_flag(flags, "refuse");
	else if (!strcmp(outcome, "wrong_output"))
		flag = deciding_flag(flags, "fail");
	if (flag)
		msg = kp_json_str(flag, "message", NULL);
	if (!msg || !*msg)
		msg = kp_json_str(verdict, "message", NULL);
	if ((!msg || !*msg) && log)
		msg = log;
	o = json_object();
	kp_json_set(o, "check", flag ? json_string(kp_json_str(flag, "check", "")) : NULL);
	kp_json_set(o, "severity", flag ? json_string(kp_json_str(flag, "severity", "")) : NULL);
	kp_json_set(o, "message", msg && *msg ? one_line(msg) : NULL);
	kp_json_set(o, "phase", json_incref(json_object_get(verdict, "phase")));
	return o;
}

static void add_tree(json_t *o, const struct kp_node_row *row)
{
	const char *lang = kp_cand_format_language(row->format);
	kp_json_set(o, "depth", json_integer(row->depth));
	kp_json_set(o, "format", row->format[0] ? json_string(row->format) : NULL);
	kp_json_set(o, "language", lang ? json_string(lang) : NULL);
	kp_json_set(o, "energy_j", kp_json_real(row->energy_j));
	kp_json_set(o, "reward", kp_json_real(row->reward));
	kp_json_set(o, "visits", json_integer(row->visits));
	kp_json_set(o, "closed", row->dead ? json_string(kp_dead_reason_text(row->dead)) : NULL);
	kp_json_set(o, "created", kp_json_real(row->created));
	kp_json_set(o, "summary", json_string(row->summary));
}

static int add_eval(struct kp_store *s, json_t *o, const struct kp_node_row *row, struct kp_error *err)
{
	struct kp_buf log = KP_BUF_INIT, fb = KP_BUF_INIT, fj = KP_BUF_INIT, vj = KP_BUF_INIT;
	json_t *verdict, *full;
	int rc;

	if ((rc = kp_store_eval_text(s, row->id, &log, &fb, &fj, err)) ||
	    (rc = kp_store_verdict_get(s, row->id, &vj, err)))
		goto out;
	full = parsed_or_null(&vj);
	verdict = verdict_brief(full);
	kp_json_set(o, "mean_ms", mean_ms(full));
	json_decref(full);
	kp_json_set(o, "log", text_or_null(&log));
	kp_json_set(o, "feedback", text_or_null(&fb));
	kp_json_set(o, "findings", parsed_or_null(&fj));
	/* A correct version is profiled when the search expands it (or the GPU had time): false until then.
	 */
	kp_json_set(o, "profiled",
	            row->evaluated && row->outcome == KP_OUTCOME_CORRECT
	                ? json_boolean(kp__run_profiled(s, row->id))
	                : NULL);
	kp_json_set(
	    o, "reason",
	    kp_run_verdict_reason(verdict, kp_json_str(o, "outcome", NULL), log.len ? log.buf : NULL));
	kp_json_set(o, "verdict", verdict);
out:
	kp_buf_release(&log);
	kp_buf_release(&fb);
	kp_buf_release(&fj);
	kp_buf_release(&vj);
	return rc;
}

/* The reason alone, for a list of versions (the tree) that does not carry every log and verdict. */
static int add_reason(struct kp_store *s, json_t *o, const struct kp_node_row *row, struct kp_error *err)
{
	struct kp_buf log = KP_BUF_INIT, vj = KP_BUF_INIT;
	json_t *full = NULL, *verdict = NULL;
	int rc = 0;

	if (row->evaluated && row->outcome != KP_OUTCOME_CORRECT &&
	    !(rc = kp_store_eval_text(s, row->id, &log, NULL, NULL, err)) &&
	    !(rc = kp_store_verdict_get(s, row->id, &vj, err))) {
		full = parsed_or_null(&vj);
		verdict = verdict_brief(full);
	}
	kp_json_set(
	    o, "reason",
	    kp_run_verdict_reason(verdict, kp_json_str(o, "outcome", NULL), log.len ? log.buf : NULL));
	json_decref(full);
	json_decref(verdict);
	kp_buf_release(&log);
	kp_buf_release(&vj);
	return rc;
}

int kp_run_node_json(struct kp_run *r, const struct kp_node_row *row, unsigned parts, json_t **out,
                     struct kp_error *err)
{
	json_t *o = json_object();
	int rc = 0;

	*out = NULL;
	kp_json_set(o, "node", json_integer(row->id));
	kp_json_set(o, "parent", row->parent ? json_integer(row->parent) : NULL);
	kp_json_set(o, "kind", json_string(kp_node_kind_name(row->kind)));
	kp_json_set(o, "outcome", json_string(row->evaluated ? kp_outcome_name(row->outcome) : "pending"));
	kp_json_set(o, "speedup", speedup_json(row));
	kp_json_set(o, "time_ms", kp_json_real(row->time_ms));
	if (parts & KP_RUN_NODE_TREE)
		add_tree(o, row);
	if ((parts & KP_RUN_NODE_EVAL) && (rc = add_eval(r->store, o, row, err)))
		goto out;
	if ((parts & (KP_RUN_NODE_REASON | KP_RUN_NODE_EVAL)) == KP_RUN_NODE_REASON &&
	    (rc = add_reason(r->store, o, row, err)))
		goto out;
	if (parts & KP_RUN_NODE_PROFILE) {
		struct kp_buf prof = KP_BUF_INIT;
		if (!(rc = kp_store_profile_get(r->store, row->id, &prof, err)))
			kp_json_set(o, "profile", parsed_or_null(&prof));
		kp_buf_release(&prof);
		if (rc)
			goto out;
	}
	if (parts & KP_RUN_NODE_SOURCE) {
		struct kp_buf src = KP_BUF_INIT;
		struct kp_error absent = KP_ERROR_INIT;
		char lang[16] = "";
		kp_store_candidate_get(r->store, row->id, &src, lang, &absent); /* none: an empty source */
		kp_json_set(o, "lang", json_string(lang));
		kp_json_set(o, "source", json_string(src.buf ? src.buf : ""));
		kp_buf_release(&src);
	}
out:
	if (rc)
		json_decref(o);
	else
		*out = o;
	return rc;
}

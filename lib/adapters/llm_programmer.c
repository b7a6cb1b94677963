/*
 * The search's programmer backed by lib/programmer and an LLM: turns a search request into the
 * programmer's context (mode, parent code, failure evidence, times, feedback, memory) and hands
 * every prompt and reply back to the search, which saves them in the run database.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/codesearch.h"
#include "kernelpro/log.h"
#include "kernelpro/search_backends.h"

struct llm_prog {
	struct kp_search_programmer base;
	struct kp_programmer *prog;
	struct kp_llm *llm;            /* borrowed, for cancel */
	enum kp_cand_format format;
	char *task_text;
	struct kp_reactive *reactive;  /* borrowed; NULL: proactive */
	struct kp_cs_index *codesearch; /* borrowed; NULL: no CUTLASS code search */
};

/* One generation, as the hooks see it (kp_prog_ctx.user). */
struct llm_gen {
	struct kp_search_child *out;
	const struct kp_search_request *req;
};

/* A conversation as one text: what was sent, with role headers, for the run's records. */
static void conversation_text(const struct kp_prog_exchange *ex, struct kp_buf *out)
{
	if (ex->system && *ex->system)
		kp_buf_addf(out, "[system]\n%s\n\n", ex->system);
	for (size_t i = 0; i < ex->nmsgs; i++)
		kp_buf_addf(out, "[%s]\n%s\n\n", ex->msgs[i].role == KP_LLM_ASSISTANT ? "assistant" : "user",
			    ex->msgs[i].content);
	kp_buf_rtrim(out);
}

/* Hook: every prompt sent and reply received, into the result of the generation it belongs to. */
static void on_exchange(void *ud, const struct kp_prog_exchange *ex)
{
	struct kp_search_child *out = ((struct llm_gen *)ex->ctx->user)->out;
	struct kp_search_exchange x = {0};
	struct kp_buf prompt = KP_BUF_INIT;

	conversation_text(ex, &prompt);
	x.prompt = prompt.buf;
	x.reply = (char *)ex->reply;
	x.error = ex->err ? (char *)kp_error_msg(ex->err) : NULL;
	if (ex->usage) {
		x.tokens_in = ex->usage->input_tokens;
		x.tokens_out = ex->usage->output_tokens;
		x.cost = ex->usage->cost_known ? ex->usage->cost_usd : 0;
		x.latency_s = ex->usage->elapsed_s;
	}
	kp_search_child_add_exchange(out, &x);
	kp_buf_release(&prompt);
}

/* Hook: "tool: NAME" from the model, run on the parent's saved profile (reactive orchestration). */
static int on_tool(void *ud, const struct kp_prog_ctx *ctx, const char *name, const char *args, struct kp_buf *out,
		   struct kp_error *err)
{
	struct llm_prog *lp = ud;
	const struct llm_gen *g = ctx->user;
	(void)args; /* the tools take none */
	return kp_reactive_call(lp->reactive, g->req->parent_profile, name, out, err);
}

/* Hook: "search: QUERY" from the model, answered from the CUTLASS/CuTe index (reactive orchestration). */
static int on_search(void *ud, const struct kp_prog_ctx *ctx, const char *query, struct kp_buf *out,
		     struct kp_error *err)
{
	struct llm_prog *lp = ud;
	const struct llm_gen *g = ctx->user;
	struct kp_strvec refs = KP_STRVEC_INIT;
	int rc = kp_cs_answer(lp->codesearch, query, KP_CS_ANSWER_TOKENS, out, &refs, err);
	for (size_t i = 0; i < refs.n; i++) /* search memory keeps what was shown */
		kp_search_child_add_query(g->out, query, refs.v[i]);
	kp_strvec_release(&refs);
	return rc < 0 ? rc : 0;
}

/* Proactive: CUTLASS/CuTe snippets for the parent's findings, recorded as the generation's queries. */
static void findings_snippets(struct llm_prog *lp, const struct kp_search_request *req, struct kp_search_child *out,
			      struct kp_buf *text)
{
	struct kp_strvec refs = KP_STRVEC_INIT;
	struct kp_error err = KP_ERROR_INIT;
	if (kp_cs_for_findings(lp->codesearch, req->parent_findings, KP_CS_DEFAULT_TOKENS, text, &refs, &err) < 0)
		kp_warn("code search for #%ld's findings: %s", req->parent_id, kp_error_msg(&err));
	for (size_t i = 0; i < refs.n; i++)
		kp_search_child_add_query(out, "snippets for the findings", refs.v[i]);
	kp_strvec_release(&refs);
}

static enum kp_prog_failure failure_of(enum kp_outcome o)
{
	switch (o) {
	case KP_OUTCOME_COMPILE_ERROR:
		return KP_PROG_FAIL_COMPILE;
	case KP_OUTCOME_RUNTIME_ERROR:
		return KP_PROG_FAIL_RUNTIME;
	case KP_OUTCOME_TIMEOUT:
		return KP_PROG_FAIL_TIMEOUT;
	case KP_OUTCOME_WRONG_OUTPUT:
		return KP_PROG_FAIL_WRONG_OUTPUT;
	case KP_OUTCOME_CHEAT_SUSPECTED:
		return KP_PROG_FAIL_CHEAT;
	default:
		return KP_PROG_FAIL_NONE;
	}
}

/*
 * The model's own one-line account of its change: the prompts ask for a sentence or two before the
 * code block. Its first sentence, at most SUMMARY_MAX bytes; NULL when the reply starts with code.
 */
#define SUMMARY_MAX 200
static char *reply_summary(const char *reply)
{
	const char *p = reply, *end;
	if (!reply)
		return NULL;
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' || *p == '#' || *p == '*')
		p++;
	end = strstr(p, "```");
	if (!end)
		end = p + strlen(p);
	for (const char *c = p; c < end; c++) {
		if ((*c == '.' && (c + 1 == end || c[1] == ' ' || c[1] == '\n')) || (*c == '\n' && c[1] == '\n')) {
			end = *c == '.' ? c + 1 : c;
			break;
		}
	}
	while (end > p && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == ':'))
		end--;
	if (end <= p)
		return NULL;
	if (end - p > SUMMARY_MAX)
		end = p + SUMMARY_MAX;
	char *s = kp_xstrndup(p, (size_t)(end - p));
	for (char *c = s; *c; c++)
		if (*c == '\n' || *c == '\r' || *c == '\t')
			*c = ' ';
	return s;
}

static double seconds(double ms)
{
	return isfinite(ms) ? ms / 1e3 : NAN;
}

static int llm_generate(struct kp_search_programmer *base, const struct kp_search_request *req,
			struct kp_search_child *out, struct kp_error *err)
{
	struct llm_prog *lp = base->priv;
	struct kp_prog_ctx ctx;
	struct kp_prog_result res = {0};
	struct llm_gen g = {out, req};
	struct kp_buf cs_text = KP_BUF_INIT;
	enum kp_cand_format parent_format;
	char tag[64];
	int rc;

	kp_prog_ctx_init(&ctx);
	ctx.mode = req->mode;
	ctx.format = lp->format;
	if (req->format && kp_cand_format_parse(req->format, &ctx.format))
		return kp_error_set(err, KP_EINVAL, "the search asked for candidate format '%s', which the programmer "
						    "does not know", req->format);
	if (req->parent_format && kp_cand_format_parse(req->parent_format, &parent_format) == 0)
		ctx.parent_kernels = kp_cand_format_kernels(parent_format); /* the prompt asks for a port when it differs */
	ctx.task_name = req->task_name;
	ctx.task_text = lp->task_text;
	ctx.reference_code = req->reference_source;
	ctx.stage1_text = req->stage1;
	ctx.hardware_text = req->hardware;
	ctx.memory_text = req->memory;
	ctx.parent_code = req->parent_source;
	ctx.reference_time_s = seconds(req->ref_time_ms);
	ctx.parent_time_s = seconds(req->parent_time_ms);
	ctx.best_time_s = seconds(req->best_time_ms);
	if (lp->reactive && req->mode == KP_PROG_OPTIMIZE)
		ctx.tools_text = kp_reactive_menu(lp->reactive); /* offered instead of the feedback */
	else
		ctx.feedback_text = req->feedback;
	if (lp->codesearch && !lp->reactive && req->mode == KP_PROG_OPTIMIZE && req->parent_findings) {
		findings_snippets(lp, req, out, &cs_text);
		ctx.codesearch_text = cs_text.len ? cs_text.buf : NULL;
	}
	if (req->mode == KP_PROG_DEBUG) {
		ctx.failure = failure_of(req->parent_outcome);
		if (ctx.failure == KP_PROG_FAIL_COMPILE)
			ctx.compile_log = req->parent_log;
		else if (ctx.failure == KP_PROG_FAIL_WRONG_OUTPUT)
			ctx.wrong.where = req->parent_log;
		else
			ctx.runtime_log = req->parent_log;
	}
	snprintf(tag, sizeof(tag), "from-%ld-%s", req->parent_id, kp_prog_mode_name(req->mode));
	ctx.tag = tag;
	ctx.user = &g;
	rc = kp_programmer_generate(lp->prog, &ctx, &res, err);
	if (rc)
		goto out;
	out->tool_calls = res.tool_calls;
	if (res.rejected || !res.code) {
		out->error = kp_xstrdup(res.reason[0] ? res.reason : "the reply held no code");
		goto out;
	}
	out->source = kp_xstrdup(res.code);
	out->summary = reply_summary(res.reply);
out:
	kp_prog_result_release(&res);
	kp_buf_release(&cs_text);
	return rc;
}

static void llm_cancel(struct kp_search_programmer *base)
{
	struct llm_prog *lp = base->priv;
	if (lp->llm)
		kp_llm_cancel(lp->llm);
}

static void llm_free(struct kp_search_programmer *base)
{
	struct llm_prog *lp = base->priv;
	kp_programmer_free(lp->prog);
	free(lp->task_text);
	free(lp);
}

int kp_llm_programmer_new(struct kp_search_programmer **out, struct kp_llm *llm,
			  const struct kp_programmer_opts *opts, enum kp_cand_format format, const char *task_text,
			  struct kp_reactive *reactive, struct kp_cs_index *codesearch, int max_parallel,
			  struct kp_error *err)
{
	struct llm_prog *lp = kp_xcalloc(1, sizeof(*lp));
	struct kp_programmer_opts o = *opts;
	int rc;

	*out = NULL;
	o.hooks.exchange = on_exchange;
	o.hooks.tool = reactive ? on_tool : NULL;
	o.hooks.search = reactive && codesearch ? on_search : NULL;
	o.hooks.ud = lp;
	rc = kp_programmer_new(&lp->prog, llm, &o, err);
	if (rc) {
		free(lp);
		return rc;
	}
	lp->llm = llm;
	lp->format = format;
	lp->reactive = reactive;
	lp->codesearch = codesearch;
	lp->task_text = task_text ? kp_xstrdup(task_text) : NULL;
	lp->base.name = "llm";
	lp->base.max_parallel = max_parallel > 0 ? max_parallel : 1;
	lp->base.generate = llm_generate;
	lp->base.cancel = llm_cancel;
	lp->base.free = llm_free;
	lp->base.priv = lp;
	*out = &lp->base;
	return 0;
}

/* The programmer: loads the templates, asks the LLM, answers its search and tool requests, extracts the code. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/fs.h"
#include "kernelpro/str.h"
#include "programmer/prog_int.h"

#define TEMPLATE_CAP (256u << 10)
#define ANSWER_MAX 6000 /* characters of one search or tool answer given back to the model */

static const char *const tmpl_files[KP_NPT] = {
	[KP_PT_SYSTEM] = "system.txt",	    [KP_PT_INITIAL] = "initial.txt",	 [KP_PT_DEBUG] = "debug.txt",
	[KP_PT_OPTIMIZE] = "optimize.txt",  [KP_PT_TOOLS] = "tools.txt",	 [KP_PT_FMT_CUDA] = "format-cuda.txt",
	[KP_PT_FMT_TORCH] = "format-torch.txt", [KP_PT_FMT_TRITON] = "format-triton.txt",
	[KP_PT_KNOBS_CUDA] = "knobs-cuda.txt",
	[KP_PT_KNOBS_TORCH] = "knobs-torch.txt",
	[KP_PT_KNOBS_TRITON] = "knobs-triton.txt",
};

void kp_prog_ctx_init(struct kp_prog_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->wrong.max_abs_err = ctx->wrong.max_rel_err = NAN;
	ctx->wrong.atol = ctx->wrong.rtol = NAN;
	ctx->wrong.mismatched = ctx->wrong.total = -1;
	ctx->reference_time_s = ctx->parent_time_s = ctx->best_time_s = NAN;
}

void kp_prog_result_release(struct kp_prog_result *r)
{
	free(r->code);
	free(r->reply);
	free(r->system);
	free(r->prompt);
	memset(r, 0, sizeof(*r));
}

/* A user's directory first (only the files it has), then the bundled prompts/. */
static int load_template(struct kp_programmer *pg, int id, struct kp_error *err)
{
	struct kp_buf path = KP_BUF_INIT, text = KP_BUF_INIT;
	char *bundled = NULL;
	int rc;

	if (pg->prompts_dir) {
		kp_path_join(&path, pg->prompts_dir, tmpl_files[id]);
		if (!kp_path_exists(path.buf))
			kp_buf_reset(&path);
	}
	if (!path.len) {
		struct kp_buf rel = KP_BUF_INIT;
		kp_buf_addf(&rel, "prompts/%s", tmpl_files[id]);
		bundled = kp_find_data(rel.buf);
		kp_buf_release(&rel);
		if (!bundled) {
			rc = kp_error_set(err, KP_ENOENT,
					  "programmer: prompt template 'prompts/%s' not found; set KERNELPRO_HOME to the "
					  "kernelpro source or install directory",
					  tmpl_files[id]);
			goto out;
		}
		kp_buf_adds(&path, bundled);
	}
	rc = kp_read_file(path.buf, TEMPLATE_CAP, &text, err);
	if (!rc)
		rc = kp_tmpl_parse(&pg->t[id], path.buf, kp_buf_detach(&text, NULL), err);
out:
	free(bundled);
	kp_buf_release(&path);
	kp_buf_release(&text);
	return rc;
}

int kp_programmer_new(struct kp_programmer **out, struct kp_llm *llm, const struct kp_programmer_opts *opts,
		      struct kp_error *err)
{
	struct kp_programmer *pg = kp_xcalloc(1, sizeof(*pg));
	int rc = 0;

	*out = NULL;
	pg->llm = llm;
	if (opts)
		pg->opts = *opts;
	pg->prompts_dir = pg->opts.prompts_dir ? kp_xstrdup(pg->opts.prompts_dir) : NULL;
	pg->opts.prompts_dir = pg->prompts_dir;
	pg->max_rounds = pg->opts.max_tool_rounds < 0 ? 3 : pg->opts.max_tool_rounds;
	pg->max_prompt = pg->opts.max_prompt_chars ? pg->opts.max_prompt_chars : KP_PROG_DEFAULT_MAX_PROMPT;
	if (pg->prompts_dir && !kp_path_is_dir(pg->prompts_dir)) {
		rc = kp_error_set(err, KP_ENOENT, "programmer: prompts directory '%s' does not exist", pg->prompts_dir);
		goto out;
	}
	for (int i = 0; i < KP_NPT && !rc; i++)
		rc = load_template(pg, i, err);
out:
	if (rc) {
		kp_programmer_free(pg);
		return rc;
	}
	*out = pg;
	return 0;
}

void kp_programmer_free(struct kp_programmer *p)
{
	if (!p)
		return;
	for (int i = 0; i < KP_NPT; i++)
		kp_tmpl_release(&p->t[i]);
	free(p->prompts_dir);
	free(p);
}

int kp_programmer_prompt(struct kp_programmer *p, const struct kp_prog_ctx *ctx, struct kp_buf *system,
			 struct kp_buf *user, struct kp_error *err)
{
	return kp_prog_build(p, ctx, system, user, err);
}

/* --- Generation --------------------------------------------------------------------------------------- */

/* One conversation in progress. */
struct gen {
	const struct kp_prog_ctx *ctx;
	struct kp_prog_result *res;
	struct kp_error *err;
	struct kp_buf system;
	struct kp_llm_msg *msgs;   /* contents owned */
	size_t nmsgs, alloc;
	int offered;               /* the request protocol was in the prompt */
	int done;
	int rc;
};

static void gen_push(struct gen *g, enum kp_llm_role role, char *content)
{
	KP_ALLOC_GROW(g->msgs, g->nmsgs + 1, g->alloc);
	g->msgs[g->nmsgs].role = role;
	g->msgs[g->nmsgs].content = content;
	g->nmsgs++;
}

static void gen_release(struct gen *g)
{
	for (size_t i = 0; i < g->nmsgs; i++)
		free((char *)g->msgs[i].content);
	free(g->msgs);
	kp_buf_release(&g->system);
}

/* The answers to one round of requests, as the next user message. */
static char *answer(struct kp_programmer *pg, struct gen *g, const struct kp_prog_request *rq, size_t n)
{
	const struct kp_prog_hooks *h = &pg->opts.hooks;
	struct kp_buf msg = KP_BUF_INIT, a = KP_BUF_INIT;
	int left = pg->max_rounds - g->res->rounds - 1;

	kp_buf_adds(&msg, "Answers to your requests:\n");
	for (size_t i = 0; i < n; i++) {
		struct kp_error herr = KP_ERROR_INIT;
		int rc;
		kp_buf_reset(&a);
		if (rq[i].is_tool) {
			kp_buf_addf(&msg, "\n### tool: %s%s%s\n", rq[i].name, *rq[i].text ? " " : "", rq[i].text);
			if (!h->tool || !g->ctx->tools_text)
				rc = kp_error_set(&herr, KP_EUNSUPPORTED, "profiling tools are not available in this run");
			else
				rc = h->tool(h->ud, g->ctx, rq[i].name, rq[i].text, &a, &herr);
		} else {
			kp_buf_addf(&msg, "\n### search: %s\n", rq[i].text);
			if (!h->search)
				rc = kp_error_set(&herr, KP_EUNSUPPORTED, "code search is not available in this run");
			else
				rc = h->search(h->ud, g->ctx, rq[i].text, &a, &herr);
		}
		if (rc)
			kp_buf_addf(&msg, "error: %s\n", kp_error_msg(&herr));
		else if (!a.len)
			kp_buf_adds(&msg, "(nothing found)\n");
		else {
			struct kp_buf t = KP_BUF_INIT;
			kp_prog_trim_log(a.buf, ANSWER_MAX, &t);
			kp_buf_add(&msg, t.buf, t.len);
			kp_buf_release(&t);
		}
	}
	if (left > 0)
		kp_buf_addf(&msg, "\nYou may ask again (%d more round%s), or reply with the complete file now.\n", left,
			    left == 1 ? "" : "s");
	else
		kp_buf_adds(&msg, "\nThat was the last round of requests: now reply with the complete file.\n");
	kp_buf_release(&a);
	return kp_buf_detach(&msg, NULL);
}

/* Reads one reply: another round of requests, the code, or a rejection. */
static void take_reply(struct kp_programmer *pg, struct gen *g, const struct kp_llm_reply *r)
{
	struct kp_prog_result *res = g->res;
	struct kp_prog_request rq[KP_PROG_MAX_REQUESTS];
	size_t nrq = g->offered ? kp_prog_parse_requests(r->text, r->len, rq, KP_PROG_MAX_REQUESTS) : 0;
	struct kp_buf code = KP_BUF_INIT;

	free(res->reply);
	res->reply = kp_xstrdup(r->text);
	if (nrq && !kp_prog_has_code_block(r->text, r->len)) {
		if (res->rounds >= pg->max_rounds) {
			res->rejected = 1;
			snprintf(res->reason, sizeof(res->reason),
				 "the reply asked for more information after the last of %d %s, with no code; reply "
				 "with the complete file",
				 pg->max_rounds, kp_plural(pg->max_rounds, "round", "rounds"));
			g->done = 1;
			return;
		}
		gen_push(g, KP_LLM_ASSISTANT, kp_xstrdup(r->text));
		gen_push(g, KP_LLM_USER, answer(pg, g, rq, nrq));
		res->rounds++;
		res->tool_calls += (int)nrq;
		return;
	}
	if (kp_prog_extract(r->text, r->len, g->ctx->format, g->ctx->entry_points, r->truncated, &code, res->reason,
			    sizeof(res->reason)))
		res->rejected = 1;
	else
		res->code = kp_buf_detach(&code, NULL);
	kp_buf_release(&code);
	g->done = 1;
}

/* Over 80 lines: requests built, sent together, then each reply extracted and recorded; the three
 * stages share the per-request arrays that one cleanup frees. */
int kp_programmer_generate_many(struct kp_programmer *p, const struct kp_prog_ctx *const *ctxs, size_t n,
				struct kp_prog_result *out, struct kp_error *errs)
{
	struct gen *g = kp_xcalloc(n ? n : 1, sizeof(*g));
	struct kp_llm_request *reqs = kp_xcalloc(n ? n : 1, sizeof(*reqs));
	struct kp_llm_reply *reps = kp_xcalloc(n ? n : 1, sizeof(*reps));
	struct kp_error *rerrs = kp_xcalloc(n ? n : 1, sizeof(*rerrs));
	size_t *idx = kp_xcalloc(n ? n : 1, sizeof(*idx));
	int first = 0;

	for (size_t i = 0; i < n; i++) {
		struct kp_buf user = KP_BUF_INIT;
		struct gen *gi = &g[i];
		gi->ctx = ctxs[i];
		gi->res = &out[i];
		gi->err = errs ? &errs[i] : NULL;
		memset(gi->res, 0, sizeof(*gi->res));
		if (!p->llm) {
			gi->rc = kp_error_set(gi->err, KP_EINVAL, "programmer: no LLM backend (built for prompts only)");
			gi->done = 1;
			continue;
		}
		gi->rc = kp_prog_build(p, gi->ctx, &gi->system, &user, gi->err);
		if (gi->rc) {
			gi->done = 1;
			kp_buf_release(&user);
			continue;
		}
		gi->offered = p->max_rounds > 0 &&
			      (p->opts.hooks.search || (p->opts.hooks.tool && gi->ctx->tools_text && *gi->ctx->tools_text));
		gi->res->system = kp_xstrdup(gi->system.buf);
		gi->res->prompt = kp_xstrdup(user.buf);
		gen_push(gi, KP_LLM_USER, kp_buf_detach(&user, NULL));
	}

	for (;;) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (g[i].done)
				continue;
			reqs[k] = (struct kp_llm_request){g[i].system.buf, g[i].msgs, g[i].nmsgs, g[i].ctx->tag};
			memset(&rerrs[k], 0, sizeof(rerrs[k]));
			idx[k++] = i;
		}
		if (!k)
			break;
		kp_llm_complete_many(p->llm, reqs, k, reps, rerrs);
		for (size_t j = 0; j < k; j++) {
			struct gen *gi = &g[idx[j]];
			int failed = rerrs[j].code != 0;
			if (p->opts.hooks.exchange) {
				struct kp_prog_exchange ex = {gi->ctx,	      gi->res->rounds,
							      gi->system.buf, gi->msgs,
							      gi->nmsgs,      failed ? NULL : reps[j].text,
							      failed ? NULL : &reps[j].usage,
							      failed ? NULL : reps[j].prompt_hash,
							      failed ? &rerrs[j] : NULL};
				p->opts.hooks.exchange(p->opts.hooks.ud, &ex);
			}
			if (failed) {
				gi->rc = kp_error_set(gi->err, rerrs[j].code, "%s", rerrs[j].msg);
				gi->done = 1;
				continue;
			}
			if (gi->res->rounds == 0)
				memcpy(gi->res->prompt_hash, reps[j].prompt_hash, sizeof(gi->res->prompt_hash));
			kp_llm_usage_add(&gi->res->usage, &reps[j].usage);
			take_reply(p, gi, &reps[j]);
			kp_llm_reply_release(&reps[j]);
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (g[i].rc && !first)
			first = g[i].rc;
		gen_release(&g[i]);
	}
	free(g);
	free(reqs);
	free(reps);
	free(rerrs);
	free(idx);
	return first;
}

int kp_programmer_generate(struct kp_programmer *p, const struct kp_prog_ctx *ctx, struct kp_prog_result *out,
			   struct kp_error *err)
{
	return kp_programmer_generate_many(p, &ctx, 1, out, err);
}

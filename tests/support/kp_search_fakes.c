/* A scripted programmer and a fake harness for the search and run tests (kp_search_fakes.h). */
#include "base/setup.h"

#include <math.h>
#include <unistd.h>

#include "kp_test.h"
#include "kp_search_fakes.h"

/* ---- a scripted programmer ------------------------------------------------------------------- */

static int fake_generate(struct kp_search_programmer *p, const struct kp_search_request *ctx,
			 struct kp_search_child *out, struct kp_error *err)
{
	struct fake_prog *f = (struct fake_prog *)p;
	struct kp_search_exchange x = {0};
	char src[1024], prompt[512], summary[64];
	int call;
	struct step s = {"correct", 1.0};
	const char *extra = NULL;

	pthread_mutex_lock(&f->mu);
	call = ++f->calls;
	if (++f->in_flight > f->max_in_flight)
		f->max_in_flight = f->in_flight;
	if (f->next < f->nscript)
		s = f->script[f->next++];
	else
		s.speedup = 1.0 + 0.01 * call;
	if ((size_t)call <= f->nextras)
		extra = f->extras[call - 1];
	if (ctx->mode == KP_PROG_DEBUG) {
		f->debug_calls++;
		snprintf(f->last_debug_log, sizeof(f->last_debug_log), "%s",
			 ctx->parent_log ? ctx->parent_log : "");
	} else if (ctx->mode == KP_PROG_OPTIMIZE) {
		char mark[32];
		snprintf(mark, sizeof(mark), "\"node\":%ld", ctx->parent_id);
		f->optimize_calls++;
		if (ctx->parent_profile && strstr(ctx->parent_profile, mark))
			f->optimize_with_profile++;
		else
			f->optimize_without_profile++;
	} else {
		f->initial_calls++;
	}
	snprintf(f->last_memory, sizeof(f->last_memory), "%s", ctx->memory ? ctx->memory : "");
	pthread_mutex_unlock(&f->mu);

	if (f->sleep_ms)
		usleep((useconds_t)f->sleep_ms * 1000);
	pthread_mutex_lock(&f->mu);
	f->in_flight--;
	pthread_mutex_unlock(&f->mu);
	if (f->hard_error_at && call == f->hard_error_at)
		return kp_error_set(err, KP_EAUTH, "fake: key rejected");

	snprintf(prompt, sizeof(prompt), "mode=%s parent=%ld task=%s", kp_prog_mode_name(ctx->mode),
		 ctx->parent_id, ctx->task_name);
	snprintf(src, sizeof(src),
	         "// candidate %d\n__global__ void k() { float4 v; }\noutcome=%s\nspeed=%.17g\n%s", call,
	         s.outcome, s.speedup, extra ? extra : "");
	snprintf(summary, sizeof(summary), "change %d", call);
	x.prompt = prompt;
	x.reply = f->no_code ? "I cannot help with that." : src;
	x.tokens_in = f->tokens_per_call / 2;
	x.tokens_out = f->tokens_per_call - x.tokens_in;
	x.cost = 0.001;
	kp_search_child_add_exchange(out, &x);
	if (f->no_code) {
		out->error = kp_xstrdup("the reply had no code block");
		return 0;
	}
	out->source = kp_xstrdup(src);
	out->summary = kp_xstrdup(summary);
	if (call == 1)
		kp_search_child_add_query(out, "cute tiled copy", "include/cute/algorithm/copy.hpp");
	return 0;
}

void fake_prog_init(struct fake_prog *f, const struct step *script, size_t n)
{
	memset(f, 0, sizeof(*f));
	f->base.name = "fake";
	f->base.max_parallel = 16;
	f->base.generate = fake_generate;
	pthread_mutex_init(&f->mu, NULL);
	f->script = script;
	f->nscript = n;
	f->tokens_per_call = 100;
}

/* ---- a fake harness -------------------------------------------------------------------------- */

static int fake_reference(struct kp_search_evaluator *e, struct kp_search_eval *out, struct kp_error *err)
{
	struct fake_eval *f = (struct fake_eval *)e;
	f->reference_calls++;
	if (f->clock)
		*f->clock += f->tick_s;
	out->outcome = KP_OUTCOME_CORRECT;
	out->time_ms = 10.0;
	if (f->gpu_s > 0)
		out->gpu_s = f->gpu_s;
	out->stage1 = kp_xstrdup("memory-bound: 1.2 TB/s of 4.2 TB/s (29%)");
	out->hardware = kp_xstrdup("NVIDIA H200 (fake)");
	out->feedback = kp_xstrdup("coalescing: strided loads");
	out->findings_json =
	    kp_xstrdup("[{\"tool\":\"coalescing\",\"severity\":\"high\",\"title\":\"strided loads\","
		       "\"recommendations\":[\"load float4 per thread\"]}]");
	return 0;
}

/* The value the first KP_TUNE marker of `source` starts with (the variant's choice), 0 when none. */
static long knob_value(const char *source)
{
	const char *m = strstr(source, "KP_TUNE(");
	long v = 0;
	if (m)
		sscanf(m, "KP_TUNE(%*[A-Za-z0-9_], %ld", &v);
	return v;
}

/* The verdict the source asks for: "outcome=", "speed=", and their "@VALUE" forms for a knob value. */
static void judge(const char *source, long node_id, struct kp_search_eval *out)
{
	const char *o = strstr(source, "outcome="), *s = strstr(source, "speed=");
	char name[32] = "", key[48];
	double speed = 1.0;
	long v = knob_value(source);

	if (v) {
		snprintf(key, sizeof(key), "outcome@%ld=", v);
		if (strstr(source, key))
			o = strstr(source, key) + strlen(key) - strlen("outcome=");
		snprintf(key, sizeof(key), "speed@%ld=", v);
		if (strstr(source, key))
			s = strstr(source, key) + strlen(key) - strlen("speed=");
	}
	if (o)
		sscanf(o + strlen("outcome="), "%31[a-z_]", name);
	if (s)
		sscanf(s + strlen("speed="), "%lf", &speed);
	out->outcome = kp_outcome_parse(name);
	if (out->outcome == KP_OUTCOME_NONE)
		fail_msg("bad fake candidate '%s'", source);
	out->ref_time_ms = 10.0;
	if (out->outcome == KP_OUTCOME_CORRECT) {
		out->time_ms = 10.0 / speed;
		out->speedup = speed;
		out->feedback = kp_xstrdup("occupancy: 50% achieved");
		out->findings_json =
		    kp_xstrdup("[{\"tool\":\"occupancy\",\"severity\":\"medium\",\"title\":\"low occupancy\","
		               "\"recommendations\":[\"fewer registers\"]}]");
	} else {
		out->speedup = speed; /* a failure may still report a time: it must never count */
		out->log = kp_xasprintf("kernel.cu(%ld): error: identifier \"vec_t\" is undefined", node_id);
	}
}

static int fake_evaluate(struct kp_search_evaluator *e, long node_id, const char *source, const char *lang,
			 struct kp_search_eval *out, struct kp_error *err)
{
	struct fake_eval *f = (struct fake_eval *)e;

	if (f->busy)
		fail_msg("two candidates evaluated at once");
	f->busy = 1;
	if (f->base.prepare) {
		pthread_mutex_lock(&f->mu);
		f->unprepared_evals += f->max_prepared < node_id;
		pthread_mutex_unlock(&f->mu);
		for (int ms = 0; ms < f->wait_next_ms; ms++) {
			int ahead;
			pthread_mutex_lock(&f->mu);
			ahead = f->max_prepared > node_id;
			pthread_mutex_unlock(&f->mu);
			if (ahead) {
				f->ahead_seen++;
				break;
			}
			usleep(1000);
		}
	}
	if (f->gpu_s > 0)
		out->gpu_s = f->gpu_s;
	if (!f->evals)
		f->first_id = node_id;
	if (f->prog) {
		pthread_mutex_lock(&f->prog->mu);
		if (f->prog->in_flight > 0)
			f->overlap_seen = 1;
		pthread_mutex_unlock(&f->prog->mu);
	}
	if (f->sleep_ms)
		usleep((useconds_t)f->sleep_ms * 1000);
	f->evals++;
	if (f->clock)
		*f->clock += f->tick_s;
	judge(source, node_id, out);
	if (f->base.profile) {
		/* The diagnosis is profile()'s. */
		free(out->feedback);
		free(out->findings_json);
		out->feedback = out->findings_json = NULL;
	}
	f->busy = 0;
	if (f->stop && f->stop_after && f->evals >= f->stop_after)
		*f->stop = 1;
	return 0;
}

/* One variant of a tuning (kp_search_tune_each): judged as a candidate, never while another evaluation runs.
 */
struct fake_tuning {
	struct fake_eval *f;
	long node;
};

static int fake_variant(void *ctx, const char *source, struct kp_search_eval *out, struct kp_error *err)
{
	struct fake_tuning *t = ctx;
	struct fake_eval *f = t->f;

	if (f->busy)
		fail_msg("a variant evaluated while a candidate was");
	if (f->prog) {
		pthread_mutex_lock(&f->prog->mu);
		if (f->prog->in_flight > 0)
			f->overlap_seen = 1;
		pthread_mutex_unlock(&f->prog->mu);
	}
	if (f->fail_at_variant && f->variants + 1 == f->fail_at_variant)
		return kp_error_set(err, KP_ENODEV, "fake: the GPU fell off the bus");
	f->variants++;
	if (f->clock)
		*f->clock += f->tick_s;
	judge(source, t->node, out);
	if (f->stop && f->stop_after_variants && f->variants >= f->stop_after_variants)
		*f->stop = 1;
	return 0;
}

static int fake_tune(struct kp_search_evaluator *e, const struct kp_search_tune_req *req,
                     struct kp_search_tuning *out, struct kp_error *err)
{
	struct fake_eval *f = (struct fake_eval *)e;
	struct fake_tuning t = {f, req->node_id};
	struct kp_search_tune_req r = *req;
	f->tunes++;
	r.tune.gpu = "fake GPU";
	return kp_search_tune_each(&r, fake_variant, &t, out, err);
}

static int fake_profile(struct kp_search_evaluator *e, long node_id, const char *source, const char *lang,
                        struct kp_search_eval *out, struct kp_error *err)
{
	struct fake_eval *f = (struct fake_eval *)e;

	if (f->busy)
		fail_msg("a profile ran while a candidate was evaluated");
	if (!strstr(source, "outcome=correct") || !lang)
		fail_msg("profile() of #%ld, not a correct version", node_id);
	f->busy = 1;
	if (f->prog) {
		pthread_mutex_lock(&f->prog->mu);
		if (f->prog->in_flight > 0)
			f->overlap_seen = 1;
		pthread_mutex_unlock(&f->prog->mu);
	}
	f->profiles++;
	if (node_id >= 0 && node_id < (long)KP_ARRAY_SIZE(f->profiled))
		f->profiled[node_id]++;
	if (f->clock)
		*f->clock += f->tick_s;
	if (f->gpu_s > 0)
		out->gpu_s = f->gpu_s;
	out->profile_json = kp_xasprintf("{\"dir\":\"profiles/%ld\",\"node\":%ld}", node_id, node_id);
	out->feedback = kp_xasprintf("occupancy: 50%% achieved (#%ld)", node_id);
	out->findings_json =
	    kp_xstrdup("[{\"tool\":\"occupancy\",\"severity\":\"medium\",\"title\":\"low occupancy\","
	               "\"recommendations\":[\"fewer registers\"]}]");
	f->busy = 0;
	return 0;
}

void fake_eval_lazy(struct fake_eval *f)
{
	f->base.profile = fake_profile;
}

void fake_eval_init(struct fake_eval *f)
{
	memset(f, 0, sizeof(*f));
	f->base.name = "fake";
	f->base.reference = fake_reference;
	f->base.evaluate = fake_evaluate;
	f->base.tune = fake_tune;
}

static void fake_prepare(struct kp_search_evaluator *e, long node_id, const char *source, const char *lang)
{
	struct fake_eval *f = (struct fake_eval *)e;
	if (!strstr(source, "outcome=") || !lang)
		fail_msg("prepare() without the candidate's source");
	pthread_mutex_lock(&f->mu);
	f->prepared++;
	if (node_id > f->max_prepared)
		f->max_prepared = node_id;
	pthread_mutex_unlock(&f->mu);
}

void fake_eval_pipelined(struct fake_eval *f, int wait_next_ms)
{
	fake_eval_init(f);
	pthread_mutex_init(&f->mu, NULL);
	f->base.prepare = fake_prepare;
	f->base.concurrent = 1;
	f->wait_next_ms = wait_next_ms;
}

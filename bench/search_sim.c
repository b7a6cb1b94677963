/*
 * search-sim: compares MCTS with the greedy and beam baselines on a model of how an LLM programmer
 * behaves (success and failure rates, repair rates, the speedup each technique gives, chains of
 * techniques whose first step does not pay off alone), over many seeds at equal evaluation budgets,
 * using the real selection/backup/pruning code of lib/search. Prints geometric-mean final speedups
 * with 95% confidence intervals, and the search's own cost per iteration.
 *
 *   build/bench/search-sim [--seeds N] [--budgets 20,50,100] [--param NAME=VALUE ...] [--overhead-only]
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/run.h"
#include "kernelpro/search.h"
#include "kernelpro/str.h"
#include "kernelpro/strvec.h"

#define MAX_STEPS 8

/* A task family: the techniques that help, and how the programmer behaves. */
struct scenario {
	const char *name;
	const char *what;
	int nsteps;
	double gain[MAX_STEPS];   /* log-speedup each technique adds when applied */
	int prereq[MAX_STEPS];    /* the technique that must come first, -1: none */
	double p_useful;          /* an optimize request applies one of the applicable techniques, */
	                          /* otherwise it re-implements the same techniques (a lateral change) */
	double p_fail;            /* an optimize attempt fails to compile or is wrong */
	double p_fail_initial;
	double p_repair;          /* a repair attempt fixes the failed version */
	double sigma_impl;        /* quality spread of two implementations of the same idea */
	double init_mu, init_sigma; /* the first CUDA version against the reference, log */
	double sigma_meas;        /* timing noise, log */
};

static const struct scenario scenarios[] = {
	{"monotone", "five techniques, each helps on its own",
	 5, {0.30, 0.25, 0.20, 0.15, 0.10}, {-1, -1, -1, -1, -1},
	 0.6, 0.30, 0.40, 0.60, 0.08, -0.10, 0.30, 0.02},
	{"chains", "the big wins need a step that alone makes the kernel slower (tile, then reuse)",
	 6, {-0.15, 0.80, -0.05, 0.50, 0.10, 0.10}, {-1, 0, 1, 2, -1, -1},
	 0.6, 0.35, 0.40, 0.60, 0.08, -0.10, 0.30, 0.02},
	{"fragile", "half the attempts fail; repairs work half the time",
	 5, {0.30, 0.25, 0.20, 0.15, 0.10}, {-1, -1, -1, -1, -1},
	 0.6, 0.55, 0.60, 0.50, 0.08, -0.10, 0.30, 0.02},
};

/* ---- random numbers: xoshiro256** seeded by splitmix64 ------------------------------------------ */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

static double uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static double normal(struct rng *r)
{
	double u = uniform(r), v = uniform(r);
	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* ---- one simulated search ----------------------------------------------------------------------------- */

/*
 * The hidden truth of each node. A version's true log-speedup is its design's starting point
 * (drawn once per initial version, inherited), plus the gains of the techniques it applies, plus
 * the quality of this particular implementation (drawn afresh for every version, not inherited):
 * speed is bounded by what the techniques allow, as a roofline bounds a real kernel.
 */
struct truth {
	unsigned applied;    /* techniques in this version (intended ones, for a failed version) */
	double design;       /* the initial version's starting point, inherited */
	double q;            /* true log-speedup (for a failed version: what its repair would give) */
};

struct sim {
	const struct scenario *sc;
	struct kp_tree t;
	struct truth *truth;
	size_t alloc;
	struct rng rng;
};

/* What an optimize request from a version with `applied` (quality q) produces. */
static struct truth propose(struct sim *s, struct truth from)
{
	const struct scenario *sc = s->sc;
	int options[MAX_STEPS], n = 0;
	struct truth to = from;
	for (int i = 0; i < sc->nsteps; i++)
		if (!(from.applied & (1u << i)) && (sc->prereq[i] < 0 || (from.applied & (1u << sc->prereq[i]))))
			options[n++] = i;
	if (n && uniform(&s->rng) < sc->p_useful)
		to.applied |= 1u << options[(int)(uniform(&s->rng) * n) % n];
	to.q = to.design + sc->sigma_impl * normal(&s->rng);
	for (int i = 0; i < sc->nsteps; i++)
		if (to.applied & (1u << i))
			to.q += sc->gain[i];
	return to;
}

static void add_node(struct sim *s, long id, int parent, struct truth tr, enum kp_outcome o, double measured,
		     const struct kp_search_params *p)
{
	struct kp_node_row row;
	int idx;
	kp_node_row_init(&row);
	row.id = id;
	row.parent = parent >= 0 ? s->t.n[parent].id : 0;
	if (parent >= 0) {
		row.kind = kp_search_child_kind(&s->t, parent);
		row.depth = s->t.n[parent].depth + 1;
		s->t.n[parent].expansions++;
	}
	idx = kp_tree_add(&s->t, &row);
	KP_ALLOC_GROW(s->truth, (size_t)idx + 1, s->alloc);
	s->truth[idx] = tr;
	kp_tree_record(&s->t, p, idx, o, measured, NAN);
}

/* Where the evaluations went, summed over seeds. */
struct mix {
	double initial, refine, repair, best_depth, runs;
};

static struct mix *g_mix;

/* Iterations from this one on are also timed separately (the cost at the tree's final size). */
static int g_tail_from = 1 << 30;
static double g_tail_s;
static long g_tail_n;

/* Runs one search with `budget` evaluations; returns the true speedup of the version it reports as best. */
static double simulate(const struct scenario *sc, const struct kp_search_params *p, int budget, uint64_t seed,
		       double *select_s, long *iterations)
{
	struct sim s;

	memset(&s, 0, sizeof(s));
	s.sc = sc;
	struct truth root = {0, 0, 0};
	double t0;

	kp_tree_init(&s.t);
	rng_seed(&s.rng, seed);
	add_node(&s, 1, -1, root, KP_OUTCOME_CORRECT, 1.0, p);
	for (int e = 0; e < budget; e++) {
		int parent;
		struct truth tr;
		enum kp_outcome o = KP_OUTCOME_CORRECT;
		double fail_p;

		double t_iter = 0;
		t0 = kp_now();
		parent = kp_search_select(&s.t, p);
		t_iter += kp_now() - t0;
		(*iterations)++;
		if (parent < 0)
			break;
		const struct kp_tnode *pn = &s.t.n[parent];
		if (pn->evaluated && pn->outcome != KP_OUTCOME_CORRECT) {
			/* Repair: the same idea, fixed or not. */
			tr = s.truth[parent];
			fail_p = 1 - sc->p_repair;
		} else if (pn->parent < 0) {
			tr.applied = 0;
			tr.design = sc->init_mu + sc->init_sigma * normal(&s.rng);
			tr.q = tr.design + sc->sigma_impl * normal(&s.rng);
			fail_p = sc->p_fail_initial;
		} else {
			tr = propose(&s, s.truth[parent]);
			fail_p = sc->p_fail;
		}
		if (uniform(&s.rng) < fail_p)
			o = uniform(&s.rng) < 0.6 ? KP_OUTCOME_COMPILE_ERROR : KP_OUTCOME_WRONG_OUTPUT;
		double measured = exp(tr.q + sc->sigma_meas * normal(&s.rng));
		t0 = kp_now();
		add_node(&s, (long)s.t.count + 1, parent, tr, o, measured, p);
		t_iter += kp_now() - t0;
		*select_s += t_iter;
		if (e >= g_tail_from) {
			g_tail_s += t_iter;
			g_tail_n++;
		}
	}
	double best = s.t.best >= 0 ? exp(s.truth[s.t.best].q) : 1.0;
	if (g_mix) {
		for (size_t i = 1; i < s.t.count; i++) {
			g_mix->initial += s.t.n[i].kind == KP_NODE_INITIAL;
			g_mix->refine += s.t.n[i].kind == KP_NODE_REFINE;
			g_mix->repair += s.t.n[i].kind == KP_NODE_REPAIR;
		}
		g_mix->best_depth += s.t.best >= 0 ? s.t.n[s.t.best].depth : 0;
		g_mix->runs++;
	}
	kp_tree_release(&s.t);
	free(s.truth);
	return best;
}

/* ---- statistics -------------------------------------------------------------------------------------------- */

/* Geometric mean and a 95% interval (normal approximation on the mean of logs). */
static void geomean_ci(const double *x, int n, double *gm, double *lo, double *hi)
{
	double m = 0, v = 0;
	for (int i = 0; i < n; i++)
		m += log(x[i]);
	m /= n;
	for (int i = 0; i < n; i++)
		v += (log(x[i]) - m) * (log(x[i]) - m);
	v = n > 1 ? v / (n - 1) : 0;
	double half = 1.96 * sqrt(v / n);
	*gm = exp(m);
	*lo = exp(m - half);
	*hi = exp(m + half);
}

/* Paired comparison against greedy on the same seeds: mean log ratio and its 95% interval, as percent. */
static void paired(const double *a, const double *b, int n, double *pct, double *lo, double *hi)
{
	double m = 0, v = 0;
	for (int i = 0; i < n; i++)
		m += log(a[i] / b[i]);
	m /= n;
	for (int i = 0; i < n; i++) {
		double d = log(a[i] / b[i]) - m;
		v += d * d;
	}
	v = n > 1 ? v / (n - 1) : 0;
	double half = 1.96 * sqrt(v / n);
	*pct = (exp(m) - 1) * 100;
	*lo = (exp(m - half) - 1) * 100;
	*hi = (exp(m + half) - 1) * 100;
}

/* ---- main ---------------------------------------------------------------------------------------------------- */

struct variant {
	const char *name;
	const char *assign[4];
};

static const struct variant variants[] = {
	{"greedy", {"search=greedy", NULL}},
	{"beam", {"search=beam", NULL}},
	{"mcts", {"search=mcts", NULL}},
	{"mcts-mean", {"search=mcts", "backup=mean", NULL}},
};

static int usage(void)
{
	fprintf(stderr, "usage: search-sim [--seeds N] [--budgets 20,50,100] [--param NAME=VALUE ...] [--overhead-only]\n");
	return 2;
}

static void overhead(const struct kp_search_params *base)
{
	/* The search's own cost per iteration (selection + backup + pruning), on trees of growing size. */
	static const int sizes[] = {100, 1000, 5000};
	printf("\nsearch overhead per iteration (selection + backup, no LLM, no GPU), scenario 'chains':\n");
	printf("%-8s %-10s %14s %18s\n", "algo", "evals", "mean us/iter", "last 10% us/iter");
	for (size_t v = 0; v < 3; v++) {
		struct kp_search_params p = *base;
		struct kp_error err = KP_ERROR_INIT;
		for (int i = 0; variants[v].assign[i]; i++)
			kp_search_param_assign(&p, variants[v].assign[i], &err);
		p.refine_cap = 0; /* let the tree grow wide for the worst case */
		for (size_t k = 0; k < KP_ARRAY_SIZE(sizes); k++) {
			double sel = 0;
			long it = 0;
			g_tail_from = sizes[k] * 9 / 10;
			g_tail_s = 0;
			g_tail_n = 0;
			simulate(&scenarios[1], &p, sizes[k], 12345, &sel, &it);
			printf("%-8s %-10d %14.2f %18.2f\n", variants[v].name, sizes[k], sel / (double)it * 1e6,
			       g_tail_n ? g_tail_s / (double)g_tail_n * 1e6 : NAN);
			g_tail_from = 1 << 30;
		}
	}
}

/* ---- the whole loop, with an instant programmer and harness: the cost of bookkeeping ------------ */

struct instant {
	struct kp_search_programmer prog;
	struct kp_search_evaluator eval;
	struct rng rng;
	int calls;
};

static int instant_generate(struct kp_search_programmer *p, const struct kp_search_request *req,
			    struct kp_search_child *out, struct kp_error *err)
{
	struct instant *in = p->priv;
	struct kp_search_exchange x = {0};
	char src[128];
	snprintf(src, sizeof(src), "// version %d\n__global__ void k(float4 *p) {}\n", ++in->calls);
	x.prompt = (char *)(req->memory ? req->memory : "prompt");
	x.reply = src;
	x.tokens_in = 1000;
	x.tokens_out = 500;
	kp_search_child_add_exchange(out, &x);
	out->source = kp_xstrdup(src);
	out->summary = kp_xstrdup("a change");
	return 0;
}

static int instant_reference(struct kp_search_evaluator *e, struct kp_search_eval *out, struct kp_error *err)
{
	out->outcome = KP_OUTCOME_CORRECT;
	out->time_ms = 1;
	return 0;
}

static int instant_evaluate(struct kp_search_evaluator *e, long node, const char *source, const char *lang,
			    struct kp_search_eval *out, struct kp_error *err)
{
	struct instant *in = e->priv;
	out->outcome = uniform(&in->rng) < 0.3 ? KP_OUTCOME_COMPILE_ERROR : KP_OUTCOME_CORRECT;
	out->speedup = exp(0.3 * normal(&in->rng));
	out->time_ms = 1 / out->speedup;
	out->ref_time_ms = 1;
	if (out->outcome != KP_OUTCOME_CORRECT)
		out->log = kp_xstrdup("cand.cu(12): error: identifier \"x\" is undefined");
	else
		out->findings_json = kp_xstrdup("[{\"tool\":\"coalescing\",\"title\":\"t\",\"recommendations\":[\"r\"]}]");
	return 0;
}

/* The whole run with an instant programmer and harness: lib/run's session over lib/search's loop. */
static void loop_overhead(int evals)
{
	struct instant in;
	struct kp_task task;
	struct kp_run_settings set;
	struct kp_run *run = NULL;
	struct kp_run_session s;
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf dir = KP_BUF_INIT;
	double t0;

	memset(&in, 0, sizeof(in));
	memset(&s, 0, sizeof(s));
	rng_seed(&in.rng, 7);
	in.prog = (struct kp_search_programmer){"instant", 1, instant_generate, NULL, NULL, &in};
	in.eval = (struct kp_search_evaluator){.name = "instant", .reference = instant_reference,
					       .evaluate = instant_evaluate, .priv = &in};
	kp_task_init(&task);
	task.kind = KP_TASK_NATIVE;
	task.name = kp_xstrdup("bench");
	task.path = kp_xstrdup("bench");
	task.source = kp_xstrdup("// reference\n");
	kp_run_settings_init(&set);
	set.budget.evals = evals;
	if (kp_mkdtemp("kp-bench", &dir, &err) ||
	    kp_run_create(&run, &(struct kp_run_new){dir.buf, "bench", &task, &set}, &err)) {
		fprintf(stderr, "search-sim: %s\n", kp_error_msg(&err));
		goto out;
	}
	s.task = &task;
	s.programmer = &in.prog;
	s.evaluator = &in.eval;
	t0 = kp_now();
	if (kp_run_optimize(run, &s, &out, &err))
		fprintf(stderr, "search-sim: %s\n", kp_error_msg(&err));
	else
		printf("\nwhole run with an instant programmer and harness, %d evaluations: %.2f ms per iteration\n"
		       "(selection, prompt context and memory, two SQLite commits with fsync, candidates/, best.cu and "
		       "summary.json)\n",
		       evals, (kp_now() - t0) / evals * 1e3);
out:
	kp_run_close(run);
	kp_task_release(&task);
	kp_run_settings_release(&set);
	if (dir.len)
		kp_rm_rf(dir.buf, &err);
	kp_buf_release(&dir);
}

int main(int argc, char **argv)
{
	struct kp_search_params base;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_strvec budgets_sv = KP_STRVEC_INIT;
	int seeds = 400, overhead_only = 0;
	int budgets[16], nbudgets = 0;

	kp_search_params_default(&base);
	kp_strvec_split(&budgets_sv, "20,50,100", ',');
	for (int i = 1; i < argc; i++) {
		long l;
		if (!strcmp(argv[i], "--seeds") && i + 1 < argc && !kp_parse_long(argv[i + 1], &l) && l > 1) {
			seeds = (int)l;
			i++;
		} else if (!strcmp(argv[i], "--budgets") && i + 1 < argc) {
			kp_strvec_release(&budgets_sv);
			kp_strvec_split(&budgets_sv, argv[++i], ',');
		} else if (!strcmp(argv[i], "--param") && i + 1 < argc) {
			if (kp_search_param_assign(&base, argv[++i], &err)) {
				fprintf(stderr, "search-sim: %s\n", kp_error_msg(&err));
				return 2;
			}
		} else if (!strcmp(argv[i], "--overhead-only")) {
			overhead_only = 1;
		} else {
			return usage();
		}
	}
	for (size_t i = 0; i < budgets_sv.n && nbudgets < 16; i++) {
		long l;
		if (kp_parse_long(budgets_sv.v[i], &l) || l < 1)
			return usage();
		budgets[nbudgets++] = (int)l;
	}
	kp_strvec_release(&budgets_sv);

	if (!overhead_only) {
		double *res[KP_ARRAY_SIZE(variants)];
		for (size_t v = 0; v < KP_ARRAY_SIZE(variants); v++)
			res[v] = kp_xcalloc((size_t)seeds, sizeof(double));
		printf("search-sim: %d seeds per cell, equal evaluation budgets; final speedup = the true speedup of\n"
		       "the version each search reports as best (measured with %.0f%% timing noise)\n",
		       seeds, scenarios[0].sigma_meas * 100);
		for (size_t s = 0; s < KP_ARRAY_SIZE(scenarios); s++) {
			printf("\nscenario '%s': %s\n", scenarios[s].name, scenarios[s].what);
			printf("%-7s %-9s %9s %18s %24s   %s\n", "budget", "search", "geomean", "95% CI", "vs greedy (paired)",
			       "evals: initial/refine/repair, depth of best");
			for (int b = 0; b < nbudgets; b++) {
				for (size_t v = 0; v < KP_ARRAY_SIZE(variants); v++) {
					struct kp_search_params p = base;
					double sel = 0, gm, lo, hi;
					long it = 0;
					struct mix mix = {0};
					g_mix = &mix;
					for (int i = 0; variants[v].assign[i]; i++)
						kp_search_param_assign(&p, variants[v].assign[i], &err);
					for (int k = 0; k < seeds; k++)
						res[v][k] = simulate(&scenarios[s], &p, budgets[b], 1000003ull * (uint64_t)k + s,
								     &sel, &it);
					geomean_ci(res[v], seeds, &gm, &lo, &hi);
					printf("%-7d %-9s %8.3fx   [%6.3f, %6.3f]", budgets[b], variants[v].name, gm, lo, hi);
					if (v > 0) {
						double pct, plo, phi;
						paired(res[v], res[0], seeds, &pct, &plo, &phi);
						printf("   %+6.1f%% [%+5.1f, %+5.1f]", pct, plo, phi);
					} else {
						printf("%27s", "");
					}
					printf("   %4.1f/%4.1f/%4.1f  %4.1f\n", mix.initial / mix.runs, mix.refine / mix.runs,
					       mix.repair / mix.runs, mix.best_depth / mix.runs);
					g_mix = NULL;
				}
			}
		}
		for (size_t v = 0; v < KP_ARRAY_SIZE(variants); v++)
			free(res[v]);
	}
	overhead(&base);
	loop_overhead(200);
	return 0;
}

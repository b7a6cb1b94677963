/*
 * tune-sim: how often each tuning strategy of lib/tune finds the best variant within its budget, on
 * simulated cost surfaces (models of a tiled SGEMM, a reduction, a rugged surface with failing
 * variants, and a space too large to enumerate), over many seeds, with 1% timing noise. The spaces
 * are read from KP_TUNE sources and searched by the real kp_tune_run; only the GPU is simulated.
 *
 *   build/bench/tune-sim [--seeds N] [--budgets 16,32,64] [--surface NAME] [--init N]
 *   build/bench/tune-sim space FILE [--hw KEY] [--task DIR]   the space of a source as JSON (bound)
 */
#include "base/setup.h"

#include <math.h>
#include <time.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "kernelpro/strvec.h"
#include "kernelpro/tune.h"

#define NOISE 0.01 /* the timing noise: log-normal, sigma of the log */

static size_t bayes_init; /* --init: the model's random start (0: the library's default) */
static size_t batch = 1;  /* --batch: points per evaluation call (what runs in parallel on a GPU machine) */

/* ---- the surfaces ------------------------------------------------------------------------------- */

struct surface {
	const char *name;
	const char *what;
	const char *src;
	/* the true time of a variant (knob values in source order); sets *status for failing variants */
	double (*cost)(const long long *v, enum kp_tune_status *status);
};

static double lg(long long x)
{
	return log2((double)x);
}

/* A 2048^3 SGEMM with BX x BY threads, each computing TM x TN outputs, K tiles of BK. */
static const char sgemm_src[] =
    "constexpr int kBx = KP_TUNE(BX, 16, 8, 32);\n"
    "constexpr int kBy = KP_TUNE(BY, 16, 4, 8, 32);\n"
    "constexpr int kTm = KP_TUNE(TM, 4, 1, 2, 8);\n"
    "constexpr int kTn = KP_TUNE(TN, 4, 1, 2, 8);\n"
    "constexpr int kBk = KP_TUNE(BK, 8, 16, 32);\n"
    "KP_TUNE_CONSTRAINT(BX * BY <= MAX_THREADS_PER_BLOCK && (BX * BY) % WARP_SIZE == 0);\n"
    "KP_TUNE_CONSTRAINT((BY * TM + BX * TN) * BK * 4 <= SMEM_STATIC_PER_BLOCK);\n";

static double sgemm_cost(const long long *v, enum kp_tune_status *status)
{
	long long bx = v[0], by = v[1], tm = v[2], tn = v[3], bk = v[4];
	long long t = bx * by, bm = by * tm, bn = bx * tn, smem = (bm + bn) * bk * 4;
	double regs = 20 + (double)(tm * tn) + 2.0 * (double)(tm + tn);
	double per_sm = fmin(fmin(2048.0 / (double)t, floor(65536.0 / (ceil(regs / 8) * 8 * (double)t))),
	                     fmin(floor(232448.0 / (double)smem), 32));
	double occ = per_sm * (double)t / 2048.0, nblocks = (2048.0 / (double)bm) * (2048.0 / (double)bn);
	double waves = ceil(nblocks / (132 * per_sm)), wave_eff = nblocks / (waves * 132 * per_sm);
	double intensity = (double)(bm * bn) / (double)(bm + bn), reuse = intensity / (intensity + 12.0);
	double ilp = (double)(tm * tn) / ((double)(tm * tn) + 6.0), hide = occ / (occ + 0.15);
	double sync = 1.0 + 3.0 / (double)bk;
	/* every thread loads whole elements of both tiles: otherwise the kernel reads past its tile */
	if ((bm * bk) % t || (bn * bk) % t) {
		*status = KP_TUNE_WRONG;
		return 0;
	}
	if (per_sm < 1) {
		*status = KP_TUNE_RUN_FAILED;
		return 0;
	}
	return 2.0 * 2048 * 2048 * 2048 / (50e12 * reuse * ilp * hide * wave_eff) * sync;
}

/* A reduction: block size, items per thread, unroll, grid multiple; smooth with one interaction. */
static const char reduction_src[] = "constexpr int kBlock = KP_TUNE(BLOCK, 256, 32, 64, 128, 512, 1024);\n"
                                    "constexpr int kItems = KP_TUNE(ITEMS, 1, 2, 4, 8, 16, 32);\n"
                                    "KP_UNROLL(UNROLL, 1, 2, 4, 8)\n"
                                    "constexpr int kWaves = KP_TUNE(WAVES, 1, 2, 4, 8, 16, 32);\n"
                                    "KP_TUNE_CONSTRAINT(UNROLL <= ITEMS);\n";

static double reduction_cost(const long long *v, enum kp_tune_status *status)
{
	double b = lg(v[0]) - 8.4, i = lg(v[1]) - 3.2, u = lg(v[2]) - 1.6, w = lg(v[3]) - 2.7;
	return 40e-6 * (1 + 0.12 * b * b + 0.09 * i * i + 0.05 * u * u + 0.07 * w * w + 0.04 * b * i);
}

/* Five knobs of six values; a smooth trend, a hashed rough part, and 8% of the variants wrong. */
static const char rugged_src[] = "int a = KP_TUNE(A, 0, 1, 2, 3, 4, 5);\n"
                                 "int b = KP_TUNE(B, 0, 1, 2, 3, 4, 5);\n"
                                 "int c = KP_TUNE(C, 0, 1, 2, 3, 4, 5);\n"
                                 "int d = KP_TUNE(D, 0, 1, 2, 3, 4, 5);\n"
                                 "int e = KP_TUNE(E, 0, 1, 2, 3, 4, 5);\n";

static uint64_t hash64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static double rugged_cost(const long long *v, enum kp_tune_status *status)
{
	static const double center[5] = {3.3, 1.2, 4.1, 2.6, 0.8}, weight[5] = {0.08, 0.05, 0.03, 0.06, 0.02};
	uint64_t code = 0, h;
	double t = 1;
	for (int k = 0; k < 5; k++) {
		t += weight[k] * (v[k] - center[k]) * (v[k] - center[k]);
		code = code * 6 + (uint64_t)v[k];
	}
	h = hash64(code + 0x1234);
	if (h % 100 < 8) {
		*status = KP_TUNE_WRONG;
		return 0;
	}
	return 10e-6 * (t + 0.12 * (double)(h >> 40) / (double)(1ull << 24));
}

/* Eight knobs of eight values (16.7 million points: not enumerated); a chain of pairwise terms. */
static const char large_src[] = "int a = KP_TUNE(K0, 0, 1, 2, 3, 4, 5, 6, 7);\n"
                                "int b = KP_TUNE(K1, 0, 1, 2, 3, 4, 5, 6, 7);\n"
                                "int c = KP_TUNE(K2, 0, 1, 2, 3, 4, 5, 6, 7);\n"
                                "int d = KP_TUNE(K3, 0, 1, 2, 3, 4, 5, 6, 7);\n"
                                "int e = KP_TUNE(K4, 0, 1, 2, 3, 4, 5, 6, 7);\n"
                                "int f = KP_TUNE(K5, 0, 1, 2, 3, 4, 5, 6, 7);\n"
                                "int g = KP_TUNE(K6, 0, 1, 2, 3, 4, 5, 6, 7);\n"
                                "int h = KP_TUNE(K7, 0, 1, 2, 3, 4, 5, 6, 7);\n";

static const double large_c[8] = {5.2, 1.7, 3.9, 6.4, 2.2, 4.8, 0.6, 3.1};
static const double large_a[8] = {0.30, 0.22, 0.18, 0.15, 0.12, 0.10, 0.08, 0.06};

static double large_term(int k, long long x, long long prev)
{
	double t = large_a[k] * (x - large_c[k]) * (x - large_c[k]) / 49.0;
	if (k > 0)
		t += 0.05 * (double)((x - prev) * (x - prev)) / 49.0;
	return t;
}

static double large_cost(const long long *v, enum kp_tune_status *status)
{
	double t = 1;
	for (int k = 0; k < 8; k++)
		t += large_term(k, v[k], k ? v[k - 1] : 0);
	return 5e-6 * t;
}

/* The large surface's optimum by dynamic programming along the chain. */
static double large_best(void)
{
	double best[8], next[8];
	for (int x = 0; x < 8; x++)
		best[x] = large_term(0, x, 0);
	for (int k = 1; k < 8; k++) {
		for (int x = 0; x < 8; x++) {
			next[x] = INFINITY;
			for (int p = 0; p < 8; p++)
				next[x] = fmin(next[x], best[p] + large_term(k, x, p));
		}
		memcpy(best, next, sizeof(best));
	}
	for (int x = 1; x < 8; x++)
		best[0] = fmin(best[0], best[x]);
	return 5e-6 * (1 + best[0]);
}

static const struct surface surfaces[] = {
    {"sgemm", "tiled SGEMM: 5 knobs, 576 points, constraints, wrong and failing variants", sgemm_src,
     sgemm_cost},
    {"reduction", "reduction: 4 knobs, 864 points, one interaction", reduction_src, reduction_cost},
    {"rugged", "5 knobs x 6 values, rough, 8% wrong", rugged_src, rugged_cost},
    {"large", "8 knobs x 8 values: 16.7M points, not enumerated", large_src, large_cost},
};

/* ---- random numbers for the noise (the strategies have their own) ------------------------------- */

static uint64_t noise_state;

static double unit(void)
{
	noise_state += 0x9E3779B97F4A7C15ull;
	return (double)(hash64(noise_state) >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
	double u = unit(), v = unit();
	return sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* ---- the simulated GPU ------------------------------------------------------------------------------ */

struct sim {
	const struct surface *sf;
	long evals;
};

static void values_of(const struct kp_tune_space *s, const struct kp_tune_point *p, long long *v)
{
	for (size_t k = 0; k < kp_tune_nknobs(s); k++)
		v[k] = kp_tune_knob_at(s, k)->values[p->v[k]];
}

static double true_time(const struct surface *sf, const struct kp_tune_space *s,
                        const struct kp_tune_point *p, enum kp_tune_status *st)
{
	long long v[KP_TUNE_MAX_KNOBS];
	values_of(s, p, v);
	*st = KP_TUNE_OK;
	return sf->cost(v, st);
}

static int evaluate(void *ctx, const struct kp_tune_space *s, const struct kp_tune_point *points, size_t n,
                    struct kp_tune_measure *out, struct kp_error *err)
{
	struct sim *sim = ctx;
	for (size_t i = 0; i < n; i++) {
		enum kp_tune_status st;
		double t = true_time(sim->sf, s, &points[i], &st);
		out[i].status = st;
		out[i].seconds = st == KP_TUNE_OK ? t * exp(NOISE * gauss()) : 0;
		sim->evals++;
	}
	return 0;
}

/* The best true time over the feasible, working points (enumerated; the large surface by its DP). */
static double best_time(const struct surface *sf, const struct kp_tune_space *s, uint64_t *nfeasible)
{
	uint64_t size = kp_tune_space_size(s);
	double best = INFINITY;
	*nfeasible = 0;
	if (sf->cost == large_cost)
		return large_best();
	for (uint64_t c = 0; c < size; c++) {
		struct kp_tune_point p;
		enum kp_tune_status st;
		uint64_t x = c;
		double t;
		memset(&p, 0, sizeof(p));
		for (size_t k = kp_tune_nknobs(s); k-- > 0;) {
			p.v[k] = (uint16_t)(x % kp_tune_knob_at(s, k)->nvalues);
			x /= kp_tune_knob_at(s, k)->nvalues;
		}
		if (!kp_tune_feasible(s, &p))
			continue;
		(*nfeasible)++;
		t = true_time(sf, s, &p, &st);
		if (st == KP_TUNE_OK && t < best)
			best = t;
	}
	return best;
}

static int load_space(const struct surface *sf, struct kp_tune_space **s, struct kp_error *err)
{
	struct kp_tune_env env;
	int rc;
	if ((rc = kp_tune_parse(s, sf->name, sf->src, strlen(sf->src), KP_TUNE_CUDA, KP_TUNE_DERIVE_NEVER,
	                        err)))
		return rc;
	kp_tune_env_init(&env);
	kp_tune_env_add_hw(&env, kp_hw_spec_find("h200-sxm"));
	if ((rc = kp_tune_bind(*s, &env, err))) {
		kp_tune_space_free(*s);
		*s = NULL;
	}
	return rc;
}

struct tally {
	int runs, found, within2;
	double excess; /* sum of log(true time of the pick / best) */
	long evals;
	double seconds;
};

static int one_run(const struct surface *sf, const struct kp_tune_space *s, enum kp_tune_strategy strat,
                   size_t budget, uint64_t seed, double best, struct tally *t, struct kp_error *err)
{
	struct sim sim = {.sf = sf};
	struct kp_tune_evaluator ev = {evaluate, &sim};
	struct kp_tune_opts o;
	struct kp_tune_result r;
	struct timespec a, b;
	int rc;

	kp_tune_opts_init(&o);
	o.strategy = strat;
	o.budget = budget;
	o.seed = seed;
	o.init = bayes_init;
	o.batch = batch;
	noise_state = seed * 0x51ED27ull;
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = kp_tune_run(s, &o, &ev, NULL, &r, err);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (rc == 0) {
		enum kp_tune_status st = KP_TUNE_OK;
		double got = r.best >= 0 ? true_time(sf, s, &r.trials[r.best].point, &st) : INFINITY;
		t->runs++;
		t->found += got <= best * (1 + 1e-12);
		t->within2 += got <= best * 1.02;
		t->excess += isfinite(got) ? log(got / best) : log(10.0);
		t->evals += sim.evals;
		t->seconds += (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
	}
	kp_tune_result_release(&r);
	return rc;
}

static int simulate(int seeds, const struct kp_strvec *budgets, const char *only)
{
	static const enum kp_tune_strategy strats[] = {KP_TUNE_RANDOM, KP_TUNE_BAYES};
	struct kp_error err = KP_ERROR_INIT;

	printf(
	    "tune-sim: %d seeds, timing noise %.0f%%; 'found': the pick is the true best; 'within 2%%': its "
	    "true time is;\n'excess': geometric-mean true time of the pick over the best; ms: search time "
	    "per "
	    "run (no GPU)\n",
	    seeds, NOISE * 100);
	for (size_t si = 0; si < KP_ARRAY_SIZE(surfaces); si++) {
		const struct surface *sf = &surfaces[si];
		struct kp_tune_space *s;
		uint64_t nfeas;
		double best;
		if (only && strcmp(only, sf->name))
			continue;
		if (load_space(sf, &s, &err)) {
			fprintf(stderr, "tune-sim: %s\n", kp_error_msg(&err));
			return 1;
		}
		best = best_time(sf, s, &nfeas);
		printf("\n%s: %s", sf->name, sf->what);
		if (nfeas)
			printf(" (%llu feasible)", (unsigned long long)nfeas);
		printf("; best %.3f us\n", best * 1e6);
		printf("  %-9s %6s %7s %10s %8s %8s\n", "strategy", "budget", "found", "within 2%", "excess",
		       "ms");
		for (size_t bi = 0; bi < budgets->n; bi++) {
			long budget;
			if (kp_parse_long(budgets->v[bi], &budget) || budget < 1) {
				fprintf(stderr, "tune-sim: bad budget '%s'\n", budgets->v[bi]);
				kp_tune_space_free(s);
				return 2;
			}
			for (size_t k = 0; k < KP_ARRAY_SIZE(strats); k++) {
				struct tally t = {0};
				for (int seed = 1; seed <= seeds; seed++)
					if (one_run(sf, s, strats[k], (size_t)budget, (uint64_t)seed, best,
					            &t, &err)) {
						fprintf(stderr, "tune-sim: %s\n", kp_error_msg(&err));
						kp_tune_space_free(s);
						return 1;
					}
				printf("  %-9s %6ld %6.0f%% %9.0f%% %7.2f%% %8.1f\n",
				       kp_tune_strategy_name(strats[k]), budget, 100.0 * t.found / t.runs,
				       100.0 * t.within2 / t.runs, 100.0 * (exp(t.excess / t.runs) - 1),
				       1e3 * t.seconds / t.runs);
			}
		}
		kp_tune_space_free(s);
	}
	return 0;
}

/* `tune-sim space FILE [--hw KEY] [--task DIR]`: what Kernel Tuner is given for the same space. */
static int print_space(int argc, char **argv)
{
	const char *file = NULL, *hw = "h200-sxm", *task = NULL;
	struct kp_buf src = KP_BUF_INIT, out = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_tune_space *s = NULL;
	struct kp_tune_env env;
	struct kp_task t;
	const struct kp_hw_spec *spec;
	json_t *j = NULL;
	int rc = 1;

	kp_task_init(&t);
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--hw") && i + 1 < argc)
			hw = argv[++i];
		else if (!strcmp(argv[i], "--task") && i + 1 < argc)
			task = argv[++i];
		else if (!file && argv[i][0] != '-')
			file = argv[i];
		else {
			fprintf(stderr, "usage: tune-sim space FILE [--hw KEY] [--task DIR]\n");
			return 2;
		}
	}
	if (!file) {
		fprintf(stderr, "usage: tune-sim space FILE [--hw KEY] [--task DIR]\n");
		return 2;
	}
	if (!(spec = kp_hw_spec_find(hw))) {
		fprintf(stderr, "tune-sim: unknown GPU '%s' (see docs/hw.md)\n", hw);
		return 2;
	}
	kp_tune_env_init(&env);
	kp_tune_env_add_hw(&env, spec);
	if (kp_read_file(file, KP_TUNE_MAX_SOURCE, &src, &err) ||
	    (task && (kp_task_load(&t, task, &err) || kp_tune_env_add_task(&env, &t, &err))) ||
	    kp_tune_parse(&s, file, src.buf, src.len,
	                  kp_ends_with(file, ".py") ? KP_TUNE_PYTHON : KP_TUNE_CUDA, KP_TUNE_DERIVE_AUTO,
	                  &err) ||
	    kp_tune_bind(s, &env, &err)) {
		fprintf(stderr, "tune-sim: %s\n", kp_error_msg(&err));
		goto out;
	}
	j = kp_tune_space_to_json(s);
	kp_json_dump_buf(j, &out, 0);
	printf("%s\n", out.buf);
	rc = 0;
out:
	json_decref(j);
	kp_tune_space_free(s);
	kp_task_release(&t);
	kp_buf_release(&out);
	kp_buf_release(&src);
	return rc;
}

int main(int argc, char **argv)
{
	struct kp_strvec budgets = KP_STRVEC_INIT;
	const char *only = NULL;
	long seeds = 40;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "space"))
		return print_space(argc, argv);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seeds") && i + 1 < argc) {
			if (kp_parse_long(argv[++i], &seeds) || seeds < 1) {
				fprintf(stderr, "tune-sim: --seeds takes a positive number\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--budgets") && i + 1 < argc) {
			kp_strvec_split(&budgets, argv[++i], ',');
		} else if (!strcmp(argv[i], "--surface") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
			long n;
			if (kp_parse_long(argv[++i], &n) || n < 1) {
				fprintf(stderr, "tune-sim: --batch takes a positive number\n");
				return 2;
			}
			batch = (size_t)n;
		} else if (!strcmp(argv[i], "--init") && i + 1 < argc) {
			long n;
			if (kp_parse_long(argv[++i], &n) || n < 0) {
				fprintf(stderr, "tune-sim: --init takes a number\n");
				return 2;
			}
			bayes_init = (size_t)n;
		} else {
			fprintf(stderr, "usage: tune-sim [--seeds N] [--budgets 16,32,64] [--surface NAME] "
			                "[--init N] [--batch N]\n"
			                "       tune-sim space FILE [--hw KEY] [--task DIR]\n");
			return 2;
		}
	}
	if (!budgets.n)
		kp_strvec_split(&budgets, "16,32,64", ',');
	rc = simulate((int)seeds, &budgets, only);
	kp_strvec_release(&budgets);
	return rc;
}

/*
 * The strategies' driver (kp_tune_run): the default point first, then exhaustive, random or model-based
 * proposals, each point evaluated once, through the cache when there is one, in batches of the
 * caller's size, within the budget. Also the random numbers and the points' mixed-radix codes.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/json.h"
#include "tune/tune_int.h"

#define MAX_CODE   (1ull << 62) /* larger spaces are refused: fix some knobs */
#define BUDGET_CAP 100000
#define POOL       1024 /* bayes: candidates drawn per step when the space is not enumerated */
#define ENUM_POOL  1024 /* bayes: at most this many unvisited feasible points per step */
#define TRIES      200  /* random draws per new point before giving up on a sparse space */

/* ---- random numbers ------------------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void kp__tune_rng_seed(struct tune_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t kp__tune_rng_next(struct tune_rng *r)
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

uint64_t kp__tune_rng_below(struct tune_rng *r, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
	do
		x = kp__tune_rng_next(r);
	while (x >= limit);
	return x % n;
}

double kp__tune_rng_uniform(struct tune_rng *r)
{
	return (double)(kp__tune_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- codes ---------------------------------------------------------------------------------------- */

uint64_t kp__tune_point_code(const struct kp_tune_space *s, const struct kp_tune_point *p)
{
	uint64_t c = 0;
	for (size_t k = 0; k < s->nknobs; k++)
		c = c * s->knobs[k].nvalues + p->v[k];
	return c;
}

void kp__tune_point_decode(const struct kp_tune_space *s, uint64_t code, struct kp_tune_point *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t k = s->nknobs; k-- > 0;) {
		p->v[k] = (uint16_t)(code % s->knobs[k].nvalues);
		code /= s->knobs[k].nvalues;
	}
}

/* ---- names --------------------------------------------------------------------------------------- */

static const char *const strategy_names[] = {"auto", "exhaustive", "random", "bayes"};

const char *kp_tune_strategy_name(enum kp_tune_strategy s)
{
	return (size_t)s < KP_ARRAY_SIZE(strategy_names) ? strategy_names[s] : "unknown";
}

/* The index of name in names[0..n), or -1. */
static int name_index(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -1;
}

int kp_tune_strategy_parse(const char *name, enum kp_tune_strategy *out)
{
	int i = name_index(strategy_names, KP_ARRAY_SIZE(strategy_names), name);
	if (i < 0)
		return KP_EINVAL;
	*out = (enum kp_tune_strategy)i;
	return 0;
}

static const char *const status_names[] = {"ok", "build_failed", "run_failed", "wrong", "refused"};

const char *kp_tune_status_name(enum kp_tune_status s)
{
	return (size_t)s < KP_ARRAY_SIZE(status_names) ? status_names[s] : "unknown";
}

int kp_tune_status_parse(const char *name, enum kp_tune_status *out)
{
	int i = name_index(status_names, KP_ARRAY_SIZE(status_names), name);
	if (i < 0)
		return KP_EINVAL;
	*out = (enum kp_tune_status)i;
	return 0;
}

void kp_tune_opts_init(struct kp_tune_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->strategy = KP_TUNE_AUTO;
	o->budget = 64;
	o->seed = 1;
	o->batch = 1;
}

void kp_tune_result_init(struct kp_tune_result *r)
{
	memset(r, 0, sizeof(*r));
	r->best = -1;
	r->def = -1;
}

void kp_tune_result_release(struct kp_tune_result *r)
{
	free(r->trials);
	kp_tune_result_init(r);
}

/* ---- the driver ------------------------------------------------------------------------------------ */

/* Points already asked for: open addressing on codes (code + 1, so 0 marks an empty slot). */
struct seen {
	uint64_t *slot;
	size_t mask;
};

static uint64_t mix(uint64_t x)
{
	return splitmix(&x);
}

static int seen_has(const struct seen *h, uint64_t code)
{
	for (size_t i = mix(code) & h->mask;; i = (i + 1) & h->mask) {
		if (h->slot[i] == 0)
			return 0;
		if (h->slot[i] == code + 1)
			return 1;
	}
}

static void seen_add(struct seen *h, uint64_t code)
{
	size_t i = mix(code) & h->mask;
	while (h->slot[i] != 0 && h->slot[i] != code + 1)
		i = (i + 1) & h->mask;
	h->slot[i] = code + 1;
}

struct run {
	const struct kp_tune_space *s;
	const struct kp_tune_opts *o;
	const struct kp_tune_evaluator *ev;
	const struct kp_tune_cache *cache;
	struct kp_tune_result *r;
	struct kp_error *err;
	const char *gpu;
	struct seen seen;
	struct tune_rng rng;
	uint64_t *feas; /* feasible codes, when enumerated */
	size_t nfeas;
	uint64_t *shuf; /* feas shuffled, for drawing without repeats */
	size_t next;
	int enumerated;
	struct tune_obs *obs;
	size_t nobs;
	/* one batch */
	uint64_t *codes;
	size_t ncodes;
};

static int budget_left(const struct run *x)
{
	return x->r->ntrials + x->ncodes < x->o->budget;
}

static void propose(struct run *x, uint64_t code)
{
	seen_add(&x->seen, code);
	x->codes[x->ncodes++] = code;
}

static void record(struct run *x, const struct kp_tune_point *p, const struct kp_tune_measure *m, int cached)
{
	struct kp_tune_result *r = x->r;
	struct kp_tune_trial *t;
	struct kp_tune_point def;
	KP_ALLOC_GROW(r->trials, r->ntrials + 1, r->alloc);
	t = &r->trials[r->ntrials];
	t->point = *p;
	t->m = *m;
	t->cached = cached;
	r->cache_hits += (size_t)cached;
	kp_tune_default_point(x->s, &def);
	if (!memcmp(&def, p, sizeof(def)))
		r->def = (long)r->ntrials;
	if (m->status == KP_TUNE_OK && (r->best < 0 || m->seconds < r->trials[r->best].m.seconds))
		r->best = (long)r->ntrials;
	x->obs[x->nobs].p = *p;
	x->obs[x->nobs].ok = m->status == KP_TUNE_OK;
	x->obs[x->nobs].y = m->status == KP_TUNE_OK ? log(m->seconds) : 0;
	x->nobs++;
	r->ntrials++;
}

static int valid_measure(const struct kp_tune_measure *m)
{
	if (m->status == KP_TUNE_OK)
		return isfinite(m->seconds) && m->seconds > 0;
	return m->status == KP_TUNE_BUILD_FAILED || m->status == KP_TUNE_RUN_FAILED ||
	       m->status == KP_TUNE_WRONG || m->status == KP_TUNE_REFUSED;
}

/* Evaluates the proposed batch: cache hits first, the rest in one call; trials in proposal order. */
static int flush(struct run *x)
{
	size_t n = x->ncodes, nfresh = 0;
	struct kp_tune_point *pts = kp_xcalloc(n ? n : 1, sizeof(*pts)),
	                     *fresh = kp_xcalloc(n ? n : 1, sizeof(*fresh));
	struct kp_tune_measure *m = kp_xcalloc(n ? n : 1, sizeof(*m)),
	                       *fm = kp_xcalloc(n ? n : 1, sizeof(*fm));
	char **keys = kp_xcalloc(n ? n : 1, sizeof(*keys));
	int *hit = kp_xcalloc(n ? n : 1, sizeof(*hit)), rc = 0;

	for (size_t i = 0; i < n; i++) {
		struct kp_buf b = KP_BUF_INIT;
		kp__tune_point_decode(x->s, x->codes[i], &pts[i]);
		kp_tune_point_format(x->s, &pts[i], &b);
		keys[i] = kp_buf_detach(&b, NULL);
		if (x->cache && x->cache->get) {
			struct kp_tune_key k = {.source = x->s->hash, .point = keys[i], .gpu = x->gpu};
			if ((rc = x->cache->get(x->cache->ctx, &k, &m[i], x->err)) < 0)
				goto out;
			hit[i] = rc == 1 && valid_measure(&m[i]);
			rc = 0;
		}
		if (!hit[i])
			fresh[nfresh++] = pts[i];
	}
	if (nfresh) {
		for (size_t i = 0; i < nfresh; i++)
			fm[i] = (struct kp_tune_measure){.status = KP_TUNE_RUN_FAILED, .seconds = 0};
		if ((rc = x->ev->evaluate(x->ev->ctx, x->s, fresh, nfresh, fm, x->err)))
			goto out;
		for (size_t i = 0; i < nfresh; i++)
			if (!valid_measure(&fm[i])) {
				rc = kp_error_set(x->err, KP_EINVAL,
				                  "tune: the evaluator gave status %d with %g seconds",
				                  (int)fm[i].status, fm[i].seconds);
				goto out;
			}
	}
	for (size_t i = 0, f = 0; i < n; i++) {
		if (!hit[i]) {
			m[i] = fm[f++];
			if (x->cache && x->cache->put) {
				struct kp_tune_key k = {
				    .source = x->s->hash, .point = keys[i], .gpu = x->gpu};
				if ((rc = x->cache->put(x->cache->ctx, &k, &m[i], x->err)) < 0)
					goto out;
				rc = 0;
			}
		}
		record(x, &pts[i], &m[i], hit[i]);
	}
out:
	x->ncodes = 0;
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	free(hit);
	free(fm);
	free(m);
	free(fresh);
	free(pts);
	return rc;
}

/* Adds a point to the batch, evaluating the batch when it is full. */
static int ask(struct run *x, uint64_t code)
{
	propose(x, code);
	return x->ncodes >= x->o->batch ? flush(x) : 0;
}

static int enumerate(struct run *x)
{
	uint64_t size = kp_tune_space_size(x->s);
	size_t alloc = 0;
	if (size > KP_TUNE_ENUM_MAX)
		return 0;
	for (uint64_t c = 0; c < size; c++) {
		struct kp_tune_point p;
		kp__tune_point_decode(x->s, c, &p);
		if (!kp_tune_feasible(x->s, &p))
			continue;
		KP_ALLOC_GROW(x->feas, x->nfeas + 1, alloc);
		x->feas[x->nfeas++] = c;
	}
	x->enumerated = 1;
	return 1;
}

/* A feasible point not asked for yet, uniformly, without consuming the shuffled list (may repeat). */
static int sample(struct run *x, uint64_t *code)
{
	for (int t = 0; t < TRIES; t++) {
		struct kp_tune_point p;
		memset(&p, 0, sizeof(p));
		for (size_t k = 0; k < x->s->nknobs; k++)
			p.v[k] = (uint16_t)kp__tune_rng_below(&x->rng, x->s->knobs[k].nvalues);
		*code = kp__tune_point_code(x->s, &p);
		if (!seen_has(&x->seen, *code) && kp_tune_feasible(x->s, &p))
			return 1;
	}
	return 0;
}

/* A feasible point not asked for yet, uniformly: the next untried one of a shuffled copy of the list
 * when enumerated, else by rejection (0 when TRIES draws found none). */
static int draw(struct run *x, uint64_t *code)
{
	if (x->enumerated) {
		if (!x->shuf) {
			x->shuf = kp_xcalloc(x->nfeas ? x->nfeas : 1, sizeof(*x->shuf));
			memcpy(x->shuf, x->feas, x->nfeas * sizeof(*x->shuf));
			for (size_t i = x->nfeas; i > 1; i--) {
				size_t j = (size_t)kp__tune_rng_below(&x->rng, i);
				uint64_t t = x->shuf[i - 1];
				x->shuf[i - 1] = x->shuf[j];
				x->shuf[j] = t;
			}
		}
		while (x->next < x->nfeas && seen_has(&x->seen, x->shuf[x->next]))
			x->next++;
		if (x->next >= x->nfeas)
			return 0;
		*code = x->shuf[x->next++];
		return 1;
	}
	return sample(x, code);
}

/* The candidates the model chooses among: every untried feasible point (or a random sample of them),
 * plus the untried feasible neighbours (one knob one step away) of the three best points. */
static size_t candidates(struct run *x, uint64_t *out, size_t cap)
{
	size_t n = 0;
	long top[3] = {-1, -1, -1};
	/* every point asked for is feasible, so this many feasible ones are left */
	size_t left = x->enumerated ? x->nfeas - (x->r->ntrials + x->ncodes) : 0;
	if (x->enumerated && left <= ENUM_POOL) {
		for (size_t i = 0; i < x->nfeas && n < cap; i++)
			if (!seen_has(&x->seen, x->feas[i]))
				out[n++] = x->feas[i];
	} else if (x->enumerated) {
		/* a random sample of the untried ones (a repeat only costs a prediction) */
		for (size_t tries = 0; n < ENUM_POOL && tries < 8 * ENUM_POOL; tries++) {
			uint64_t c = x->feas[kp__tune_rng_below(&x->rng, x->nfeas)];
			if (!seen_has(&x->seen, c))
				out[n++] = c;
		}
	} else {
		for (size_t i = 0; i < POOL && n < cap; i++)
			if (sample(x, &out[n]))
				n++;
	}
	for (size_t i = 0; i < x->r->ntrials; i++) {
		const struct kp_tune_trial *t = &x->r->trials[i];
		if (t->m.status != KP_TUNE_OK)
			continue;
		for (int j = 0; j < 3; j++)
			if (top[j] < 0 || t->m.seconds < x->r->trials[top[j]].m.seconds) {
				memmove(top + j + 1, top + j, (size_t)(2 - j) * sizeof(top[0]));
				top[j] = (long)i;
				break;
			}
	}
	for (int j = 0; j < 3 && top[j] >= 0; j++)
		for (size_t k = 0; k < x->s->nknobs; k++)
			for (int step = -1; step <= 1; step += 2) {
				struct kp_tune_point p = x->r->trials[top[j]].point;
				uint64_t c;
				int dup = 0;
				if ((step < 0 && p.v[k] == 0) ||
				    (step > 0 && p.v[k] + 1u >= x->s->knobs[k].nvalues))
					continue;
				p.v[k] = (uint16_t)(p.v[k] + step);
				c = kp__tune_point_code(x->s, &p);
				if (n >= cap || seen_has(&x->seen, c) || !kp_tune_feasible(x->s, &p))
					continue;
				for (size_t i = 0; i < n && !dup; i++)
					dup = out[i] == c;
				if (!dup)
					out[n++] = c;
			}
	return n;
}

static int run_bayes(struct run *x)
{
	size_t init = x->o->init ? x->o->init : (x->s->nknobs + 1 > 4 ? x->s->nknobs + 1 : 4);
	size_t cap = (x->enumerated ? ENUM_POOL : POOL) + 6 * KP_TUNE_MAX_KNOBS;
	uint64_t *cands = kp_xcalloc(cap, sizeof(*cands)), *picks = kp_xcalloc(x->o->batch, sizeof(*picks));
	int rc = 0;

	while (budget_left(x) && x->r->ntrials + x->ncodes < init) {
		uint64_t c;
		if (!draw(x, &c)) {
			x->r->exhausted = 1;
			goto out;
		}
		if ((rc = ask(x, c)))
			goto out;
	}
	if ((rc = flush(x)))
		goto out;
	while (budget_left(x)) {
		size_t want = x->o->budget - x->r->ntrials, n, got;
		if (want > x->o->batch)
			want = x->o->batch;
		n = candidates(x, cands, cap);
		if (n == 0) {
			x->r->exhausted = 1;
			break;
		}
		got = kp__tune_bayes_pick(x->s, x->obs, x->nobs, cands, n, want, picks);
		if (got == 0) /* nothing to model yet (fewer than two successes): sample */
			for (; got < want && got < n; got++)
				picks[got] = cands[kp__tune_rng_below(&x->rng, n)];
		for (size_t i = 0; i < got; i++)
			if (!seen_has(&x->seen, picks[i]))
				propose(x, picks[i]);
		if ((rc = flush(x)))
			break;
	}
out:
	free(picks);
	free(cands);
	return rc;
}

/* Over 80 lines: the checks of the options, the untuned point first, then the strategy's rounds and
 * the result; the run state (struct run) is shared, the order is the contract. */
int kp_tune_run(const struct kp_tune_space *s, const struct kp_tune_opts *o,
                const struct kp_tune_evaluator *ev, const struct kp_tune_cache *cache,
                struct kp_tune_result *r, struct kp_error *err)
{
	struct run x = {.s = s, .o = o, .ev = ev, .cache = cache, .r = r, .err = err};
	struct kp_tune_point def;
	enum kp_tune_strategy strat = o->strategy;
	size_t slots = 64;
	int rc = 0;

	kp_tune_result_init(r);
	if (!s->bound)
		return kp_error_set(err, KP_EINVAL,
		                    "tune: bind the space (kp_tune_bind) before searching it");
	if (!ev || !ev->evaluate)
		return kp_error_set(err, KP_EINVAL, "tune: no evaluator");
	if (o->budget < 1 || o->budget > BUDGET_CAP || o->batch < 1 || o->batch > BUDGET_CAP)
		return kp_error_set(err, KP_EINVAL, "tune: budget %zu and batch %zu must be 1 to %d",
		                    o->budget, o->batch, BUDGET_CAP);
	if (kp_tune_space_size(s) > MAX_CODE)
		return kp_error_set(err, KP_ETOOBIG,
		                    "tune: %s has more than 2^62 points; give some knobs fewer values",
		                    s->what);
	x.gpu = o->gpu ? o->gpu : "unknown";
	while (slots < 4 * o->budget)
		slots *= 2;
	x.seen.slot = kp_xcalloc(slots, sizeof(uint64_t));
	x.seen.mask = slots - 1;
	x.codes = kp_xcalloc(o->batch, sizeof(uint64_t));
	x.obs = kp_xcalloc(o->budget, sizeof(*x.obs));
	kp__tune_rng_seed(&x.rng, o->seed);

	enumerate(&x);
	r->feasible_known = x.enumerated;
	r->feasible = x.nfeas;
	if (strat == KP_TUNE_AUTO)
		strat = x.enumerated && x.nfeas <= o->budget ? KP_TUNE_EXHAUSTIVE : KP_TUNE_BAYES;
	r->strategy = strat;
	if (strat == KP_TUNE_EXHAUSTIVE && !x.enumerated) {
		rc = kp_error_set(err, KP_ETOOBIG,
		                  "tune: %s has more than %u points, too many to try them all; use "
		                  "random or bayes",
		                  s->what, KP_TUNE_ENUM_MAX);
		goto out;
	}
	if (strat == KP_TUNE_EXHAUSTIVE && x.nfeas > o->budget) {
		rc = kp_error_set(err, KP_EBUDGET,
		                  "tune: %s has %zu feasible points, more than the budget of %zu; "
		                  "raise the budget or use random or bayes",
		                  s->what, x.nfeas, o->budget);
		goto out;
	}

	kp_tune_default_point(s, &def);
	if (kp_tune_feasible(s, &def) && (rc = ask(&x, kp__tune_point_code(s, &def))))
		goto out;
	switch (strat) {
	case KP_TUNE_EXHAUSTIVE:
		for (size_t i = 0; i < x.nfeas && !rc; i++)
			if (!seen_has(&x.seen, x.feas[i]))
				rc = ask(&x, x.feas[i]);
		if (!rc)
			r->exhausted = 1;
		break;
	case KP_TUNE_RANDOM:
		while (!rc && budget_left(&x)) {
			uint64_t c;
			if (!draw(&x, &c)) {
				r->exhausted = 1;
				break;
			}
			rc = ask(&x, c);
		}
		break;
	case KP_TUNE_BAYES: rc = run_bayes(&x); break;
	default: rc = kp_error_set(err, KP_EINVAL, "tune: unknown strategy %d", (int)strat);
	}
	if (!rc)
		rc = flush(&x);
out:
	free(x.obs);
	free(x.codes);
	free(x.shuf);
	free(x.feas);
	free(x.seen.slot);
	return rc;
}

/* ---- reporting ------------------------------------------------------------------------------------ */

static int by_time(const struct kp_tune_result *r, size_t a, size_t b)
{
	const struct kp_tune_measure *x = &r->trials[a].m, *y = &r->trials[b].m;
	if ((x->status == KP_TUNE_OK) != (y->status == KP_TUNE_OK))
		return x->status == KP_TUNE_OK ? -1 : 1;
	if (x->status == KP_TUNE_OK && x->seconds != y->seconds)
		return x->seconds < y->seconds ? -1 : 1;
	return a < b ? -1 : a > b;
}

void kp_tune_result_ranked(const struct kp_tune_result *r, size_t *order)
{
	for (size_t i = 0; i < r->ntrials; i++) { /* insertion sort: stable, and budgets are small */
		size_t j = i;
		for (; j > 0 && by_time(r, order[j - 1], i) > 0; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
}

static const char *ratio(char *buf, size_t n, double num, double den)
{
	if (num > 0 && den > 0)
		snprintf(buf, n, "%.3fx", num / den);
	else
		snprintf(buf, n, "-");
	return buf;
}

void kp_tune_result_table(const struct kp_tune_space *s, const struct kp_tune_result *r, double ref_seconds,
                          struct kp_buf *out)
{
	size_t *order = kp_xcalloc(r->ntrials ? r->ntrials : 1, sizeof(*order));
	int width[KP_TUNE_MAX_KNOBS];
	int with_ref = ref_seconds > 0;
	double base =
	    r->def >= 0 && r->trials[r->def].m.status == KP_TUNE_OK ? r->trials[r->def].m.seconds : 0;

	kp_tune_result_ranked(r, order);
	for (size_t k = 0; k < s->nknobs; k++) {
		const struct kp_tune_knob *kn = &s->knobs[k];
		width[k] = (int)strlen(kn->name);
		for (size_t i = 0; i < kn->nvalues; i++) {
			char v[32];
			int w = snprintf(v, sizeof(v), "%lld", kn->values[i]);
			width[k] = w > width[k] ? w : width[k];
		}
	}
	kp_buf_addf(out, "%-5s %-12s %-12s %-10s", "rank", "status", "time", "vs untuned");
	if (with_ref)
		kp_buf_addf(out, " %-9s", "vs ref");
	for (size_t k = 0; k < s->nknobs; k++)
		kp_buf_addf(out, " %*s", width[k], s->knobs[k].name);
	kp_buf_addch(out, '\n');
	for (size_t i = 0; i < r->ntrials; i++) {
		const struct kp_tune_trial *t = &r->trials[order[i]];
		int ok = t->m.status == KP_TUNE_OK;
		char time[32] = "-", a[16], b[16];
		if (ok && t->m.seconds < 1e-3)
			snprintf(time, sizeof(time), "%.3f us", t->m.seconds * 1e6);
		else if (ok)
			snprintf(time, sizeof(time), "%.4f ms", t->m.seconds * 1e3);
		kp_buf_addf(out, "%-5zu %-12s %-12s %-10s", i + 1, kp_tune_status_name(t->m.status), time,
		            ratio(a, sizeof(a), ok ? base : 0, t->m.seconds));
		if (with_ref)
			kp_buf_addf(out, " %-9s", ratio(b, sizeof(b), ok ? ref_seconds : 0, t->m.seconds));
		for (size_t k = 0; k < s->nknobs; k++)
			kp_buf_addf(out, " %*lld", width[k], s->knobs[k].values[t->point.v[k]]);
		if ((long)order[i] == r->def)
			kp_buf_adds(out, "  (untuned)");
		if (t->cached)
			kp_buf_adds(out, "  (cached)");
		kp_buf_addch(out, '\n');
	}
	free(order);
}

json_t *kp_tune_result_to_json(const struct kp_tune_space *s, const struct kp_tune_result *r)
{
	json_t *o = json_object(), *trials = json_array();
	for (size_t i = 0; i < r->ntrials; i++) {
		const struct kp_tune_trial *t = &r->trials[i];
		struct kp_buf p = KP_BUF_INIT;
		json_t *j = json_object();
		kp_tune_point_format(s, &t->point, &p);
		kp_json_set(j, "point", json_string(p.buf));
		kp_json_set(j, "status", json_string(kp_tune_status_name(t->m.status)));
		kp_json_set(j, "seconds",
		            t->m.status == KP_TUNE_OK ? kp_json_real(t->m.seconds) : json_null());
		kp_json_set(j, "cached", json_boolean(t->cached));
		json_array_append_new(trials, j);
		kp_buf_release(&p);
	}
	kp_json_set(o, "strategy", json_string(kp_tune_strategy_name(r->strategy)));
	kp_json_set(o, "feasible", r->feasible_known ? json_integer((json_int_t)r->feasible) : json_null());
	kp_json_set(o, "cache_hits", json_integer((json_int_t)r->cache_hits));
	kp_json_set(o, "exhausted", json_boolean(r->exhausted));
	kp_json_set(o, "best", r->best >= 0 ? json_integer(r->best) : json_null());
	kp_json_set(o, "default", r->def >= 0 ? json_integer(r->def) : json_null());
	kp_json_set(o, "trials", trials);
	return o;
}

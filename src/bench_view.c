/*
 * kernelpro bench: what the user sees while a suite runs (notes, one line per GPU and the totals).
 */
#include "base/setup.h"

#include <math.h>

#include "bench_cli.h"
#include "kernelpro/str.h"
#include "runs.h"

/* ---- what the user sees while it runs --------------------------------------------------------------- */

void kp_bench_cli_on_note(int run, const char *line, void *ud)
{
	struct bench_state *B = ud;
	if (B->cli->json || B->cli->verbosity < 0 || (run && B->cli->verbosity < 1))
		return;
	kp_buf_reset(&B->note);
	kp_buf_addf(&B->note, "kernelpro: %s", line);
	kp_progress_note(&B->cli->progress, B->note.buf);
}

static void fmt_count(long n, char *buf, size_t len)
{
	if (n >= 1000000)
		snprintf(buf, len, "%.1fM", n / 1e6);
	else if (n >= 1000)
		snprintf(buf, len, "%.1fk", n / 1e3);
	else
		snprintf(buf, len, "%ld", n);
}

/* One line per GPU and the totals. */
void kp_bench_cli_render(const struct kp_bench_view *v, struct kp_buf *b)
{
	char el[32], eta[32], tok[32];
	long ended = v->states[KP_SUITE_FINISHED] + v->states[KP_SUITE_FAILED];

	kp_buf_reset(b);
	for (int i = 0; i < v->nslots; i++) {
		const struct kp_bench_slot_view *s = &v->slot[i];
		kp_buf_addf(b, "gpu%-2d ", s->gpu);
		if (!s->busy) {
			kp_buf_addf(b, "%s\n", s->phase);
			continue;
		}
		kp_buf_addf(b, "%-24.24s %-16.16s", s->task, s->phase);
		if (s->budget_evals)
			kp_buf_addf(b, " %ld/%ld", s->evals, s->budget_evals);
		else
			kp_buf_addf(b, " %ld", s->evals);
		if (s->best_speedup > 1.0)
			kp_buf_addf(b, "  best %.2fx", s->best_speedup);
		kp_buf_addf(b, "  %s\n", kp_fmt_duration(s->task_elapsed_s, el, sizeof(el)));
	}
	fmt_count(v->tokens, tok, sizeof(tok));
	kp_buf_addf(b, "suite %ld/%ld done (%ld failed), %ld running", ended, v->tasks,
	            v->states[KP_SUITE_FAILED], v->states[KP_SUITE_RUNNING]);
	if (v->baselines_left)
		kp_buf_addf(b, ", %ld %s left", v->baselines_left, kp_plural(v->baselines_left, "baseline", "baselines"));
	kp_buf_addf(b, "  fast_1 %ld/%ld  evals %ld  tokens %s  $%.2f  %s", v->fast1, ended, v->evaluations,
	            tok, v->cost_usd, kp_fmt_duration(v->elapsed_s, el, sizeof(el)));
	if (!isnan(v->eta_s))
		kp_buf_addf(b, "  ETA %s", kp_fmt_duration(v->eta_s, eta, sizeof(eta)));
}

void kp_bench_cli_on_tick(const struct kp_bench_view *v, void *ud)
{
	struct bench_state *B = ud;
	if (B->cli->json || B->cli->verbosity < 0)
		return;
	kp_bench_cli_render(v, &B->block);
	kp_progress_block(&B->cli->progress, B->block.buf, 0);
}

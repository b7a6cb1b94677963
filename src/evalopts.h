/* Options shared by `kernelpro eval` and `kernelpro baseline`: how evaluations are run and timed. */
#ifndef KP_EVALOPTS_H
#define KP_EVALOPTS_H

#include "cli.h"
#include "kernelpro/eval.h"

/* Table entries every evaluating command lists (see evalopts.c for what each does). A command whose
 * --seed means something else (tune: the strategy's) lists KP_EVAL_COMMON_OPTS_NO_SEED. */
#define KP_EVAL_COMMON_OPTS \
	{"seed", 0, KP_OPT_INT, "N", "seed for weights and inputs", "42"}, KP_EVAL_COMMON_OPTS_NO_SEED
#define KP_EVAL_COMMON_OPTS_NO_SEED                                                                         \
	{"gpu", 0, KP_OPT_INT, "N", "GPU index (of CUDA_VISIBLE_DEVICES when set)", "0"},                   \
	    {"trials", 0, KP_OPT_INT, "N", "timed trials (after warm-ups and one discarded trial)", "100"}, \
	    {"warmup", 0, KP_OPT_INT, "N", "warm-up runs before timing", "3"},                              \
	    {"no-l2-flush", 0, KP_OPT_FLAG, NULL, "do not write 256 MB before each timed trial", NULL},     \
	    {"build-timeout",                                                                               \
	     0,                                                                                             \
	     KP_OPT_NUM,                                                                                    \
	     "S",                                                                                           \
	     "limit for building (nvcc, load_inline, torch import)",                                        \
	     "300"},                                                                                        \
	    {"check-timeout", 0, KP_OPT_NUM, "S", "limit for loading and the correctness trials", "180"},   \
	    {"timing-timeout", 0, KP_OPT_NUM, "S", "limit for warm-up and timing", "300"},                  \
	    {"cache",                                                                                       \
	     0,                                                                                             \
	     KP_OPT_STR,                                                                                    \
	     "DIR",                                                                                         \
	     "build cache (default $KERNELPRO_CACHE or ~/.cache/kernelpro/builds)",                         \
	     NULL},                                                                                         \
	    {"work-dir", 0, KP_OPT_STR, "DIR", "scratch directory (default: a fresh temporary one)", NULL}, \
	    {"keep-work", 0, KP_OPT_FLAG, NULL, "keep the scratch directory", NULL},                        \
	    {"python", 0, KP_OPT_STR, "PATH", "python3 with torch (default $KERNELPRO_PYTHON or python3)",  \
	     NULL},                                                                                         \
	    {"nvcc", 0, KP_OPT_STR, "PATH", "nvcc to use", NULL},                                           \
	    {"arch", 0, KP_OPT_STR, "SM", "target architecture, e.g. sm_90a (default: the GPU's)", NULL},   \
	    {"nvcc-flag", 0, KP_OPT_LIST, "FLAG", "extra nvcc flag (part of the build cache key)", NULL},   \
	    {"worker",                                                                                      \
	     0,                                                                                             \
	     KP_OPT_FLAG,                                                                                   \
	     NULL,                                                                                          \
	     "evaluate in the warm worker for this GPU (started if none): no Python/PyTorch start-up per "  \
	     "candidate",                                                                                   \
	     NULL},                                                                                         \
	{                                                                                                   \
		"cpu-inputs", 0, KP_OPT_FLAG, NULL,                                                         \
		    "draw KernelBench inputs on the CPU (KernelBench's exact values; slow)", NULL           \
	}

/* Fills `o` from the parsed options; prints a usage error and returns nonzero on a bad value. The seed
 * comes from --seed, so a table without KP_EVAL_COMMON_OPTS's must set o->seed after. */
int kp_evalopts_from_args(struct kp_cli *cli, const struct kp_args *a, struct kp_eval_opts *o);

/* The tolerances --tolerance-mode names (eval, bench): KernelBench v0/v0.1's, else HEAD's. Only for a
 * command whose table has the option. */
enum kp_tol_mode kp_evalopts_tol_mode(const struct kp_args *a);

/* "0.412 ms" style: three significant digits, unit chosen by size. */
const char *kp_fmt_ms(double ms, char *buf, size_t n);

/* `eval --explain-checks`: the check table for people (or as JSON with --json); an exit code
 * (src/eval_checks.c). */
int kp_cli_explain_checks(struct kp_cli *cli);

#endif

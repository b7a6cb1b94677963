/*
 * What a command needs before it starts (a model chosen, a GPU, a tool), checked together so that
 * one try reports everything missing, not the first thing only.
 *
 *	struct kp_prereq p;
 *	kp_prereq_init(&p, cli);
 *	kp_prereq_llm(&p, args, NULL);
 *	kp_prereq_gpu(&p, gpu, "the built-in harness evaluates every candidate on one");
 *	if ((rc = kp_prereq_done(&p)))
 *		return rc;       every problem was said, one error line each
 */
#ifndef KP_PREREQ_H
#define KP_PREREQ_H

#include "cli.h"

struct kp_prereq {
	struct kp_cli *cli;
	int usage;   /* problems of the command line (exit 2) */
	int missing; /* tools or devices missing (exit 3) */
	int failed;  /* anything else (exit 1) */
};

void kp_prereq_init(struct kp_prereq *p, struct kp_cli *cli);

/*
 * The model: --llm as given is a spec kernelpro reads (else a usage problem), and a backend is
 * chosen somewhere (the command line, $KERNELPRO_LLM, the config file, or fallback_spec: a resumed
 * run's; else a usage problem). A config file that cannot be read is a failure.
 */
void kp_prereq_llm(struct kp_prereq *p, const struct kp_args *a, const char *fallback_spec);

/* A path the command reads exists (`what` names it: "task"); else a failure, said with the reason. */
void kp_prereq_path(struct kp_prereq *p, const char *path, const char *what);

/* GPU `index` usable here, through the driver; `why` says what needs it and what to do instead. */
void kp_prereq_gpu(struct kp_prereq *p, int index, const char *why);

/* 0 when nothing is missing; else the exit code: 2 when the command line is wrong, else 3 when a
 * tool or device is missing, else 1. */
int kp_prereq_done(const struct kp_prereq *p);

#endif

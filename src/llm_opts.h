/* The LLM options every command that asks a model shares (ask, optimize): one table, one reader. */
#ifndef KP_LLM_OPTS_H
#define KP_LLM_OPTS_H

#include "cli.h"
#include "kernelpro/llm.h"

/* Put inside a command's option table: { ..., KP_LLM_CLI_OPTS, KP_OPT_TABLE_END }. */
#define KP_LLM_CLI_OPTS                                                                                          \
	{"llm", 0, KP_OPT_STR, "PROVIDER:MODEL",                                                                 \
	 "openai:MODEL, anthropic:MODEL, exec:PROGRAM, replay:DIR, replay-hash:DIR, or gpt-4o, openai/gpt-4o, " \
	 "claude-* (docs/llm.md; else $KERNELPRO_LLM)",                                                            \
	 NULL},                                                                                                  \
	{"llm-config", 0, KP_OPT_STR, "FILE",                                                                    \
	 "JSON config (else $KERNELPRO_LLM_CONFIG, else ~/.config/kernelpro/llm.json when present)", NULL},      \
	{"record", 0, KP_OPT_STR, "DIR", "write every prompt and reply to DIR (replay it with --llm replay:DIR)", \
	 NULL},                                                                                                  \
	{"temperature", 0, KP_OPT_NUM, "T:0..2", "sampling temperature (default: the provider's)", NULL},             \
	{"max-tokens", 0, KP_OPT_INT, "N:1..", "reply tokens per request (default 8192)", NULL},                     \
	{"llm-timeout", 0, KP_OPT_NUM, "SECONDS:>0", "time limit per request attempt (default 300)", NULL},         \
	{"llm-retries", 0, KP_OPT_INT, "N:0..", "retries on 429/5xx/timeouts (default 4)", NULL}

/*
 * Builds the configuration from, in rising precedence: the config file,
 * $KERNELPRO_LLM, then the command line (kp_llm_config_load); fallback_spec
 * (a resumed run's, or NULL) when none of them chose a backend. cfg is
 * initialised here; release it.
 */
int kp_cli_llm_config(const struct kp_args *a, const char *fallback_spec, struct kp_llm_config *cfg,
		      struct kp_error *err);

/* True when no backend was chosen anywhere (a dry run needs none). */
int kp_cli_llm_chosen(const struct kp_llm_config *cfg);

#endif

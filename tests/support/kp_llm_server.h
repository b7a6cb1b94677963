/* Starts and stops the loopback LLM server (tests/llm_server.py) for unit tests that talk HTTP. */
#ifndef KP_LLM_SERVER_H
#define KP_LLM_SERVER_H

#include <sys/types.h>

#include "kernelpro/llm.h"

struct kp_test_server {
	pid_t pid;
	int port;
	char *dir;      /* temp dir holding the port file and the request log */
	char *log;      /* the server's request log (JSON lines; never holds the key) */
};

/*
 * Starts the server requiring `key` ("" accepts any) and answering with the
 * text in `reply_file` (NULL: its built-in reply). Returns 0, or -1 when
 * python3 is missing (the caller skips).
 */
int kp_test_server_start(struct kp_test_server *s, const char *key, const char *reply_file);
void kp_test_server_stop(struct kp_test_server *s);

/* "http://127.0.0.1:PORT/<scenario>[/v1]" into a static buffer. */
const char *kp_test_server_url(const struct kp_test_server *s, const char *scenario, int with_v1);

/* How many logged requests contain `needle` (in the JSON line). */
int kp_test_server_count(const struct kp_test_server *s, const char *needle);

/*
 * For a test group's setup: starts the server requiring `key`, exports it as
 * OPENAI_API_KEY and ANTHROPIC_API_KEY and clears the base-URL variables.
 * Returns -1 when python3 is missing (the group is skipped).
 */
int kp_test_server_setup(struct kp_test_server *s, const char *key);

/*
 * A config for the server: provider p, a model, the scenario in the URL,
 * short backoffs (0.05 s, at most 5 s) so retries are quick, 10 s per attempt.
 */
void kp_test_server_config(const struct kp_test_server *s, struct kp_llm_config *c, enum kp_llm_provider p,
			   const char *scenario);

/* Opens c, sends req once, frees the handle and releases c; the reply and err go to the caller. */
int kp_test_llm_ask(struct kp_llm_config *c, const struct kp_llm_request *req, struct kp_llm_reply *r,
		    struct kp_error *err);

#endif

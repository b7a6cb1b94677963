/* Starts and stops the loopback LLM server (tests/llm_server.py) for unit tests that talk HTTP. */
#ifndef KP_LLM_SERVER_H
#define KP_LLM_SERVER_H

#include <sys/types.h>

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

#endif

/* The loopback LLM server as a child of a unit test: started with its port in a file, killed by pid. */
#include "base/setup.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kp_llm_server.h"
#include "kp_test.h"
#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"

int kp_test_server_start(struct kp_test_server *s, const char *key, const char *reply_file)
{
	struct kp_buf pf = KP_BUF_INIT, b = KP_BUF_INIT;
	char *py = kp_which("python3");
	char script[4096];
	double end;

	memset(s, 0, sizeof(*s));
	if (!py)
		return -1;
	s->dir = kp_test_tmpdir();
	kp_buf_addf(&pf, "%s/port", s->dir);
	s->log = kp_xasprintf("%s/requests.jsonl", s->dir);
	snprintf(script, sizeof(script), "%s", kp_test_path("tests/llm_server.py"));
	s->pid = fork();
	if (s->pid == 0) {
		const char *argv[12];
		int n = 0;
		argv[n++] = py;
		argv[n++] = script;
		argv[n++] = "--port-file";
		argv[n++] = pf.buf;
		argv[n++] = "--key";
		argv[n++] = key;
		argv[n++] = "--log";
		argv[n++] = s->log;
		if (reply_file) {
			argv[n++] = "--reply-file";
			argv[n++] = reply_file;
		}
		argv[n] = NULL;
		execv(py, (char *const *)argv);
		_exit(127);
	}
	free(py);
	end = kp_now() + 20;
	while (kp_now() < end) {
		long port;
		kp_buf_reset(&b);
		if (kp_read_file(pf.buf, 64, &b, NULL) == 0 && !kp_parse_long(b.buf, &port)) {
			s->port = (int)port;
			break;
		}
		usleep(20000);
	}
	kp_buf_release(&pf);
	kp_buf_release(&b);
	if (!s->port)
		fail_msg("loopback LLM server did not start");
	return 0;
}

void kp_test_server_stop(struct kp_test_server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
	}
	kp_test_tmpdir_remove(s->dir);
	free(s->log);
	memset(s, 0, sizeof(*s));
}

const char *kp_test_server_url(const struct kp_test_server *s, const char *scenario, int with_v1)
{
	static char url[512];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/%s%s", s->port, scenario, with_v1 ? "/v1" : "");
	return url;
}

int kp_test_server_setup(struct kp_test_server *s, const char *key)
{
	if (kp_test_server_start(s, key, NULL))
		return -1;
	setenv("OPENAI_API_KEY", key, 1);
	setenv("ANTHROPIC_API_KEY", key, 1);
	unsetenv("OPENAI_BASE_URL");
	unsetenv("ANTHROPIC_BASE_URL");
	return 0;
}

void kp_test_server_config(const struct kp_test_server *s, struct kp_llm_config *c, enum kp_llm_provider p,
			   const char *scenario)
{
	kp_llm_config_init(c);
	c->provider = p;
	c->model = kp_xstrdup(p == KP_LLM_ANTHROPIC ? "claude-sonnet-4-5" : "gpt-4o");
	c->base_url = kp_xstrdup(kp_test_server_url(s, scenario, p == KP_LLM_OPENAI));
	c->backoff_s = 0.05;
	c->backoff_max_s = 5;
	c->timeout_s = 10;
}

int kp_test_llm_ask(struct kp_llm_config *c, const struct kp_llm_request *req, struct kp_llm_reply *r,
		    struct kp_error *err)
{
	struct kp_llm *llm = NULL;
	int rc = kp_llm_open(&llm, c, err);
	memset(r, 0, sizeof(*r));
	if (!rc)
		rc = kp_llm_complete(llm, req, r, err);
	kp_llm_free(llm);
	kp_llm_config_release(c);
	return rc;
}

int kp_test_server_count(const struct kp_test_server *s, const char *needle)
{
	struct kp_buf b = KP_BUF_INIT;
	int n = 0;
	if (kp_read_file(s->log, 0, &b, NULL) == 0) {
		for (const char *p = b.buf; (p = strstr(p, needle)); p++)
			n++;
	}
	kp_buf_release(&b);
	return n;
}

/*
 * bench/llm_overhead: what kp_llm adds to each request beyond the server's own time, and whether N requests
 * in flight finish in about the time of one. Runs on CPU against a minimal HTTP server in this process
 * (one thread per connection, answering after a delay given in the URL), so the server's own time is the
 * delay plus microseconds. Build and run: make bench-llm (prints a table; see docs/internals/llm.md).
 */
#include "base/setup.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kernelpro/buf.h"
#include "kernelpro/llm.h"
#include "kernelpro/log.h"

static char reply_text[4096];

/* --- A minimal keep-alive HTTP/1.1 server ---------------------------------------------------------- */

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (ms > 0 && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void *serve_conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	struct kp_buf in = KP_BUF_INIT, body = KP_BUF_INIT, resp = KP_BUF_INIT;
	char chunk[65536];

	for (;;) {
		char *hdr_end;
		size_t need;
		long delay = 0, clen = 0;
		const char *cl, *d;
		int anthropic;

		while (!(hdr_end = strstr(in.buf, "\r\n\r\n"))) {
			ssize_t r = read(fd, chunk, sizeof(chunk));
			if (r <= 0)
				goto out;
			kp_buf_add(&in, chunk, (size_t)r);
		}
		cl = strcasestr(in.buf, "Content-Length:");
		if (cl && cl < hdr_end)
			clen = strtol(cl + 15, NULL, 10);
		need = (size_t)(hdr_end - in.buf) + 4 + (size_t)clen;
		while (in.len < need) {
			ssize_t r = read(fd, chunk, sizeof(chunk));
			if (r <= 0)
				goto out;
			kp_buf_add(&in, chunk, (size_t)r);
		}
		d = strstr(in.buf, "/d=");
		if (d && d < hdr_end)
			delay = strtol(d + 3, NULL, 10);
		anthropic = strstr(in.buf, "/v1/messages ") != NULL;
		sleep_ms(delay);
		kp_buf_reset(&body);
		if (anthropic)
			kp_buf_adds(&body, "{\"id\":\"m\",\"type\":\"message\",\"model\":\"bench\",\"content\":[{\"type\":\"text\",\"text\":\"");
		else
			kp_buf_adds(&body, "{\"id\":\"c\",\"object\":\"chat.completion\",\"model\":\"bench\",\"choices\":[{\"index\":0,"
					   "\"message\":{\"role\":\"assistant\",\"content\":\"");
		kp_buf_add_escaped(&body, reply_text, strlen(reply_text));
		if (anthropic)
			kp_buf_adds(&body, "\"}],\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":7000,\"output_tokens\":1000}}");
		else
			kp_buf_adds(&body, "\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":7000,\"completion_tokens\":1000}}");
		kp_buf_reset(&resp);
		kp_buf_addf(&resp, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n", body.len);
		kp_buf_add(&resp, body.buf, body.len);
		if (write_all(fd, resp.buf, resp.len))
			goto out;
		/* Keep what came after this request (pipelining is not used, but be exact). */
		memmove(in.buf, in.buf + need, in.len - need);
		kp_buf_setlen(&in, in.len - need);
	}
out:
	close(fd);
	kp_buf_release(&in);
	kp_buf_release(&body);
	kp_buf_release(&resp);
	return NULL;
}

static void *serve(void *arg)
{
	int ls = (int)(intptr_t)arg;
	for (;;) {
		int fd = accept(ls, NULL, NULL), one = 1;
		pthread_t t;
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (pthread_create(&t, NULL, serve_conn, (void *)(intptr_t)fd))
			close(fd);
		else
			pthread_detach(t);
	}
	return NULL;
}

static int start_server(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	pthread_t t;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 256) ||
	    getsockname(ls, (struct sockaddr *)&a, &al) || pthread_create(&t, NULL, serve, (void *)(intptr_t)ls)) {
		fprintf(stderr, "llm_overhead: cannot start the loopback server: %s\n", strerror(errno));
		exit(1);
	}
	pthread_detach(t);
	return ntohs(a.sin_port);
}

/* --- Measurements ---------------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static struct kp_llm *open_llm(enum kp_llm_provider p, int port, long delay_ms, int parallel)
{
	struct kp_llm_config c;
	struct kp_llm *llm = NULL;
	struct kp_error err = KP_ERROR_INIT;
	char url[256];
	kp_llm_config_init(&c);
	c.provider = p;
	c.model = kp_xstrdup("bench-model");
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/d=%ld%s", port, delay_ms, p == KP_LLM_OPENAI ? "/v1" : "");
	c.base_url = kp_xstrdup(url);
	c.parallel = parallel;
	c.retries = 0;
	if (kp_llm_open(&llm, &c, &err)) {
		fprintf(stderr, "llm_overhead: %s\n", kp_error_msg(&err));
		exit(1);
	}
	kp_llm_config_release(&c);
	return llm;
}

/* Median and 95th percentile of (wall - delay) over k sequential requests, in ms. */
static void sequential(enum kp_llm_provider p, int port, long delay_ms, int k, const struct kp_llm_request *req)
{
	struct kp_llm *llm = open_llm(p, port, delay_ms, 1);
	double *t = kp_xcalloc((size_t)k, sizeof(*t)), sum = 0;
	for (int i = -5; i < k; i++) { /* 5 warm-ups: the connection is set up once, as in a run */
		struct kp_llm_reply r;
		struct kp_error err = KP_ERROR_INIT;
		double t0 = kp_now();
		if (kp_llm_complete(llm, req, &r, &err)) {
			fprintf(stderr, "llm_overhead: %s\n", kp_error_msg(&err));
			exit(1);
		}
		if (i >= 0) {
			t[i] = (kp_now() - t0) * 1e3 - (double)delay_ms;
			sum += t[i];
		}
		kp_llm_reply_release(&r);
	}
	qsort(t, (size_t)k, sizeof(*t), cmp_double);
	printf("%-10s %8ld %6d %12.3f %12.3f %12.3f\n", kp_llm_provider_name(p), delay_ms, k, t[k / 2],
	       t[(int)(k * 0.95)], sum / k);
	free(t);
	kp_llm_free(llm);
}

static void parallel_run(int port, long delay_ms, int n, const struct kp_llm_request *req)
{
	struct kp_llm *llm = open_llm(KP_LLM_OPENAI, port, delay_ms, n);
	struct kp_llm_request *reqs = kp_xcalloc((size_t)n, sizeof(*reqs));
	struct kp_llm_reply *reps = kp_xcalloc((size_t)n, sizeof(*reps));
	double t0, wall;
	for (int i = 0; i < n; i++)
		reqs[i] = *req;
	t0 = kp_now();
	if (kp_llm_complete_many(llm, reqs, (size_t)n, reps, NULL)) {
		fprintf(stderr, "llm_overhead: a parallel request failed\n");
		exit(1);
	}
	wall = kp_now() - t0;
	printf("%10d %10ld %12.1f %10.3f\n", n, delay_ms, wall * 1e3, wall * 1e3 / (double)delay_ms);
	for (int i = 0; i < n; i++)
		kp_llm_reply_release(&reps[i]);
	free(reqs);
	free(reps);
	kp_llm_free(llm);
}

int main(int argc, char **argv)
{
	struct kp_buf prompt = KP_BUF_INIT;
	struct kp_llm_msg msg;
	struct kp_llm_request req;
	int port, k = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 300;
	static const int ns[] = {1, 2, 4, 8, 16, 32};

	if (k < 20)
		k = 20;
	/* A prompt and a reply of the size the optimize prompts and candidates have (~28 KB in, ~4 KB out). */
	for (int i = 0; i < 400; i++)
		kp_buf_addf(&prompt, "line %03d of the prompt: __global__ void k(const float4 *x) { /* code */ }\n", i);
	for (size_t i = 0; i + 1 < sizeof(reply_text); i++)
		reply_text[i] = i % 80 == 79 ? '\n' : (char)('a' + i % 26);
	msg = (struct kp_llm_msg){KP_LLM_USER, prompt.buf};
	req = (struct kp_llm_request){"You write CUDA.", &msg, 1, "bench"};
	setenv("OPENAI_API_KEY", "bench-not-a-real-key", 1);
	setenv("ANTHROPIC_API_KEY", "bench-not-a-real-key", 1);
	port = start_server();

	printf("kp_llm overhead per request (prompt %zu bytes, reply %zu bytes), ms beyond the server's delay\n",
	       prompt.len, strlen(reply_text));
	printf("%-10s %8s %6s %12s %12s %12s\n", "provider", "delay_ms", "n", "median", "p95", "mean");
	sequential(KP_LLM_OPENAI, port, 0, k, &req);
	sequential(KP_LLM_ANTHROPIC, port, 0, k, &req);
	sequential(KP_LLM_OPENAI, port, 20, k / 5, &req);
	printf("\nN requests in flight, server answering each after the delay, in parallel\n");
	printf("%10s %10s %12s %10s\n", "in_flight", "delay_ms", "wall_ms", "wall/delay");
	for (size_t i = 0; i < KP_ARRAY_SIZE(ns); i++)
		parallel_run(port, 500, ns[i], &req);
	kp_buf_release(&prompt);
	return 0;
}

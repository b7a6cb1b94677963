/*
 * kernelpro's CUPTI tracer: a shared library the CUDA driver loads through
 * CUDA_INJECTION64_PATH (entry point InitializeInjection). It records kernels,
 * memcpys, memsets, synchronizations and runtime API calls with CUPTI's
 * activity API and writes them as JSON (format in docs/trace.md) at exit to
 * the file named by $KP_TRACE_OUT (default: kp_trace.json).
 *
 * Built with gcc against the toolkit's cupti.h and libcupti; it runs inside
 * the traced program, so it keeps to plain libc and never exits on error.
 */
#define _GNU_SOURCE 1
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#include <cupti.h>

#define BUF_SIZE (8u << 20)
#define ALIGN 8

enum kind { K_KERNEL, K_MEMCPY, K_MEMSET, K_SYNC, K_API };
static const char *const kind_names[] = {"kernel", "memcpy", "memset", "sync", "api"};

struct event {
	enum kind kind;
	char *name;
	uint64_t start, end, bytes;
	int grid[3], block[3];
	uint32_t stream, correlation;
};

static struct {
	pthread_mutex_t lock;
	struct event *ev;
	size_t n, alloc;
	size_t dropped;
	int written;
	int initialized;
} T = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, 0, 0};

static void report(const char *what, CUptiResult r)
{
	const char *s = "?";
	cuptiGetResultString(r, &s);
	fprintf(stderr, "kp_tracer: %s failed: %s\n", what, s);
}

static struct event *push(void)
{
	if (T.n == T.alloc) {
		size_t n = T.alloc ? T.alloc * 2 : 4096;
		struct event *p = realloc(T.ev, n * sizeof(*p));
		if (!p) {
			T.dropped++;
			return NULL;
		}
		T.ev = p;
		T.alloc = n;
	}
	memset(&T.ev[T.n], 0, sizeof(T.ev[0]));
	return &T.ev[T.n++];
}

static char *dup_name(const char *s)
{
	char *d = strdup(s ? s : "");
	return d ? d : (char *)"";
}

static const char *memcpy_kind(uint8_t k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
	default: return "other";
	}
}

static const char *sync_kind(CUpti_ActivitySynchronizationType t)
{
	switch (t) {
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "event";
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "stream_wait_event";
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "stream";
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "context";
	default: return "unknown";
	}
}

static void record(const CUpti_Activity *a)
{
	struct event *e;
	switch (a->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const void *)a;
		if (!(e = push()))
			return;
		e->kind = K_KERNEL;
		e->name = dup_name(k->name);
		e->start = k->start;
		e->end = k->end;
		e->grid[0] = k->gridX, e->grid[1] = k->gridY, e->grid[2] = k->gridZ;
		e->block[0] = k->blockX, e->block[1] = k->blockY, e->block[2] = k->blockZ;
		e->stream = k->streamId;
		e->correlation = k->correlationId;
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const void *)a;
		if (!(e = push()))
			return;
		e->kind = K_MEMCPY;
		e->name = dup_name(memcpy_kind(m->copyKind));
		e->start = m->start;
		e->end = m->end;
		e->bytes = m->bytes;
		e->stream = m->streamId;
		e->correlation = m->correlationId;
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const void *)a;
		if (!(e = push()))
			return;
		e->kind = K_MEMSET;
		e->name = dup_name("memset");
		e->start = m->start;
		e->end = m->end;
		e->bytes = m->bytes;
		e->stream = m->streamId;
		e->correlation = m->correlationId;
		break;
	}
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
		const CUpti_ActivitySynchronization2 *s = (const void *)a;
		if (!(e = push()))
			return;
		e->kind = K_SYNC;
		e->name = dup_name(sync_kind(s->type));
		e->start = s->start;
		e->end = s->end;
		e->stream = s->streamId;
		e->correlation = s->correlationId;
		break;
	}
	case CUPTI_ACTIVITY_KIND_RUNTIME: {
		const CUpti_ActivityAPI *r = (const void *)a;
		const char *name = NULL;
		if (!(e = push()))
			return;
		e->kind = K_API;
		cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, r->cbid, &name);
		e->name = dup_name(name ? name : "unknown");
		e->start = r->start;
		e->end = r->end;
		e->correlation = r->correlationId;
		break;
	}
	default:
		break;
	}
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	uint8_t *b = NULL;
	if (posix_memalign((void **)&b, ALIGN, BUF_SIZE))
		b = NULL;
	*buffer = b;
	*size = b ? BUF_SIZE : 0;
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
	CUpti_Activity *rec = NULL;
	size_t dropped = 0;
	(void)size;
	pthread_mutex_lock(&T.lock);
	while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS)
		record(rec);
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
		T.dropped += dropped;
	pthread_mutex_unlock(&T.lock);
	free(buffer);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void write_trace(void)
{
	const char *path = getenv("KP_TRACE_OUT");
	char tmp[4096];
	FILE *f;
	if (!path || !*path)
		path = "kp_trace.json";
	cuptiActivityFlushAll(1);
	pthread_mutex_lock(&T.lock);
	if (T.written)
		goto out;
	T.written = 1;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	if (!(f = fopen(tmp, "w"))) {
		fprintf(stderr, "kp_tracer: cannot write %s\n", tmp);
		goto out;
	}
	fprintf(f, "{\"format\": \"kernelpro-trace\", \"version\": 1, \"pid\": %d, \"complete\": true, \"dropped\": %zu,\n"
		   " \"events\": [\n", (int)getpid(), T.dropped);
	for (size_t i = 0; i < T.n; i++) {
		const struct event *e = &T.ev[i];
		fprintf(f, "  {\"kind\": \"%s\", \"name\": ", kind_names[e->kind]);
		json_str(f, e->name);
		fprintf(f, ", \"start\": %llu, \"end\": %llu", (unsigned long long)e->start, (unsigned long long)e->end);
		if (e->kind == K_KERNEL)
			fprintf(f, ", \"grid\": [%d, %d, %d], \"block\": [%d, %d, %d]", e->grid[0], e->grid[1], e->grid[2],
				e->block[0], e->block[1], e->block[2]);
		if (e->kind == K_MEMCPY || e->kind == K_MEMSET)
			fprintf(f, ", \"bytes\": %llu", (unsigned long long)e->bytes);
		if (e->kind != K_API)
			fprintf(f, ", \"stream\": %u", e->stream);
		fprintf(f, ", \"correlation\": %u}%s\n", e->correlation, i + 1 < T.n ? "," : "");
	}
	fprintf(f, " ]}\n");
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "kp_tracer: cannot write %s\n", path);
		unlink(tmp);
	}
out:
	pthread_mutex_unlock(&T.lock);
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
	static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
						   CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
						   CUPTI_ACTIVITY_KIND_RUNTIME};
	CUptiResult r;
	if (T.initialized)
		return 1;
	T.initialized = 1;
	if ((r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)) != CUPTI_SUCCESS) {
		report("cuptiActivityRegisterCallbacks", r);
		return 0;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((r = cuptiActivityEnable(kinds[i])) != CUPTI_SUCCESS)
			report("cuptiActivityEnable", r);
	atexit(write_trace);
	return 1;
}

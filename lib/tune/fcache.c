/*
 * Tuning results kept in files (kp_tune_fcache): one JSON-lines file per space hash, appended one
 * line per result, read once per space into a table keyed by (GPU, point). The run database takes this
 * role inside `optimize`; the file cache serves `kernelpro tune` and anything else without a run.
 */
#include "base/setup.h"

#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/tune.h"

#define LINE_MAX_BYTES 4096 /* one write(2) of a line this long to an O_APPEND file is not interleaved */

struct entry {
	char *key; /* gpu '\n' point */
	struct kp_tune_measure m;
};

struct kp_tune_fcache {
	char *dir, *context;
	char source[65]; /* the space whose file is loaded; "" when none */
	struct entry *slot;
	size_t nslots, used;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static void table_clear(struct kp_tune_fcache *c)
{
	for (size_t i = 0; i < c->nslots; i++)
		free(c->slot[i].key);
	free(c->slot);
	c->slot = NULL;
	c->nslots = c->used = 0;
}

static struct entry *table_find(const struct kp_tune_fcache *c, const char *key)
{
	if (!c->nslots)
		return NULL;
	for (size_t i = fnv1a(key) & (c->nslots - 1);; i = (i + 1) & (c->nslots - 1)) {
		if (!c->slot[i].key)
			return NULL;
		if (!strcmp(c->slot[i].key, key))
			return &c->slot[i];
	}
}

/* Sets key's result (the last one seen wins); takes ownership of key. */
static void table_set(struct kp_tune_fcache *c, char *key, const struct kp_tune_measure *m)
{
	struct entry *e = table_find(c, key);
	size_t i;
	if (e) {
		e->m = *m;
		free(key);
		return;
	}
	if (2 * (c->used + 1) > c->nslots) { /* keep it at most half full */
		struct entry *old = c->slot;
		size_t n = c->nslots;
		c->nslots = n ? 2 * n : 64;
		c->slot = kp_xcalloc(c->nslots, sizeof(*c->slot));
		c->used = 0;
		for (size_t j = 0; j < n; j++)
			if (old[j].key)
				table_set(c, old[j].key, &old[j].m);
		free(old);
	}
	for (i = fnv1a(key) & (c->nslots - 1); c->slot[i].key; i = (i + 1) & (c->nslots - 1))
		;
	c->slot[i].key = key;
	c->slot[i].m = *m;
	c->used++;
}

static char *key_of(const char *gpu, const char *point)
{
	return kp_xasprintf("%s\n%s", gpu, point);
}

/* ---- the file format -------------------------------------------------------------------------------- */

/* One line as a result, or -1. The strings point into j. */
static int read_line(const json_t *j, struct kp_tune_fcache_line *l)
{
	const json_t *sec = json_object_get(j, "seconds");
	enum kp_tune_status st;
	if (!json_is_object(j) || kp_json_int(j, "v", 0) != 1)
		return -1;
	l->context = kp_json_str(j, "ctx", NULL);
	l->gpu = kp_json_str(j, "gpu", NULL);
	l->point = kp_json_str(j, "point", NULL);
	if (!l->context || !l->gpu || !l->point || strchr(l->gpu, '\n') ||
	    kp_tune_status_parse(kp_json_str(j, "status", NULL), &st))
		return -1;
	l->m.status = st;
	l->m.seconds = 0;
	if (st == KP_TUNE_OK) {
		if (!json_is_number(sec))
			return -1;
		l->m.seconds = json_number_value(sec);
		if (!isfinite(l->m.seconds) || l->m.seconds <= 0)
			return -1;
	}
	return 0;
}

size_t kp_tune_fcache_parse(const char *text, size_t len,
                            void (*each)(void *ctx, const struct kp_tune_fcache_line *l), void *ctx)
{
	size_t bad = 0;
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		const char *line = text + pos;
		pos += n + (nl ? 1 : 0);
		while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
			n--;
		if (n == 0)
			continue;
		json_t *j = NULL;
		struct kp_tune_fcache_line l;
		if (n > LINE_MAX_BYTES || kp_json_load_mem("tune cache", line, n, &j, NULL) ||
		    read_line(j, &l))
			bad++;
		else
			each(ctx, &l);
		json_decref(j);
	}
	return bad;
}

static void keep_line(void *ctx, const struct kp_tune_fcache_line *l)
{
	struct kp_tune_fcache *c = ctx;
	if (!strcmp(l->context, c->context))
		table_set(c, key_of(l->gpu, l->point), &l->m);
}

/* ---- the cache ------------------------------------------------------------------------------------- */

static int valid_source(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!(('0' <= s[n] && s[n] <= '9') || ('a' <= s[n] && s[n] <= 'f')))
			return 0;
	return n == 64;
}

static void file_of(const struct kp_tune_fcache *c, const char *source, struct kp_buf *path)
{
	kp_buf_reset(path);
	kp_buf_addf(path, "%s/%s.jsonl", c->dir, source);
}

/* Makes `source`'s results the loaded table. */
static int load(struct kp_tune_fcache *c, const char *source, struct kp_error *err)
{
	struct kp_buf path = KP_BUF_INIT, text = KP_BUF_INIT;
	struct kp_error why = KP_ERROR_INIT;
	int rc = 0;

	if (!strcmp(c->source, source))
		return 0;
	if (!valid_source(source))
		return kp_error_set(err, KP_EINVAL, "tune cache: '%.80s' is not a space hash", source);
	table_clear(c);
	file_of(c, source, &path);
	rc = kp_read_file(path.buf, KP_TUNE_FCACHE_FILE_MAX, &text, &why);
	if (rc == KP_ENOENT) {
		rc = 0;
	} else if (rc == KP_ETOOBIG) {
		rc = kp_error_set(err, rc, "tune cache '%s' is larger than %u MiB: delete it", path.buf,
		                  KP_TUNE_FCACHE_FILE_MAX >> 20);
	} else if (rc) {
		rc = kp_error_set(err, rc, "tune cache: %s", kp_error_msg(&why));
	} else {
		kp_tune_fcache_parse(text.buf, text.len, keep_line, c);
	}
	if (!rc)
		snprintf(c->source, sizeof(c->source), "%s", source);
	kp_buf_release(&path);
	kp_buf_release(&text);
	return rc;
}

static int fc_get(void *ctx, const struct kp_tune_key *k, struct kp_tune_measure *m, struct kp_error *err)
{
	struct kp_tune_fcache *c = ctx;
	char *key;
	const struct entry *e;
	int rc;
	if ((rc = load(c, k->source, err)))
		return rc;
	key = key_of(k->gpu, k->point);
	e = table_find(c, key);
	free(key);
	if (!e)
		return 0;
	*m = e->m;
	return 1;
}

static int append_line(const char *path, const char *line, size_t len, struct kp_error *err)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644), rc = 0;
	ssize_t n;
	if (fd < 0)
		return kp_error_set(err, KP_EIO, "tune cache: cannot open '%s': %s", path, strerror(errno));
	do
		n = write(fd, line, len);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len)
		rc = kp_error_set(err, KP_EIO, "tune cache: cannot write '%s': %s", path,
		                  n < 0 ? strerror(errno) : "short write");
	close(fd);
	return rc;
}

static int fc_put(void *ctx, const struct kp_tune_key *k, const struct kp_tune_measure *m,
                  struct kp_error *err)
{
	struct kp_tune_fcache *c = ctx;
	struct kp_buf path = KP_BUF_INIT, line = KP_BUF_INIT;
	json_t *j = json_object();
	int rc;

	if ((rc = load(c, k->source, err)))
		goto out;
	if (strchr(k->gpu, '\n')) {
		rc = kp_error_set(err, KP_EINVAL, "tune cache: a GPU name with a newline");
		goto out;
	}
	kp_json_set(j, "v", json_integer(1));
	kp_json_set(j, "ctx", json_string(c->context));
	kp_json_set(j, "gpu", json_string(k->gpu));
	kp_json_set(j, "point", json_string(k->point));
	kp_json_set(j, "status", json_string(kp_tune_status_name(m->status)));
	if (m->status == KP_TUNE_OK)
		kp_json_set(j, "seconds", kp_json_real(m->seconds));
	kp_json_dump_buf(j, &line, 1);
	kp_buf_addch(&line, '\n');
	if (line.len > LINE_MAX_BYTES) {
		rc = kp_error_set(err, KP_ETOOBIG, "tune cache: a result line of %zu bytes", line.len);
		goto out;
	}
	if ((rc = kp_mkdir_p(c->dir, 0755, err)))
		goto out;
	file_of(c, k->source, &path);
	if ((rc = append_line(path.buf, line.buf, line.len, err)))
		goto out;
	table_set(c, key_of(k->gpu, k->point), m);
out:
	json_decref(j);
	kp_buf_release(&path);
	kp_buf_release(&line);
	return rc;
}

int kp_tune_fcache_open(struct kp_tune_fcache **out, const char *dir, const char *context,
                        struct kp_error *err)
{
	struct kp_tune_fcache *c;
	*out = NULL;
	if (!dir || !*dir)
		return kp_error_set(err, KP_EINVAL, "tune cache: no directory");
	if (!context || strlen(context) > 256)
		return kp_error_set(err, KP_EINVAL, "tune cache: the context must be 0 to 256 characters");
	c = kp_xcalloc(1, sizeof(*c));
	c->dir = kp_xstrdup(dir);
	c->context = kp_xstrdup(context);
	*out = c;
	return 0;
}

void kp_tune_fcache_free(struct kp_tune_fcache *c)
{
	if (!c)
		return;
	table_clear(c);
	free(c->dir);
	free(c->context);
	free(c);
}

struct kp_tune_cache kp_tune_fcache_iface(struct kp_tune_fcache *c)
{
	return (struct kp_tune_cache){.get = fc_get, .put = fc_put, .ctx = c};
}

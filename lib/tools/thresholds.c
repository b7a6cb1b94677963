/*
 * Threshold overrides: "tool.threshold=value" from the command line and
 * "tool.threshold = value" lines from a config file ('#' starts a comment).
 * Every error names the tool, the threshold and the valid choices.
 */
#include "base/setup.h"

#include <ctype.h>
#include <math.h>

#include "kernelpro/buf.h"
#include "kernelpro/str.h"
#include "tools/toolset_impl.h"

#define KEY_MAX 128

static void list_thresholds(const struct kp_tool_info *t, struct kp_buf *b)
{
	if (!t->nthresholds) {
		kp_buf_adds(b, "it has none");
		return;
	}
	kp_buf_adds(b, "valid: ");
	for (size_t i = 0; i < t->nthresholds; i++)
		kp_buf_addf(b, "%s%s", i ? ", " : "", t->thresholds[i].name);
}

int kp_toolset_set_threshold(struct kp_toolset *ts, const char *key, double value, struct kp_error *err)
{
	char tool[KEY_MAX];
	const char *dot = strchr(key, '.');
	struct kp_toolset_entry *e;
	struct kp_buf b = KP_BUF_INIT;
	int rc;

	if (!dot || dot == key || !dot[1] || (size_t)(dot - key) >= sizeof(tool))
		return kp_error_set(err, KP_EINVAL, "threshold '%s': expected TOOL.NAME (e.g. coalescing.max_excess_pct)",
				    key);
	memcpy(tool, key, (size_t)(dot - key));
	tool[dot - key] = '\0';
	if (!isfinite(value))
		return kp_error_set(err, KP_EINVAL, "threshold '%s': the value must be a finite number", key);
	e = kp_toolset_entry(ts, tool);
	if (!e)
		return kp_error_set(err, KP_ENOENT, "threshold '%s': unknown tool '%s'; 'kernelpro tools list' shows the ids",
				    key, tool);
	for (size_t i = 0; i < e->info.nthresholds; i++)
		if (!strcmp(e->info.thresholds[i].name, dot + 1)) {
			e->values[i] = value;
			return 0;
		}
	list_thresholds(&e->info, &b);
	rc = kp_error_set(err, KP_ENOENT, "threshold '%s': tool '%s' has no threshold '%s' (%s)", key, tool, dot + 1,
			  b.buf);
	kp_buf_release(&b);
	return rc;
}

/* Splits "key = value" (spaces allowed around both) into its parts; 0 on success. */
static int split_assignment(const char *s, size_t len, char *key, size_t keycap, double *value)
{
	const char *eq = memchr(s, '=', len), *end = s + len;
	char num[64];
	size_t klen, vlen;

	if (!eq)
		return KP_EINVAL;
	while (s < eq && isspace((unsigned char)*s))
		s++;
	klen = (size_t)(eq - s);
	while (klen && isspace((unsigned char)s[klen - 1]))
		klen--;
	if (!klen || klen >= keycap)
		return KP_EINVAL;
	memcpy(key, s, klen);
	key[klen] = '\0';
	for (size_t i = 0; i < klen; i++)
		if (isspace((unsigned char)key[i]) || !isprint((unsigned char)key[i]))
			return KP_EINVAL;
	vlen = (size_t)(end - (eq + 1));
	if (vlen >= sizeof(num))
		return KP_EINVAL;
	memcpy(num, eq + 1, vlen);
	num[vlen] = '\0';
	if (kp_parse_double(num, value) || !isfinite(*value))
		return KP_EINVAL;
	return 0;
}

int kp_toolset_override(struct kp_toolset *ts, const char *assignment, struct kp_error *err)
{
	char key[KEY_MAX];
	double v;
	if (split_assignment(assignment, strlen(assignment), key, sizeof(key), &v))
		return kp_error_set(err, KP_EINVAL, "--threshold '%s': expected TOOL.NAME=NUMBER", assignment);
	return kp_toolset_set_threshold(ts, key, v, err);
}

int kp_toolset_load_config(struct kp_toolset *ts, const char *what, const char *text, size_t len,
			   struct kp_error *err)
{
	size_t pos = 0;
	int line = 0;

	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos, m = 0;
		char key[KEY_MAX];
		double v;
		int rc;

		pos += n + (nl ? 1 : 0);
		line++;
		/* Content up to a comment, trailing space and CR trimmed. */
		while (m < n && s[m] != '#')
			m++;
		while (m && isspace((unsigned char)s[m - 1]))
			m--;
		{
			size_t k = 0;
			while (k < m && isspace((unsigned char)s[k]))
				k++;
			if (k == m)
				continue;
		}
		if (memchr(s, '\0', m))
			return kp_error_set(err, KP_EPARSE, "%s:%d: NUL byte in line", what, line);
		if (split_assignment(s, m, key, sizeof(key), &v))
			return kp_error_set(err, KP_EPARSE, "%s:%d: expected 'TOOL.NAME = NUMBER' (e.g. coalescing.max_excess_pct = 5)",
					    what, line);
		if ((rc = kp_toolset_set_threshold(ts, key, v, err))) {
			kp_error_prefix(err, "%s:%d: ", what, line);
			return rc;
		}
	}
	return 0;
}

/* JSON helpers over jansson: capped loading with positions in errors, typed getters, atomic dumps. */
#ifndef KERNELPRO_JSON_H
#define KERNELPRO_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"

/*
 * Parses a whole file (at most `cap` bytes). On success *out holds a new
 * reference the caller must json_decref(). Errors name the file, line and
 * column.
 */
int kp_json_load_file(const char *path, size_t cap, json_t **out, struct kp_error *err);
/* Same for text already in memory; `what` names it in errors. */
int kp_json_load_mem(const char *what, const char *text, size_t len, json_t **out, struct kp_error *err);

/* Typed getters: return `def` when the key is missing or of another type. */
const char *kp_json_str(const json_t *obj, const char *key, const char *def);
double kp_json_num(const json_t *obj, const char *key, double def);
long long kp_json_int(const json_t *obj, const char *key, long long def);
int kp_json_bool(const json_t *obj, const char *key, int def);

/*
 * Strict getters for required fields: fail with KP_EPARSE naming `what`
 * and the key when the field is missing or of the wrong type.
 */
int kp_json_req_str(const json_t *obj, const char *key, const char *what, const char **out, struct kp_error *err);
int kp_json_req_num(const json_t *obj, const char *key, const char *what, double *out, struct kp_error *err);

/* Sets obj[key] = value, stealing the reference; aborts on OOM. A NULL value stores JSON null. */
void kp_json_set(json_t *obj, const char *key, json_t *value);
/* Stores a number unless it is NaN/inf, which become null (JSON has no NaN). */
json_t *kp_json_real(double v);

/* Serialises with sorted keys and 2-space indent (stable output for golden tests). */
int kp_json_dump_buf(const json_t *v, struct kp_buf *out, int compact);
/* v as one compact line with sorted keys, allocated (NULL for NULL); takes v: it is released. */
char *kp_json_text(json_t *v);
/* Atomic write of the serialised value plus a newline. */
int kp_json_write_file(const char *path, const json_t *v, struct kp_error *err);

#endif

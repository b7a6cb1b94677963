/* File-system helpers: mkdir -p, atomic writes, capped reads, temporary directories, paths. */
#ifndef KERNELPRO_FS_H
#define KERNELPRO_FS_H

#include <stddef.h>
#include <sys/types.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"

/* Creates `path` and its missing parents. Existing directories are fine. */
int kp_mkdir_p(const char *path, mode_t mode, struct kp_error *err);

/*
 * Writes `len` bytes to a temporary file beside `path`, fsyncs it and renames
 * it over `path`. On any failure the old file is untouched and the
 * temporary is removed.
 */
int kp_write_file_atomic(const char *path, const void *data, size_t len, struct kp_error *err);

/*
 * Appends the whole file to `out`. Fails with KP_ETOOBIG, naming the file,
 * if it is larger than `cap` bytes (0: no cap), KP_ENOENT if it is missing,
 * KP_EINVAL if it is not a regular file (a FIFO, socket, device or directory:
 * opened non-blocking and refused, so a FIFO with no writer never hangs us).
 */
int kp_read_file(const char *path, size_t cap, struct kp_buf *out, struct kp_error *err);

/*
 * Creates a fresh directory under $TMPDIR (or /tmp) named
 * "<prefix>-XXXXXX"; its path is appended to `out`.
 */
int kp_mkdtemp(const char *prefix, struct kp_buf *out, struct kp_error *err);

/* Removes `path` and everything under it (no symlinks followed). Missing is fine. */
int kp_rm_rf(const char *path, struct kp_error *err);

int kp_path_exists(const char *path);
int kp_path_is_dir(const char *path);

/* Appends "a/b" to out, with exactly one '/' between them. */
int kp_path_join(struct kp_buf *out, const char *a, const char *b);

/* The directory holding the running executable (from /proc/self/exe); allocated. */
char *kp_self_dir(void);

/*
 * Finds a file that ships with kernelpro (harness scripts, prompts,
 * examples) by its path relative to the source tree, e.g. "harness/kp_torch.py".
 * Looks in $KERNELPRO_HOME, then relative to the executable (build tree and
 * installed layout). Returns an allocated path, or NULL.
 */
char *kp_find_data(const char *relpath);

/*
 * Finds a helper program kernelpro built (the CUDA probe, the CUDA harness,
 * the tracer library): $KERNELPRO_LIBEXEC/<name>, else <exe dir>/../libexec/kernelpro/<name>.
 * Returns an allocated path, or NULL.
 */
char *kp_find_libexec(const char *name);

/* A directory setting: `given` when not NULL, else $ENV_VAR when set and not empty, else `fallback`. */
const char *kp_dir_setting(const char *given, const char *env_var, const char *fallback);

/* The per-user cache directory: $XDG_CACHE_HOME/kernelpro or ~/.cache/kernelpro. */
int kp_cache_dir(struct kp_buf *out, struct kp_error *err);

/*
 * A per-user configuration file: $ENV_VAR when it is set (asked for, so returned even when
 * missing), else $XDG_CONFIG_HOME/kernelpro/NAME or ~/.config/kernelpro/NAME when it exists.
 * Returns an allocated path, or NULL: none.
 */
char *kp_config_file(const char *env_var, const char *name);

#endif

/* Inside lib/run: the run handle its files share. */
#ifndef KP_RUN_INT_H
#define KP_RUN_INT_H

#include "kernelpro/hash.h"
#include "kernelpro/run.h"
#include "kernelpro/task_kind.h"

struct kp_run {
	char *dir;
	char *name;
	char *made_root; /* the runs directory kp_run_create made; kp_run_abandon removes it when empty */
	struct kp_store *store;
	int lock_fd; /* -1: none (read-only) */
	int created; /* kp_run_create made this run */
	struct kp_run_settings settings;
	json_t *task;                         /* the task as recorded (kind, name, path, ...) */
	char task_sha256[KP_SHA256_HEX_LEN + 1]; /* kp__run_task_identity; "": none recorded */
	const struct kp_task_kind_info *kind; /* the recorded task's kind; NULL when unknown */
};

struct kp_run *kp__run_alloc(const char *dir);
/* An flock on DIR/run.lock into *fd: KP_EEXISTS naming the holder when another handle has it. */
int kp__run_lock(const char *dir, int *fd, struct kp_error *err);
int kp__run_open_db(struct kp_run *r, unsigned store_flags, struct kp_error *err);
/* The run's name, task and settings into its database, in one transaction. */
int kp__run_save_settings(struct kp_run *r, const char *stamp, struct kp_error *err);
/*
 * Whether dir is what a kernelpro killed while creating a run left before creation was atomic:
 * a lock nobody holds and a database without the run's settings (or none), nothing else.
 */
int kp__run_half_made(const char *dir);

/*
 * What a run's candidates are judged against, as a hash: the task's kind, tensors, tolerance,
 * hints and reference source; not its name, description or place.
 */
void kp__run_task_identity(const struct kp_task *t, char hex[KP_SHA256_HEX_LEN + 1]);
/*
 * 0 when t is the run's task (a run that recorded no identity takes any task of its kind);
 * KP_EINVAL saying what differs and what to do otherwise. `given`: the path the user named
 * (NULL: the task is the one at the run's recorded place).
 */
int kp__run_same_task(const struct kp_run *r, const struct kp_task *t, const char *given,
		      struct kp_error *err);

/* The kind whose files a candidate in `lang` gets: the run's, unless the database says otherwise. */
const struct kp_task_kind_info *kp__run_kind(const struct kp_run *r, const char *lang);
/* A meta entry as JSON into *out (new reference); KP_ENOENT when absent. */
int kp__run_meta_json(struct kp_store *s, const char *key, json_t **out, struct kp_error *err);
/* A meta entry as an allocated string; NULL when absent or empty. */
char *kp__run_meta_str(struct kp_store *s, const char *key);
/* Whether the node has a saved profile (a read error counts as none). */
int kp__run_profiled(struct kp_store *s, long node);
/* Rewrites summary.json and best.* (after each evaluation). */
int kp__run_write_outputs(struct kp_run *r, struct kp_error *err);
/*
 * One tune action as the summary shows it (new reference): node, status, strategy, budget, derive,
 * gpu, trials, evaluated, cache_hits, the untuned and best points and times, children, note, wall_s.
 */
json_t *kp__run_tuning_json(const struct kp_tuning_row *r);
/* Writes candidates/<id>.<ext> (a copy for people: a failure is logged, not returned). */
void kp__run_write_candidate(struct kp_run *r, long id, const char *lang, const char *source);

#endif

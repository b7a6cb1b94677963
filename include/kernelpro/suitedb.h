/*
 * Suite databases: the second schema lib/store keeps (lib/store/suitedb.c), beside the run
 * database's, with its own append-only migrations. One schema serves both files of a suite
 * directory (docs/internals/suite.md):
 *
 *   SUITE/suite.db            the task list, frozen when the suite was made (`tasks`), and the
 *                             suite's settings (`meta`); written once, then only read
 *   SUITE/shards/K-of-M.db    where each task of shard K stands (`progress`) and the bench
 *                             sessions that worked on the shard (`sessions`)
 *
 * The files use SQLite's rollback journal, not WAL: WAL needs memory shared by every process that
 * opens the file, and the shard of a Slurm array element may be reopened from another node.
 *
 * The handle is a struct kp_store, so kp_store_begin/commit/rollback, kp_store_meta_set/get,
 * kp_store_session_* and kp_store_close work on it; a run database is refused here and a suite
 * database by kp_store_open (PRAGMA application_id tells them apart).
 */
#ifndef KERNELPRO_SUITEDB_H
#define KERNELPRO_SUITEDB_H

#include <stddef.h>

#include "kernelpro/error.h"
#include "kernelpro/store.h"

/* The suite schema version this build writes; older files are migrated forward on open. */
#define KP_SUITEDB_SCHEMA_VERSION 1
/* PRAGMA application_id of suite databases: "KPSU". */
#define KP_SUITEDB_APPLICATION_ID 0x4B505355

/* Opens (KP_STORE_CREATE: or creates) a suite or shard database; flags as kp_store_open. */
int kp_suitedb_open(struct kp_store **out, const char *path, unsigned flags, struct kp_error *err);

/* ---- The task list (suite.db) ------------------------------------------------------------------ */

struct kp_suitedb_task {
	long idx;           /* position in the list, from 0: shard K of M holds the tasks with idx % M == K */
	char *name;         /* the task's run directory under SUITE/runs/ (unique in the suite) */
	char *path;         /* the task file or directory, absolute */
	char *kind;         /* "kernelbench", "native" */
	char *sha256;       /* of its content (kp_bench_task_hash) */
	double input_bytes; /* the inputs' size when the task says (native tasks); NAN: unknown */
	char *settings;     /* JSON object of per-task settings (a list file's), or NULL */
};

void kp_suitedb_task_release(struct kp_suitedb_task *t);
/* Adds one task; KP_EEXISTS when its index or name is taken. */
int kp_suitedb_task_add(struct kp_store *s, const struct kp_suitedb_task *t, struct kp_error *err);
/* Every task in index order; *v is allocated (kp_suitedb_tasks_free). */
int kp_suitedb_tasks_load(struct kp_store *s, struct kp_suitedb_task **v, size_t *n, struct kp_error *err);
void kp_suitedb_tasks_free(struct kp_suitedb_task *v, size_t n);

/* ---- Progress (shard databases) ---------------------------------------------------------------- */

struct kp_suitedb_progress {
	long idx;       /* the task's index in the suite's list */
	char *state;    /* "pending", "running", "stopped", "finished", "failed" (kp_suite_state_name) */
	int attempts;   /* sessions that started or resumed it */
	int gpu;        /* the GPU slot's device index it last ran on; -1: none */
	long order;     /* when this shard's scheduler took it, counting from 1; 0: not yet */
	double started; /* wall-clock seconds of the first start; NAN: not started */
	double updated; /* of the last change */
	double ended;   /* when it reached a final state; NAN: not yet */
	double est_ms;  /* the reference's time the scheduler ordered it by; NAN: unknown */
	char *reason;   /* why it failed or stopped; NULL */
	char *baseline; /* the baseline document (kernelpro.baseline/1) once measured; NULL */
	char *baseline_error; /* why the baseline could not be measured; NULL */
	char *record;         /* the task's results record (JSON) when it ended; NULL */
};

/* A row of a task not started: state pending, gpu -1, the times NAN, no strings. */
void kp_suitedb_progress_init(struct kp_suitedb_progress *p, long idx);
void kp_suitedb_progress_release(struct kp_suitedb_progress *p);
/* Inserts or replaces the task's row (updated is set to now). */
int kp_suitedb_progress_put(struct kp_store *s, struct kp_suitedb_progress *p, struct kp_error *err);
/* Every row in index order; *v is allocated (kp_suitedb_progress_free). */
int kp_suitedb_progress_load(struct kp_store *s, struct kp_suitedb_progress **v, size_t *n,
                             struct kp_error *err);
void kp_suitedb_progress_free(struct kp_suitedb_progress *v, size_t n);

#endif

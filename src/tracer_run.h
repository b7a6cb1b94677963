/* `kernelpro profile`'s tracer pass (src/tracer_run.c). */
#ifndef KP_SRC_TRACER_RUN_H
#define KP_SRC_TRACER_RUN_H

#include "cli.h"

/*
 * Runs the program (the positional arguments) once under the tracer library, with --timeout; the
 * trace lands in dir/trace.json (*trace_path, allocated: the caller frees it), the program's output in
 * dir/tracer.log. A program that fails is warned about; no trace is an error.
 */
int kp_cli_run_tracer(struct kp_cli *cli, const struct kp_args *args, const char *dir, char **trace_path,
                      struct kp_error *err);

#endif

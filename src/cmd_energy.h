/* Pieces of `kernelpro energy` shared between its source files: sub-commands, task set-up, printing. */
#ifndef KP_CMD_ENERGY_H
#define KP_CMD_ENERGY_H

#include "cli.h"
#include "kernelpro/energy.h"

extern const struct kp_cmd kp_cmd_energy_proxy;
extern const struct kp_cmd kp_cmd_energy_calibrate;
extern const struct kp_cmd kp_cmd_energy_validate;
extern const struct kp_cmd kp_cmd_energy_coeffs;
extern const struct kp_cmd kp_cmd_energy_metrics;

/*
 * TASK CANDIDATE [--reference]: loads the native task, builds the candidate (and the reference)
 * and adds libraries and tensors to `d`. Returns 0 or an exit code after printing the error.
 * kp_energy_cmd_task_release() frees what it kept (safe when nothing was set up).
 */
int kp_energy_cmd_add_task(struct kp_cli *cli, const struct kp_args *args, struct kp_energy_driver *d);
void kp_energy_cmd_task_release(void);

void kp_energy_print_measurements(struct kp_cli *cli, const struct kp_energy_measurement *m, size_t n);

/* An ncu raw page (--csv --page raw --print-units base) from `path` into `r` (initialised by the caller);
 * 0, or an exit code after printing the error (cmd_energy_model.c). */
struct kp_ncu_report;
int kp_energy_cmd_parse_ncu(struct kp_cli *cli, const char *path, struct kp_ncu_report *r);

#endif

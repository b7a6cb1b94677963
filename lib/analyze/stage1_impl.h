/* What stage1.c and classify.c share inside lib/analyze: measuring the units and the stalls, the rule. */
#ifndef KP_ANALYZE_STAGE1_IMPL_H
#define KP_ANALYZE_STAGE1_IMPL_H

#include "kernelpro/analyze.h"

/* Fills s->units, s->sm_unit and s->mem_unit from the launch; needs the roofline fields set first. */
void kp__stage1_units(struct kp_stage1 *s, const struct kp_launch *l, const struct kp_stage1_thresholds *t);
/* Fills the occupancy and stall fields (NAN/NULL when not collected). */
void kp__stage1_stalls(struct kp_stage1 *s, const struct kp_launch *l);
/* The class, the rule that decided and the reason, from the fields above. */
void kp__stage1_classify(struct kp_stage1 *s, const struct kp_stage1_thresholds *t, int have_flops);

#endif

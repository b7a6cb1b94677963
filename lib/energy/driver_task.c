/* The kp-energy driver's tensor arguments for a native task, in task order (inputs filled as the harness fills them). */
#include "base/setup.h"

#include "kernelpro/energy.h"
#include "kernelpro/task.h"

/* "x=f32:1024x1024:uniform:-1:1" for inputs, "y=f32:1024x1024" for outputs. */
static void tensor_arg(struct kp_energy_driver *d, const struct kp_tensor_spec *t, int input)
{
	struct kp_buf b = KP_BUF_INIT;
	kp_buf_addf(&b, "%s=%s:", t->name, kp_dtype_name(t->dtype));
	if (t->ndim == 0)
		kp_buf_addch(&b, '-');
	for (int i = 0; i < t->ndim; i++)
		kp_buf_addf(&b, "%s%lld", i ? "x" : "", (long long)t->shape[i]);
	if (input)
		kp_buf_addf(&b, ":%s:%.17g:%.17g", kp_fill_name(t->fill.kind), t->fill.a, t->fill.b);
	kp_strvec_push(&d->tensors, input ? "--in" : "--out");
	kp_strvec_push(&d->tensors, b.buf);
	kp_buf_release(&b);
}

void kp_energy_driver_add_task(struct kp_energy_driver *d, const struct kp_task *task)
{
	for (size_t i = 0; i < task->ninputs; i++)
		tensor_arg(d, &task->inputs[i], 1);
	for (size_t i = 0; i < task->noutputs; i++)
		tensor_arg(d, &task->outputs[i], 0);
}

# CUDA programs that run beside kernelpro on the GPU machine; built when nvcc is present.
LIBEXEC := $(BUILD)/libexec/kernelpro

CUDA_BINS += $(LIBEXEC)/kp-probe
$(LIBEXEC)/kp-probe: harness/probe/kp_probe.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -o $@ $<

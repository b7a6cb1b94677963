# kp-calibrate (harness/calibrate): measured roofline ceilings, CUDA + cuBLAS; built when nvcc is present.
CUDA_BINS += $(BUILD)/libexec/kernelpro/kp-calibrate
$(BUILD)/libexec/kernelpro/kp-calibrate: harness/calibrate/kp_calibrate.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -o $@ $< -lcublas -Xlinker -rpath -Xlinker $(CUDA_HOME)/lib64

# The native-task harness: loads a reference and a candidate .so (kp_native.h ABI) and checks and
# times them; built when nvcc is present. lib/eval finds it with kp_find_libexec("kp-native-harness").
CUDA_BINS += $(LIBEXEC)/kp-native-harness
$(LIBEXEC)/kp-native-harness: harness/native/kp_native_harness.cu harness/include/kp_native.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Xcompiler -Wall -Iharness/include -o $@ $< -ldl

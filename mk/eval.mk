# The native-task harness: loads a reference and a candidate .so (kp_native.h ABI) and checks and
# times them; built when nvcc is present. lib/eval finds it with kp_find_libexec("kp-native-harness").
# It links libkernelpro for the spec reader (lib/eval/natspec.c) and the degenerate-output checks
# (lib/eval/outcheck.c), the same code kernelpro itself runs.
NH_SRCS := $(wildcard harness/native/*.cu)
NH_OBJS := $(NH_SRCS:%.cu=$(BUILD)/obj/cuda/%.o)
NH_NVCCFLAGS = $(NVCCFLAGS) -std=c++17 -Iharness/include -Iinclude -Ilib -Xcompiler -Wall \
	$(if $(filter 1,$(DEVELOPER)),-Werror all-warnings)
CUDA_BINS += $(LIBEXEC)/kp-native-harness
$(BUILD)/obj/cuda/harness/native/%.o: harness/native/%.cu harness/native/nh.h harness/include/kp_native.h \
		lib/eval/natspec.h lib/eval/outcheck.h
	@mkdir -p $(@D)
	$(NVCC) $(NH_NVCCFLAGS) -c -o $@ $<
NH_CUDA_LIBDIR := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib))
# Linked by the C++ compiler with $(LDFLAGS), as kp-energy is: a sanitizer build's libkernelpro needs them.
$(LIBEXEC)/kp-native-harness: $(NH_OBJS) $(LIBKP)
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CXX) $(LDFLAGS) -o $@ $(NH_OBJS) $(LIBKP) -L$(NH_CUDA_LIBDIR) -lcudart_static -lrt -lm -ldl \
		-lpthread

# The sandbox prelude (lib/eval/sandbox.c, libc only) as a shared library for the PyTorch adapter,
# which loads it with ctypes (harness/kernelpro/sandbox.py); built with or without nvcc. Never
# with the sanitizers: it is loaded into a python3 that has no ASan runtime.
KP_SANDBOX_SO := $(LIBEXEC)/libkp_sandbox.so
all: $(KP_SANDBOX_SO)
$(KP_SANDBOX_SO): lib/eval/sandbox.c lib/eval/sandbox.h
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) -std=gnu11 -O2 -g -fPIC -shared -Wall -Wextra -Iinclude -Ilib -o $@ lib/eval/sandbox.c

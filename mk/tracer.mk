# The CUPTI tracer library (harness/tracer): C against the toolkit's CUPTI headers; built when nvcc's toolkit is present.
CUPTI_INC := $(firstword $(wildcard $(CUDA_HOME)/include/cupti.h $(CUDA_HOME)/extras/CUPTI/include/cupti.h))
CUPTI_LIBDIR := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/extras/CUPTI/lib64))

ifneq ($(CUPTI_INC),)
CUDA_BINS += $(BUILD)/libexec/kernelpro/libkp_tracer.so
$(BUILD)/libexec/kernelpro/libkp_tracer.so: harness/tracer/kp_tracer.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -fPIC -shared -fvisibility=hidden -Wall -Wextra -Wno-unused-parameter \
		-I$(dir $(CUPTI_INC)) -o $@ $< -L$(CUPTI_LIBDIR) -Wl,-rpath,$(CUPTI_LIBDIR) -lcupti -lpthread
endif

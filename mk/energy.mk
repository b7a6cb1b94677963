# Energy: the kp-energy driver (harness/energy) and the energy benchmark corpus (bench/energy).
# CUDA host code is compiled by nvcc and linked by the C++ compiler with libkernelpro.a, whose
# lib/energy does the measurement protocol and the JSON; built only when nvcc is present.
CXX ?= g++
ENERGY_OBJ := $(BUILD)/obj/cuda
ENERGY_NVCCFLAGS = $(NVCCFLAGS) -std=c++17 -Iinclude -Iharness/energy $(DEP_CFLAGS) -Xcompiler -Wall \
	$(if $(filter 1,$(DEVELOPER)),-Werror all-warnings)
ENERGY_CUDA_LIBDIR := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib))
ENERGY_LIBS := -L$(ENERGY_CUDA_LIBDIR) -lcudart_static -lrt $(shell $(PKG_CONFIG) --libs jansson 2>/dev/null) \
	-lm -ldl -lpthread
ENERGY_HDRS := harness/energy/kp_energy_cuda.h harness/energy/kp_energy_kernels.cuh harness/include/kp_native.h include/kernelpro/energy.h

$(ENERGY_OBJ)/%.o: %.cu $(ENERGY_HDRS)
	@mkdir -p $(@D)
	$(NVCC) $(ENERGY_NVCCFLAGS) -c -o $@ $<

CUDA_BINS += $(LIBEXEC)/kp-energy $(LIBEXEC)/kp-energy-corpus

$(LIBEXEC)/kp-energy: $(ENERGY_OBJ)/harness/energy/kp_energy_main.o $(ENERGY_OBJ)/harness/energy/kp_energy_cuda.o $(LIBKP)
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CXX) $(LDFLAGS) -o $@ $^ $(ENERGY_LIBS)

# The corpus dlopens libcublas; the rpath lets it find a copy that make gpu-bundle put in lib/.
$(LIBEXEC)/kp-energy-corpus: $(ENERGY_OBJ)/bench/energy/corpus.o $(ENERGY_OBJ)/harness/energy/kp_energy_cuda.o $(LIBKP)
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CXX) $(LDFLAGS) -Wl,-rpath,'$$ORIGIN/../../lib' -o $@ $^ $(ENERGY_LIBS)

# kernelpro: plain Makefile. `make` builds the CLI and libkernelpro.a; see `make help`.

.DEFAULT_GOAL := all
BUILD     ?= build
PREFIX    ?= /usr/local
CC        ?= cc
PKG_CONFIG ?= pkg-config
VERSION   := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
GIT_REV   := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)

# --- CUDA toolkit: $CUDA_HOME, else /usr/local/cuda, else the nvcc on PATH ----------------------
ifeq ($(strip $(CUDA_HOME)),)
  ifneq ($(wildcard /usr/local/cuda/bin/nvcc),)
    CUDA_HOME := /usr/local/cuda
  else
    CUDA_HOME := $(patsubst %/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null))
  endif
endif
NVCC      := $(if $(CUDA_HOME),$(CUDA_HOME)/bin/nvcc,)
HAVE_NVCC := $(if $(wildcard $(NVCC)),1,)
CUDA_ARCH ?= sm_90
NVCCFLAGS ?= -O3 -arch=$(CUDA_ARCH) -lineinfo

# --- Dependencies through pkg-config ---------------------------------------------------------------
PKGS      := libcurl jansson sqlite3 libcrypto
DEP_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) lua5.4 2>/dev/null)
DEP_LIBS  := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
# Lua is linked statically: the GPU machine has no liblua, and user tools must not depend on one.
LUA_LIBDIR := $(shell $(PKG_CONFIG) --variable=libdir lua5.4 2>/dev/null)
LUA_STATIC := $(wildcard $(LUA_LIBDIR)/liblua5.4.a)
LUA_LIBS  := $(if $(LUA_STATIC),$(LUA_STATIC),$(shell $(PKG_CONFIG) --libs lua5.4 2>/dev/null))
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

# --- Flags ------------------------------------------------------------------------------------------
CFLAGS    ?= -O2 -g
BASE_CFLAGS := -std=gnu11 -Iinclude -Ilib -Wall -Wextra -Wno-unused-parameter \
	-DKP_VERSION='"$(VERSION)"' -DKP_GIT_REV='"$(GIT_REV)"' -MMD -MP
ifneq ($(HAVE_NVCC),)
  BASE_CFLAGS += -DKP_CUDA_HOME='"$(CUDA_HOME)"'
endif
ifeq ($(DEVELOPER),1)
  BASE_CFLAGS += -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla \
	-Wwrite-strings -Wpointer-arith -Wformat=2 -Wundef -Wold-style-definition
endif
ifeq ($(SANITIZE),1)
  BASE_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
endif
ALL_CFLAGS = $(BASE_CFLAGS) $(DEP_CFLAGS) $(CFLAGS)
LIBS      := $(DEP_LIBS) $(LUA_LIBS) -lm -ldl -lpthread

# --- Sources ----------------------------------------------------------------------------------------
LIB_SRCS  := $(sort $(wildcard lib/*/*.c))
CLI_SRCS  := $(filter-out src/main.c,$(sort $(wildcard src/*.c)))
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS  := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
MAIN_OBJ  := $(BUILD)/obj/src/main.o
UNIT_SRCS := $(sort $(wildcard tests/unit/t_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TEST_SUPPORT_SRCS := $(sort $(wildcard tests/support/*.c))
TEST_SUPPORT_OBJS := $(TEST_SUPPORT_SRCS:%.c=$(BUILD)/obj/%.o)
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))

LIBKP     := $(BUILD)/lib/libkernelpro.a
LIBCLI    := $(BUILD)/lib/libkpcli.a
KP_BIN    := $(BUILD)/bin/kernelpro

# CUDA side programs (need nvcc; built when it is present).
CUDA_BINS :=
-include mk/*.mk

demo: all
	@KP=$(KP_BIN) tools/demo.sh

.PHONY: check-python
.PHONY: demo all lib test check unit integration golden gpu-test gpu-bundle deps test-deps fuzz clean help format \
	format-check install
all: $(KP_BIN) $(LIBKP) $(if $(HAVE_NVCC),$(CUDA_BINS),)

lib: $(LIBKP)

ifeq ($(V),1)
  Q :=
  QUIET_CC =
  QUIET_LINK =
else
  Q := @
  QUIET_CC = @echo "  CC      $<";
  QUIET_LINK = @echo "  LINK    $@";
endif

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIBKP): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBCLI): $(CLI_OBJS)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $^

$(KP_BIN): $(MAIN_OBJ) $(LIBCLI) $(LIBKP)
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(LDFLAGS) -Wl,-rpath,'$$ORIGIN/../lib' -o $@ $(MAIN_OBJ) $(LIBCLI) $(LIBKP) $(LIBS)

# --- Tests ------------------------------------------------------------------------------------------
$(BUILD)/obj/tests/%.o: ALL_CFLAGS += $(CMOCKA_CFLAGS) -Itests/support -Isrc -Wno-write-strings
.SECONDARY:
$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(TEST_SUPPORT_OBJS) $(LIBCLI) $(LIBKP)
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $< $(TEST_SUPPORT_OBJS) $(LIBCLI) $(LIBKP) $(LIBS) $(CMOCKA_LIBS)

# A fake libcuda/libnvidia-ml for the doctor tests (tests/integration).
FAKE_CUDA := $(BUILD)/tests/libfakecuda.so
$(FAKE_CUDA): tests/support/fake_libcuda.c
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) -shared -fPIC -O1 -o $@ $<

unit: $(UNIT_BINS) all
	@tests/run-unit.sh $(BUILD) $(UNIT_BINS)

# t1502 runs t_slurm's live test against a private Slurm cluster.
integration: all $(FAKE_CUDA) $(BUILD)/tests/t_slurm
	@KP_SANITIZED=$(SANITIZE) tests/run-integration.sh $(BUILD)

test: unit integration

# ASan + UBSan build of everything, with the strict warnings (tests included), in its own build directory.
check: check-python
	$(MAKE) BUILD=$(BUILD)/san SANITIZE=1 DEVELOPER=1 CFLAGS='-O1 -g' test

# Python: ruff (ruff.toml) over the harness and its tests, mypy (mypy.ini) over the harness; a tool
# that is not installed is reported as skipped.
check-python:
	@tools/check-python.sh

# GPU tests: on a machine with a GPU. Without one, each reports itself skipped.
# On the GPU machine, run against a carried bundle: make gpu-test GPU_BUILD=dist/gpu
GPU_BUILD ?= $(BUILD)
gpu-test: $(if $(filter $(BUILD),$(GPU_BUILD)),all,)
	@tests/run-gpu.sh $(GPU_BUILD)

# Fuzz targets (clang + libFuzzer): `make fuzz` builds them; tests/fuzz/README.md says how to run.
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB_SRCS)
	@mkdir -p $(@D)
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Ilib $(DEP_CFLAGS) \
		-DKP_VERSION='"$(VERSION)"' -DKP_GIT_REV='"$(GIT_REV)"' \
		-o $@ $< $(LIB_SRCS) $(LIBS)
fuzz: $(FUZZ_BINS)

# A build that runs on the GPU machine (Ubuntu 24.04 with the runtime libraries, no headers).
gpu-bundle: all
	@tools/make-gpu-bundle.sh $(BUILD) dist/gpu

# CUTLASS/CuTe headers go to .cutlass (CuTe candidates, `kernelpro codesearch`); they are optional,
# so a failed download is reported, not fatal.
deps:
	tools/install-deps.sh
	@tools/install-cutlass.sh || echo "make deps: CUTLASS not installed (optional); retry with tools/install-cutlass.sh" >&2

# What only the tests need: cmocka, the private Slurm cluster (slurm-wlm, slurmdbd, munge, MariaDB),
# fonts and a headless browser for the report test.
test-deps:
	tools/install-deps.sh --test

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

format-check:
	@clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/kernelpro
	install -m 755 $(KP_BIN) $(DESTDIR)$(PREFIX)/bin/kernelpro
	cp -r harness prompts examples $(DESTDIR)$(PREFIX)/share/kernelpro/

clean:
	rm -rf $(BUILD) dist

help:
	@echo "make            build $(KP_BIN) and $(LIBKP)"
	@echo "make test       unit + integration tests (no GPU needed)"
	@echo "make check      the same under ASan+UBSan"
	@echo "make gpu-test   GPU tests (on a GPU machine; skipped elsewhere)"
	@echo "make gpu-bundle dist/gpu: a build to carry to the GPU machine"
	@echo "make deps       install the Debian packages kernelpro needs (apt-get)"
	@echo "make test-deps  install what only the tests need (cmocka, Slurm, MariaDB, a browser)"
	@echo "make fuzz       build the libFuzzer targets"
	@echo "DEVELOPER=1     strict warnings as errors"

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(MAIN_OBJ:.o=.d) $(TEST_SUPPORT_OBJS:.o=.d) \
	$(UNIT_SRCS:%.c=$(BUILD)/obj/%.d)

# The tools' benchmarks (bench/): `make bench-tools` builds and runs them (needs no GPU).
TOOLS_BENCH_BINS := $(BUILD)/bench/stage2_time
BENCH_BINS += $(TOOLS_BENCH_BINS)

$(BUILD)/bench/stage2_time: bench/stage2_time.c $(LIBKP)
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIBKP) $(LIBS)

.PHONY: bench-tools
bench-tools: $(TOOLS_BENCH_BINS) all
	@$(BUILD)/bench/stage2_time .
	@python3 bench/diagnosis.py

# Benchmarks (bench/): programs that print figures; `make bench` builds and runs them.
BENCH_BINS := $(BUILD)/bench/parse_bench
$(BUILD)/bench/%: bench/%.c $(BUILD)/lib/libkernelpro.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/lib/libkernelpro.a $(LIBS)

.PHONY: bench
bench: $(BENCH_BINS)
	@for b in $(BENCH_BINS); do $$b . ; done

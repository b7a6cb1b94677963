# bench/tune_sim.c: lib/tune's strategies on simulated cost surfaces (no GPU); also prints a source's
# space as JSON for bench/tune-vs-kerneltuner.sh. `make bench-tune` builds and runs it (docs/tune.md).
TUNE_SIM := $(BUILD)/bench/tune-sim

$(TUNE_SIM): $(BUILD)/obj/bench/tune_sim.o $(LIBKP)
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $< $(LIBKP) $(LIBS)

.PHONY: bench-tune
bench-tune: $(TUNE_SIM)
	$(TUNE_SIM) $(TUNE_SIM_ARGS)

# bench/search_sim.c: MCTS vs greedy vs beam on a model of programmer behaviour (no GPU, no LLM).
# `make bench-search` builds and runs it; the figures are in docs/search.md.
SEARCH_SIM := $(BUILD)/bench/search-sim

$(SEARCH_SIM): $(BUILD)/obj/bench/search_sim.o $(LIBKP)
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $< $(LIBKP) $(LIBS)

.PHONY: bench-search
bench-search: $(SEARCH_SIM)
	$(SEARCH_SIM) $(SEARCH_SIM_ARGS)

# LLM benchmark (CPU only): kp_llm's overhead per request and parallel requests against an in-process server.
LLM_BENCH := $(BUILD)/bench/llm_overhead

$(LLM_BENCH): bench/llm_overhead.c $(LIBKP)
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBKP) $(LIBS)

.PHONY: bench-llm
bench-llm: $(LLM_BENCH)
	$(LLM_BENCH)

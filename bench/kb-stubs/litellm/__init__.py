"""Stand-in for litellm: KernelBench imports completion for generation, which the benchmark never calls."""


def completion(*args, **kwargs):
    raise RuntimeError("litellm stand-in: the evaluation benchmark makes no LLM calls")

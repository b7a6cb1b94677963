"""Stand-in for openai: KernelBench imports OpenAI for generation, which the benchmark never calls."""


class OpenAI:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("openai stand-in: the evaluation benchmark makes no LLM calls")

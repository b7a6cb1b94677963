"""Stand-in for requests (used when the real one is missing): KernelBench's eval path makes no HTTP calls."""


def get(*args, **kwargs):
    raise RuntimeError("requests stand-in: no network on this machine")


post = get

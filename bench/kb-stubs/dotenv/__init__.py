"""Stand-in for python-dotenv: KernelBench calls load_dotenv() at import; nothing to load here."""


def load_dotenv(*args, **kwargs):
    return False

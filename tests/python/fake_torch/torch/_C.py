"""torch._C's fork poisoning: torch::utils::register_fork_handler_for_device_init, as a flag that an
at-fork handler sets in the child. $FAKE_TORCH_GPUS: the device count (default 1)."""

import os

_bad_fork = False
_handler = False


def _in_child():
    global _bad_fork
    _bad_fork = True


def _poison():
    global _handler
    if not _handler:
        os.register_at_fork(after_in_child=_in_child)
        _handler = True


def _cuda_getDeviceCount():
    _poison()
    return int(os.environ.get("FAKE_TORCH_GPUS", "1"))


def _cuda_init():
    if _bad_fork:
        raise RuntimeError("bad fork")
    _poison()


def _cuda_isInBadFork():
    return _bad_fork

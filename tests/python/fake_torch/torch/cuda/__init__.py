"""torch.cuda's paths into torch._C, as in torch 2.11 (torch/cuda/__init__.py): is_available() counts
through NVML only with PYTORCH_NVML_BASED_CUDA_CHECK=1, device_count() falls back to the runtime when
NVML fails ($FAKE_TORCH_NVML: NVML's count; unset: NVML fails), set_device() initialises lazily."""

import os

from .. import _C

_initialized = False
_is_in_bad_fork = _C._cuda_isInBadFork


def device_count():
    nvml = int(os.environ.get("FAKE_TORCH_NVML") or -1)
    return _C._cuda_getDeviceCount() if nvml < 0 else nvml


def is_available():
    if os.getenv("PYTORCH_NVML_BASED_CUDA_CHECK") == "1":
        return device_count() > 0
    return _C._cuda_getDeviceCount() > 0


def is_initialized():
    return _initialized and not _is_in_bad_fork()


def _lazy_init():
    global _initialized
    if is_initialized():
        return
    if _is_in_bad_fork():
        raise RuntimeError("Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you "
                           "must use the 'spawn' start method")
    _C._cuda_init()
    _initialized = True


def set_device(i):
    _lazy_init()

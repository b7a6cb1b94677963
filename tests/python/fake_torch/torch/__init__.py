"""A stand-in for torch in tests of the warm worker's fork safety (tests/python/test_worker.py): no
tensors, only torch's fork poisoning as torch 2.11 does it. The first call into CUDA through torch._C
(_cuda_getDeviceCount, _cuda_init) registers an at-fork handler that marks every later child a bad
fork, and torch.cuda then refuses CUDA there with torch's own message. Tensors: only what the warm
worker's FLOP-counter warm-up needs (ones, mm: shapes, no values)."""

import os as _os

from . import _C  # noqa: F401
from . import cuda  # noqa: F401

__version__ = "0.0-fork-stand-in"

if _os.environ.get("FAKE_TORCH_IMPORT_MARK"):  # a file that says when torch was imported (test_preload_first.py)
    with open(_os.environ["FAKE_TORCH_IMPORT_MARK"], "a") as _f:
        _f.write("imported\n")


class Tensor:
    def __init__(self, shape):
        self.shape = tuple(shape)


def ones(*shape):
    return Tensor(shape)


def mm(a, b):
    from .utils import flop_counter

    m, k = a.shape
    n = b.shape[1]
    for mode in flop_counter._active:
        mode.add("aten.mm", 2 * m * n * k)
    return Tensor((m, n))

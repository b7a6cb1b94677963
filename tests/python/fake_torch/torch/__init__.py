"""A stand-in for torch in tests of the warm worker's fork safety (tests/python/test_worker.py): no
tensors, only torch's fork poisoning as torch 2.11 does it. The first call into CUDA through torch._C
(_cuda_getDeviceCount, _cuda_init) registers an at-fork handler that marks every later child a bad
fork, and torch.cuda then refuses CUDA there with torch's own message."""

from . import _C  # noqa: F401
from . import cuda  # noqa: F401

__version__ = "0.0-fork-stand-in"

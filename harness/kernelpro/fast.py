"""kernelpro's fast path for KernelBench candidates: CUDA with extern "C" entry points, built by
`nvcc -shared` (about 1 s instead of load_inline's ~27 s) and called through ctypes with tensor
pointers and the current CUDA stream.

    from kernelpro.fast import load_cuda

    SRC = r'''
    #include <cuda_runtime.h>
    __global__ void relu_kernel(const float *x, float *y, long n) { ... }
    extern "C" int relu(const float *x, float *y, long n, cudaStream_t s) {
        relu_kernel<<<(n + 255) / 256, 256, 0, s>>>(x, y, n);
        return (int)cudaGetLastError();
    }
    '''
    lib = load_cuda(SRC, name="relu", functions={"relu": ["ptr", "ptr", "i64", "stream"]})

    class ModelNew(torch.nn.Module):
        def forward(self, x):
            y = torch.empty_like(x)
            lib.relu(x, y, x.numel())      # the stream is appended when left out
            return y

Argument kinds: "ptr" (a CUDA tensor, contiguous; or an int address), "i32", "i64", "u64", "f32",
"f64", "stream" (torch.cuda.current_stream() when omitted). Entry points return int; nonzero raises
RuntimeError naming the function and the CUDA error. docs/eval.md has the whole contract.
"""

import ctypes

from . import build as _build

_KINDS = {
    "ptr": ctypes.c_void_p,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "u64": ctypes.c_uint64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
    "stream": ctypes.c_void_p,
}

_toolchain = None


def toolchain():
    global _toolchain
    if _toolchain is None:
        _toolchain = _build.Toolchain()
    return _toolchain


def load_cuda(source, name="kernel", functions=None, extra_flags=(), timeout=300):
    """Builds `source` (or takes it from the cache) and returns the loaded library.

    With `functions` ({name: [kinds]}) the result wraps those entry points with argument
    conversion and error checks; without, it is the plain ctypes.CDLL.
    """
    tc = toolchain()
    flags = list(tc.flags) + list(extra_flags)
    b = _build.start(tc, source, name=name, flags=flags, timeout=timeout)
    path = b.wait()
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    if not functions:
        return lib
    return _Wrapped(lib, functions)


def ptr(t):
    """The device address of a contiguous CUDA tensor, as ctypes.c_void_p."""
    return ctypes.c_void_p(_address(t, "tensor"))


def stream():
    """torch.cuda.current_stream() as ctypes.c_void_p (a cudaStream_t)."""
    import torch

    return ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)


def _address(t, what):
    if isinstance(t, int):
        return t
    if not getattr(t, "is_cuda", False):
        raise TypeError("%s: expected a CUDA tensor, got %s" % (what, type(t).__name__))
    if not t.is_contiguous():
        raise ValueError("%s: tensor is not contiguous; call .contiguous() first" % what)
    return t.data_ptr()


class _Function:
    def __init__(self, lib, name, kinds):
        try:
            self._fn = getattr(lib, name)
        except AttributeError:
            raise AttributeError("kernelpro.fast: the library has no extern \"C\" function '%s'" % name) from None
        bad = [k for k in kinds if k not in _KINDS]
        if bad:
            raise ValueError("kernelpro.fast: %s: unknown argument kind(s) %s (use %s)"
                             % (name, ", ".join(bad), ", ".join(sorted(_KINDS))))
        self._fn.argtypes = [_KINDS[k] for k in kinds]
        self._fn.restype = ctypes.c_int
        self._name = name
        self._kinds = list(kinds)

    def __call__(self, *args):
        kinds = self._kinds
        if len(args) == len(kinds) - 1 and kinds and kinds[-1] == "stream":
            args = args + (None,)
        if len(args) != len(kinds):
            raise TypeError("%s() takes %d arguments (%d given)" % (self._name, len(kinds), len(args)))
        conv = []
        for i, (a, k) in enumerate(zip(args, kinds)):
            if k == "ptr":
                conv.append(_address(a, "%s() argument %d" % (self._name, i + 1)))
            elif k == "stream":
                conv.append(stream().value if a is None else (a if isinstance(a, int) else a.cuda_stream))
            else:
                conv.append(a)
        rc = self._fn(*conv)
        if rc != 0:
            raise RuntimeError("%s() returned %d (%s)" % (self._name, rc, _cuda_error_name(rc)))
        return rc


class _Wrapped:
    def __init__(self, lib, functions):
        self.lib = lib
        for name, kinds in functions.items():
            setattr(self, name, _Function(lib, name, kinds))


def _cuda_error_name(code):
    """The cudaError_t's name and cudaGetErrorString's words for the common values (the full list is
    in driver_types.h): "cudaErrorIllegalAddress: an illegal memory access was encountered"."""
    names = {1: ("cudaErrorInvalidValue", "invalid argument"),
             2: ("cudaErrorMemoryAllocation", "out of memory"),
             9: ("cudaErrorInvalidConfiguration", "invalid configuration argument"),
             98: ("cudaErrorInvalidDeviceFunction", "invalid device function"),
             200: ("cudaErrorInvalidKernelImage", "device kernel image is invalid"),
             209: ("cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"),
             400: ("cudaErrorInvalidResourceHandle", "invalid resource handle"),
             700: ("cudaErrorIllegalAddress", "an illegal memory access was encountered"),
             701: ("cudaErrorLaunchOutOfResources", "too many resources requested for launch"),
             702: ("cudaErrorLaunchTimeout", "the launch timed out and was terminated"),
             716: ("cudaErrorMisalignedAddress", "misaligned address"),
             719: ("cudaErrorLaunchFailure", "unspecified launch failure")}
    if code not in names:
        return "error code %d" % code
    return "%s: %s" % names[code]

"""The GPU's lock (bench --per-gpu): evaluations that share a GPU build side by side and use it one
at a time. The adapter holds it while it touches the GPU (the reference's probe, correctness, timing,
a baseline) and not while the candidate builds. The file is opened before the sandbox is applied, so
later acquisitions need only flock(2); the kernel releases it when the process ends, however it ends.

Pure Python; no torch."""

import fcntl
import os
import time


class GpuLock:
    """flock(2) on one file per GPU; a no-op without a path (one evaluation per GPU, the default)."""

    def __init__(self, path):
        self.path = path
        self.fd = None
        self.held = False
        self.waited_s = 0.0
        if path:
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)

    def acquire(self):
        if self.fd is None or self.held:
            return
        t0 = time.monotonic()
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        self.waited_s += time.monotonic() - t0
        self.held = True

    def release(self):
        if self.fd is None or not self.held:
            return
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        self.held = False

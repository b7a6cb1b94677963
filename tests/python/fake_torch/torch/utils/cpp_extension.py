"""torch.utils.cpp_extension's import-time CUDA check, as in torch 2.11: _find_cuda_home() calls
torch.cuda.is_available() to decide whether to warn (which poisons fork without NVML)."""

import torch

CUDA_HOME = "/usr/local/cuda" if torch.cuda.is_available() else "/usr/local/cuda"

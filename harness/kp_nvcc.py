"""nvcc for torch's load_inline builds, its host and device halves side by side (kernelpro/nvcc_par.py
says how and when it is nvcc itself instead). torch runs it as $PYTORCH_NVCC."""

import sys

from kernelpro import nvcc_par

if __name__ == "__main__":
    sys.exit(nvcc_par.main(sys.argv[1:]))

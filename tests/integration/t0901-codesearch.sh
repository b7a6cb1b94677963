#!/bin/sh
# kernelpro codesearch on a fixture CUTLASS checkout (tests/golden/codesearch/tree): the index is
# built in the cache, queries print ranked snippets with paths and lines (and JSON), doctor finds the
# same CUTLASS, and with no CUTLASS anywhere the error says how to install one.
. "$KP_ROOT/tests/integration/lib.sh"
export XDG_CACHE_HOME="$KP_TMP/cache" CUTLASS_PATH="$KP_ROOT/tests/golden/codesearch/tree"

expect_exit 0 "$KP" codesearch index
contains out "indexed CUTLASS 9.8.7"
contains out "5 headers, 2 examples, 11 symbols"
[ -f "$KP_TMP/cache/kernelpro/codesearch/cutlass-9.8.7.db" ] || fail "no index in the cache directory"

expect_exit 0 "$KP" codesearch make_tma_atom
contains out "include/cute/atom/copy_fake_sm90_tma.hpp:16  cute::make_tma_atom  (function)"
contains out "Builds a TMA copy atom for a global tensor and a shared-memory layout."
contains out "make_tma_atom(CopyOp const& op, GTensor const& gtensor, SLayout const& slayout)"
contains out "hits in CUTLASS 9.8.7"

expect_exit 0 "$KP" codesearch --json -n 2 wgmma bf16 64x128x16
python3 - <<'PY' || fail "codesearch --json"
import json
d = json.load(open("out"))
assert d["cutlass_version"] == "9.8.7", d
assert d["query"] == "wgmma bf16 64x128x16", d
assert len(d["hits"]) == 2, d
h = d["hits"][0]
assert h["name"] == "cute::SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS", h
assert h["kind"] == "class" and h["path"] == "include/cute/arch/mma_fake_sm90.hpp", h
assert h["line"] >= 1 and h["end_line"] >= h["line"] and "wgmma.mma_async" in h["snippet"], h
assert d["hits"][0]["score"] >= d["hits"][1]["score"]
PY

# An example program with its one-line description.
expect_exit 0 "$KP" codesearch --lines 0 warp specialized hopper gemm
contains out "examples/01_fake_hopper_gemm/fake_hopper_gemm.cu:1"
contains out "Fixture example: a warp-specialized Hopper GEMM with TMA loads and GMMA."

# Usage errors.
expect_exit 2 "$KP" codesearch index --root .
contains err "--root needs --db"
expect_exit 2 "$KP" codesearch --limit 0 swizzle
expect_exit 1 "$KP" codesearch the of
contains err "has no word to look for"

# Any directory tree, into a given file.
expect_exit 0 "$KP" codesearch index --root "$KP_ROOT/tests/golden/codesearch/extract" --db "$KP_TMP/x.db" --json
contains out '"symbols": 16'
expect_exit 0 "$KP" codesearch --db "$KP_TMP/x.db" Branchy
contains out "tricky.hpp:58  outer::Branchy  (class)"

# The doctor finds the same CUTLASS.
expect_exit 0 "$KP" doctor --no-counters --no-python
contains out "CUTLASS 9.8.7, headers at $CUTLASS_PATH/include (CUTLASS_PATH)"

# A CUTLASS_PATH without CUTLASS is an error naming it.
expect_exit 1 env CUTLASS_PATH="$KP_TMP" "$KP" codesearch swizzle
contains err "CUTLASS_PATH: '$KP_TMP' holds no include/cutlass/cutlass.h"

# No CUTLASS anywhere (a copy of the binary away from the source tree's .cutlass, no pip package):
# the error says how to install it.
mkdir -p away/bin
cp "$KP" away/bin/kernelpro
expect_exit 1 env -u CUTLASS_PATH KERNELPRO_HOME="$KP_TMP/away" KERNELPRO_PYTHON=/bin/false away/bin/kernelpro codesearch swizzle
contains err "no CUTLASS found: run tools/install-cutlass.sh (or 'make deps'), 'pip install nvidia-cutlass', or set CUTLASS_PATH"

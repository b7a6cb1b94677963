#!/bin/sh
# kernelpro optimize with code search over a fixture CUTLASS (tests/golden/codesearch/tree): optimize
# prompts carry the snippets for the parent's findings with their paths, search memory keeps what
# was shown, --codesearch off leaves them out, and --codesearch on without CUTLASS is an error.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"
export XDG_CACHE_HOME="$KP_TMP/cache" CUTLASS_PATH="$KP_ROOT/tests/golden/codesearch/tree"

expect_exit 0 optimize --evals 8 --name cs --codesearch on
# #4 refines #3, whose finding was occupancy (the fake harness): the prompt shows what CUTLASS has.
expect_exit 0 "$KP" show cs --node 4
contains out "## Code search results"
contains out "CUTLASS/CuTe code that addresses these findings (occupancy); paths are relative to the CUTLASS 9.8.7 root"
contains out "### include/cute/arch/mma_fake_sm90.hpp:29 \`cute::warpgroup_arrive\` (function)"
contains out 'asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");'
# Later prompts remember the snippets shown.
expect_exit 0 "$KP" show cs --node 8
contains out '- code search "snippets for the findings" found: cute::warpgroup_arrive @ include/cute/arch/mma_fake_sm90.hpp:29'

expect_exit 0 optimize --evals 4 --name off --codesearch off
expect_exit 0 "$KP" show off --node 4
lacks out "## Code search results"

expect_exit 1 env CUTLASS_PATH="$KP_TMP" "$KP" optimize "$TASK" --llm "replay:$S/replay" --evaluator "$FAKE" --evals 2 \
	--name nocs --codesearch on
contains err "--codesearch on: CUTLASS_PATH: '$KP_TMP' holds no include/cutlass/cutlass.h"
# The index is opened before the run is created: the refusal leaves no run behind.
[ ! -e kernelpro-runs/nocs ] || fail "--codesearch on without CUTLASS left a run behind"

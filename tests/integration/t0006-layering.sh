# Layering that the build alone would not catch (docs/internals/llm.md, search.md): read from the
# build's dependency files and object symbols, so it checks what was compiled, not what a grep finds.
. "$KP_ROOT/tests/integration/lib.sh"
obj="$KP_BUILD/obj/lib"
[ -d "$obj/llm" ] && [ -d "$obj/search" ] || skip "no object files under $obj"
command -v nm >/dev/null || skip "no nm"

# The search core names a child's mode through kernelpro/mode.h; only the adapters behind its
# interfaces (the files that include search_backends.h) may see lib/programmer or lib/llm.
for d in "$obj"/search/*.d; do
	grep -q 'kernelpro/search_backends\.h' "$d" && continue
	! grep -Eq 'kernelpro/(programmer|llm)\.h' "$d" || fail "$(basename "$d" .d).c (search core) includes programmer.h or llm.h"
done

# LLM backends reach only the core (core.c, wire.c, redact.c), never llm.c or the backend table:
# llm.c reaches them through that table, so there is no cycle between them.
defined() { for o in "$@"; do nm --defined-only "$obj/llm/$o.o" | awk '{print $3}'; done | sort -u; }
defined core wire redact >core.syms
# The backends are the objects that define a backend table entry (constant data).
backends=$(for o in "$obj"/llm/*.o; do
	nm --defined-only "$o" | awk '$2 ~ /^[RrDd]$/ && $3 ~ /^kp_llm_backend_/ {found=1} END {exit !found}' &&
		basename "$o" .o
done)
[ "$(echo $backends)" != "" ] || fail "no backend objects found under $obj/llm"
for be in $backends; do
	nm -u "$obj/llm/$be.o" | awk '{print $2}' | grep -E '^kp_(llm|redact)' | sort -u >"$be.used"
	[ -s "$be.used" ] || fail "$be.o uses no core service: is the symbol check looking at the right files?"
	extra=$(comm -23 "$be.used" core.syms)
	[ -z "$extra" ] || fail "backend $be.c uses more than the core: $extra"
done
# And the core knows no backend.
! nm -u "$obj/llm/core.o" | grep -q 'kp_llm_backend' || fail "core.c refers to a backend"
exit 0

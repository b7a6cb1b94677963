# Layering that the build alone would not catch (docs/internals/headers.md, llm.md, search.md): the
# rules between folders, from every #include line (tests/integration/layering.sh), and the LLM
# backends' seams, from the build's object symbols, so it checks what was compiled.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/layering.sh"

# The rules between folders hold in the tree.
layer_check "$KP_ROOT" >violations
[ ! -s violations ] || { cat violations; fail "the folders break the layering rules (above)"; }
# No cycle between folders: each can be understood (and tested) with only the folders below it.
layer_cycles "$KP_ROOT" >cycles
[ ! -s cycles ] || { cat cycles; fail "the folders depend on each other in a cycle (above)"; }
# Task kinds decide through their row of the kind table, never by comparing kinds outside lib/task.
kind_comparisons "$KP_ROOT" >kinds
[ ! -s kinds ] || { cat kinds; fail "task kinds compared outside lib/task: ask struct kp_task_kind_info (task_kind.h)"; }
# Those edges are read at all: the search core does include lib/store, the adapters lib/eval.
layer_edges "$KP_ROOT" >edges
grep -q '^lib/search lib/store ' edges && grep -q '^lib/adapters lib/eval ' edges ||
	fail "layer_edges found no edge of the search core or its adapters: is it reading the tree?"

# And the check refuses a tree that breaks each rule: a small copy with one breach of each.
mk() { mkdir -p "$(dirname "$1")" && printf '%s\n' "$2" >"$1"; }
t=bad-tree
mk $t/docs/internals/headers.md '| `kernelpro/search.h` | lib/search | |
| `kernelpro/eval.h` | lib/eval | |
| `kernelpro/run.h` | lib/run | |
| `kernelpro/search_backends.h` | lib/adapters | |
| `kernelpro/gone.h` | lib/eval | |'
mk $t/include/kernelpro/search.h ''
mk $t/include/kernelpro/eval.h '#include "kernelpro/unlisted.h"'
mk $t/include/kernelpro/run.h ''
mk $t/include/kernelpro/search_backends.h ''
mk $t/lib/search/loop.c '#include "kernelpro/eval.h"'
mk $t/lib/eval/eval.c '#include "kernelpro/search_backends.h"
#include "search/loop_int.h"'
mk $t/lib/run/run.c '#include "kernelpro/search_backends.h"'
mk $t/src/main.c '#include "kernelpro/run.h"'
layer_check $t >bad
for want in 'rule: lib/search may not depend on lib/eval: lib/search/loop.c includes kernelpro/eval.h' \
	'rule: only lib/run src may depend on lib/adapters: lib/eval/eval.c includes kernelpro/search_backends.h' \
	'ERROR lib/eval/eval.c: includes search/loop_int.h, a header private to lib/search' \
	'ERROR include/kernelpro/eval.h: includes kernelpro/unlisted.h, which docs/internals/headers.md does not list' \
	'ERROR docs/internals/headers.md: lists kernelpro/gone.h, which is not in include/'; do
	contains bad "$want"
done
[ "$(wc -l <bad)" -eq 5 ] || { cat bad; fail "the bad tree gave other complaints than its five breaches"; }
# A cycle of three folders, through a public header and a .c file.
mk $t/include/kernelpro/run.h '#include "kernelpro/search.h"'
mk $t/include/kernelpro/search.h '#include "kernelpro/eval.h"'
mk $t/lib/eval/eval.c '#include "kernelpro/run.h"'
layer_cycles $t >cycle
contains cycle 'lib/run -> lib/search: include/kernelpro/run.h includes kernelpro/search.h'
contains cycle 'lib/search -> lib/eval: include/kernelpro/search.h includes kernelpro/eval.h'
contains cycle 'lib/eval -> lib/run: lib/eval/eval.c includes kernelpro/run.h'
grep -q '^cycle: ' cycle || { cat cycle; fail "no cycle named"; }
# And a comparison of kinds, in each of its forms, outside lib/task (one inside it is the table's own).
mk $t/lib/eval/eval.c 'if (t->kind == KP_TASK_NATIVE) x();
if (KP_TASK_TRITON != k) y();
switch (k) { case KP_TASK_KERNELBENCH: break; }'
mk $t/lib/task/kind.c 'if (kinds[i].kind == KP_TASK_NATIVE) z();'
kind_comparisons $t >kinds
[ "$(wc -l <kinds)" -eq 3 ] && ! grep -q lib/task kinds || { cat kinds; fail "kind_comparisons missed or overreached"; }

# The rest reads the build's objects.
obj="$KP_BUILD/obj/lib"
[ -d "$obj/llm" ] || skip "no object files under $obj"
command -v nm >/dev/null || skip "no nm"

# A public header declares only what the folder that owns it defines (docs/internals/headers.md):
# its functions are in that folder's objects, or static inline in the header itself.
checked=0
awk '/^\| `kernelpro\//{split($0, c, "|"); h = c[2]; gsub(/[ `]/, "", h); o = c[3]; gsub(/ /, "", o); print h, o}' \
	"$KP_ROOT/docs/internals/headers.md" >owners
while read -r h o; do
	[ "$o" = "—" ] && continue
	defs="defs.$(basename "$o")"
	[ -e "$defs" ] || nm --defined-only "$KP_BUILD/obj/$o"/*.o 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u >"$defs"
	grep -oE '^[a-z][a-z0-9_ *]*[ *]kp_[a-z0-9_]+\(' "$KP_ROOT/include/$h" | grep -oE 'kp_[a-z0-9_]+\($' |
		tr -d '(' | sort -u >decls
	checked=$((checked + $(wc -l <decls)))
	for fn in $(comm -23 decls "$defs"); do
		grep -q "static inline.*[ *]$fn(" "$KP_ROOT/include/$h" ||
			fail "$h declares $fn, which $o (its folder) does not define"
	done
done <owners
[ "$checked" -gt 500 ] || fail "only $checked declarations checked: is the header index read?"

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

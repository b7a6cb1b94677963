# Sourced by t0006-layering.sh: the folders of a source tree and the edges between them, from its
# #include lines, checked against the rules between folders (docs/internals/headers.md says who owns
# each public header). A function of the tree's root, so that the test can also run it on a small
# tree that breaks each rule and see it refuse that tree.

# The rules: a folder, then the only folders it may include from (lib/base is always allowed, and a
# folder absent here may include anything that makes no cycle). The foundations stand alone; the
# model's side never sees evaluation; the search core is an algorithm over its interfaces
# (docs/internals/adapters.md); reports draw from the run view and suites, never from a database.
LAYER_RULES='
lib/base:
lib/hw:
lib/task:
lib/store:
lib/llm:
lib/programmer: lib/llm
lib/search: lib/store lib/tune lib/task lib/codesearch
lib/report: lib/run lib/suite
'
# Only these may include the search's adapters (lib/adapters): what wires a session, and the CLI.
LAYER_ADAPTER_USERS='lib/run src'

# layer_edges ROOT: prints "FROM TO FILE INCLUDE" for every #include of ROOT's lib/, src/ and
# include/kernelpro that crosses folders; "ERROR text" for an include that no rule can place.
layer_edges() {
	_root=$1
	awk -v root="$_root" '
		FNR == 1 {
			file = FILENAME; sub("^" root "/", "", file)
			split(file, p, "/")
			if (p[1] == "include") { h = p[2] "/" p[3]; from = (h in owner) ? owner[h] : "?" }
			else if (p[1] == "src") from = "src"
			else from = p[1] "/" p[2]
			if (p[1] == "include") seen[h] = 1
			if (p[1] == "include" && from == "?") print "ERROR " file ": not in docs/internals/headers.md"
		}
		# The index: | `kernelpro/x.h` | lib/y | ... |
		FILENAME ~ /docs\/internals\/headers\.md$/ {
			if ($0 ~ /^\| `kernelpro\/[a-z0-9_]+\.h` \|/) {
				split($0, c, "|"); h = c[2]; gsub(/[ `]/, "", h); o = c[3]; gsub(/ /, "", o)
				owner[h] = o; listed[h] = 1
			}
			next
		}
		/^[ \t]*#[ \t]*include[ \t]*"/ {
			inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
			if (inc ~ /^kernelpro\//) {
				if (!(inc in owner)) { print "ERROR " file ": includes " inc ", which docs/internals/headers.md does not list"; next }
				to = owner[inc]
				if (to == "—") next
			} else if (inc ~ /\//) {
				to = "lib/" inc; sub(/\/[^\/]*$/, "", to)
				if (to != from && inc != "base/setup.h")
					print "ERROR " file ": includes " inc ", a header private to " to
			} else next
			if (from == "—" && to != "lib/base")
				print "ERROR " file ": a header of no folder includes " inc " (" to "); it may include lib/base only"
			if (to != from && from != "—") print from, to, file, inc
		}
		END {
			for (h in listed) if (!(h in seen)) print "ERROR docs/internals/headers.md: lists " h ", which is not in include/"
		}
	' "$_root/docs/internals/headers.md" "$_root"/include/kernelpro/*.h "$_root"/lib/*/*.[ch] "$_root"/src/*.[ch]
}

# layer_check ROOT: prints every violation (nothing when the tree keeps the rules).
layer_check() {
	layer_edges "$1" | awk -v rules="$LAYER_RULES" -v adapter_users="$LAYER_ADAPTER_USERS" '
		BEGIN {
			n = split(rules, lines, "\n")
			for (i = 1; i <= n; i++) {
				if (lines[i] !~ /:/) continue
				split(lines[i], kv, ":"); ruled[kv[1]] = 1
				m = split(kv[2], ok, " "); for (j = 1; j <= m; j++) allowed[kv[1], ok[j]] = 1
			}
			m = split(adapter_users, u, " "); for (j = 1; j <= m; j++) may_adapt[u[j]] = 1
		}
		$1 == "ERROR" { print; next }
		{
			from = $1; to = $2
			if (to == "lib/base") next
			if ((from in ruled) && !((from, to) in allowed))
				print "rule: " from " may not depend on " to ": " $3 " includes " $4
			if (to == "lib/adapters" && !(from in may_adapt))
				print "rule: only " adapter_users " may depend on lib/adapters: " $3 " includes " $4
		}
	'
}

# layer_cycles ROOT: prints every cycle between folders, with one #include that makes each of its edges.
layer_cycles() {
	layer_edges "$1" | awk '
		$1 == "ERROR" || $2 == "lib/base" { next }
		{
			if (!(($1, $2) in edge)) { edge[$1, $2] = $3 " includes " $4; out[$1] = out[$1] " " $2 }
			node[$1] = 1; node[$2] = 1
		}
		# Depth-first search; a grey folder reached again closes a cycle, printed with one include per edge.
		function visit(v,    k, n, i, w, path, nx, i2) {
			colour[v] = 1; stack[++depth] = v
			n = split(out[v], nx, " ")
			for (i = 1; i <= n; i++) {
				w = nx[i]
				if (colour[w] == 1) {
					for (k = depth; k > 1 && stack[k] != w; k--) ;
					path = stack[k]
					for (i2 = k + 1; i2 <= depth; i2++) path = path " -> " stack[i2]
					print "cycle: " path " -> " w
					for (i2 = k; i2 < depth; i2++) print "    " stack[i2] " -> " stack[i2 + 1] ": " edge[stack[i2], stack[i2 + 1]]
					print "    " v " -> " w ": " edge[v, w]
				} else if (!colour[w])
					visit(w)
			}
			depth--; colour[v] = 2
		}
		END { for (v in node) if (!colour[v]) visit(v) }
	'
}

# kind_comparisons ROOT: every comparison with a task kind's constant (==, !=, case) outside lib/task.
# Everything after loading asks the kind's row (include/kernelpro/task_kind.h) instead, so a new
# kind is a row, not a hunt (docs/internals/adding.md).
kind_comparisons() {
	grep -HnE 'KP_TASK_[A-Z0-9_]+[[:space:]]*[!=]=|[!=]=[[:space:]]*KP_TASK_|case[[:space:]]+KP_TASK_' \
		"$1"/lib/*/*.[ch] "$1"/src/*.[ch] "$1"/include/kernelpro/*.h | sed "s|^$1/||" | grep -v '^lib/task/'
}

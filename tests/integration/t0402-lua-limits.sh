#!/bin/sh
# Hostile Lua user tools cannot hang `tools list` or `diagnose` (issue 21): pattern backtracking,
# gsub and string.rep loops, table.move over a huge range, pcall/xpcall swallowing the limit, __gc
# finalizers. Each file ends with an error naming it; the other tools still load and run. The
# `timeout` is only a hang detector: all of this takes a few seconds.
. "$KP_ROOT/tests/integration/lib.sh"
G="$KP_ROOT/tests/golden/h200-probe"
export XDG_CACHE_HOME="$PWD/cache"
unset KERNELPRO_TOOLS_PATH

# name|body, one per line: each runs once at load time (load/) and once as a trigger (run/).
cat >hostile.txt <<'EOF'
pattern|return string.find(string.rep("a", 3000), string.rep(".-", 12) .. "b")
gsub_bomb|local s = string.rep("ab", 5e5) for i = 1, 1e9 do s:gsub("a", "a") end
rep_empty|for i = 1, 1e9 do string.rep("", math.maxinteger) end
tmove|table.move({}, 1, math.maxinteger - 1, 1, {})
pcall_loop|while true do pcall(function() while true do end end) end
xpcall_loop|while true do xpcall(function() while true do end end, function() while true do end end) end
gc|setmetatable({}, {__gc = function() while true do end end})
EOF
mkdir load run
while IFS='|' read -r name body; do
	printf 'local function f()\n%s\nend\nf()\nreturn {}\n' "$body" >"load/$name.lua"
	printf 'return { name = "%s", description = "hostile", analyze = function() end,\n  trigger = function(m, t)\n%s\nend }\n' \
		"$name" "$body" >"run/$name.lua"
done <hostile.txt
cp "$KP_ROOT/examples/tools/l2_hit_rate.lua" load/
cp "$KP_ROOT/examples/tools/l2_hit_rate.lua" run/

expect_exit 0 timeout 120 "$KP" tools list --tools-dir load
contains out "l2_hit_rate"
while IFS='|' read -r name body; do
	grep -F "load/$name.lua" err | grep -q -e "limit exceeded" -e "__gc metamethods are not allowed" ||
		{ cat err; fail "load/$name.lua: no error naming the file and the limit"; }
done <hostile.txt

expect_exit 0 timeout 120 "$KP" tools list --tools-dir run
contains out "l2_hit_rate"
contains out "gc "
expect_exit 0 timeout 120 "$KP" diagnose --json --ncu-csv "$G/ncu_raw.csv" --launch 0 --all-tools --tools-dir run
python3 - hostile.txt <<'PY' || fail "diagnose: the hostile tools' results"
import json, sys
names = [l.split("|")[0] for l in open(sys.argv[1]) if l.strip()]
runs = {r["tool"]: r for r in json.load(open("out"))["launches"][0]["tool_runs"]}
for n in names:
    r = runs[n]
    assert r["status"] == "failed", (n, r)
    assert "run/%s.lua:" % n in r["message"], (n, r["message"])
    assert "limit exceeded" in r["message"] or "__gc metamethods are not allowed" in r["message"], (n, r["message"])
assert runs["l2_hit_rate"]["status"] in ("silent", "fired", "missing"), runs["l2_hit_rate"]
assert runs["sol_gap"]["status"] == "fired", runs["sol_gap"]
print("ok")
PY
echo ok

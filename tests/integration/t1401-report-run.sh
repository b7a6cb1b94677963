# kernelpro report RUN: one self-contained page per run (roofline, tree, progress, diagnoses), read from
# the run database; hostile strings from the run stay text; bad arguments fail with a message.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/report/lib.sh"

make_suite runs
expect_exit 0 "$KP" report gelu --runs-dir runs
contains out "wrote runs/gelu/report.html"
P=runs/gelu/report.html
for plot in roofline search_tree speedup_over_evals; do contains $P "data-plot=\"$plot\""; done
contains $P "Content-Security-Policy"
contains $P "best #8"                                    # the best version's point on the roofline
contains $P "fp32 peak 67 TFLOP/s"
contains $P "occupancy 50%, limited by registers"        # a version's diagnosis
contains $P "register-limited occupancy"                 # and its findings
contains $P 'identifier &quot;vec4&quot; is undefined'   # a compile log, escaped
# Where it ran and with what: GPU, model, kernelpro, dates, settings; the one meaning of "best".
contains $P "<dt>GPU</dt><dd>NVIDIA H200 (fake harness)</dd>"
contains $P "<dt>model</dt><dd>replay:"
contains $P "<dt>kernelpro</dt><dd>"
contains $P "Settings the run was made with"
contains $P "Best: the version that beat the reference by the most"
# Each version's source, with a diff against its parent and against the reference.
contains $P '<details id="v8">'
contains $P "Diff against its parent #6"
contains $P "Diff against the reference"
contains $P '<span class="add">+'
# Why a version failed, in its row and at its place (#2 a compile error, #5 wrong output).
contains $P "Why it failed"
contains $P '<b>Why: </b>cand.cu(7): error: identifier &quot;vec4&quot; is undefined'
# Nothing is fetched at view time: no src=, no link off the page, no url( but the plots' clip paths.
lacks $P "src="
[ "$(grep -o 'href="[^#]' $P | wc -l)" -eq 0 ] || fail "the run page links outside itself"
[ "$(grep -o 'url([^#]' $P | wc -l)" -eq 0 ] || fail "the page refers to an outside url()"
# -o, --json, and a run directory instead of a name.
expect_exit 0 "$KP" report runs/kb -o kb.html --json
[ "$(json out 'd["report"]')" = kb.html ] || fail "--json: report path"
[ "$(json out 'd["kind"]')" = run ] || fail "--json: kind"
contains kb.html "Run kb"
contains kb.html "2.00×"

# Hostile strings from the task, the model and the tools never become markup.
make_hostile hostile
expect_exit 0 "$KP" report hostile/hostile
H=hostile/hostile/report.html
[ "$(grep -o '<script' $H | wc -l)" -eq 1 ] || fail "hostile: more than the page's own script"
lacks $H "<img"
lacks $H "</pre><script>"
contains $H "&lt;script&gt;window.__kp_pwned=1&lt;/script&gt;"
contains $H "occupancy&quot;&gt;&lt;b&gt;"

# Errors say what to do.
expect_exit 1 "$KP" report nosuchrun --runs-dir runs
contains err "no run 'nosuchrun'"
contains err "'kernelpro runs' lists them"
printf '{"schema":"kernelpro.bench-results/1","tasks":[{"name":"x","state":"finished","correct":true,"best_ms":-1}]}' >bad.json
expect_exit 1 "$KP" report bad.json
contains err "task 'x': best_ms is -1; a time is a positive number of ms, or null when not measured"
exit 0

#!/bin/sh
# The README's first command: the main job on a bundled example, as far as this machine allows.
# With a GPU it runs the real thing; without one it runs the offline parts and says what it skipped.
set -u
KP=${KP:-build/bin/kernelpro}
echo "== kernelpro doctor"
"$KP" doctor
rc=$?
[ $rc -le 1 ] || exit $rc
echo
echo "demo: 'kernelpro optimize' is not built yet; doctor is the most complete job so far."

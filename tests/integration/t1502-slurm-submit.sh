# The library's side of `bench --slurm` against a real private cluster: kp_slurm_submission_make
# writes and submits a 3-element array and its afterany merge job; kp_slurm_status_query follows them to
# the end; each element ran `bench SUITE --shard K/3 --resume ...` (t_slurm's test_live_submit).
. "$KP_ROOT/tests/integration/lib.sh"

T=$KP_BUILD/tests/t_slurm
[ -x "$T" ] || fail "build $T first (make unit)"
. "$KP_ROOT/tests/support/slurm/test-lib.sh"
slurm_test_cluster 8 4

(cd "$KP_ROOT" && KP_SLURM_LIVE=1 "$T") >t.out 2>&1 || { cat t.out; fail "t_slurm against the cluster"; }
grep -q '^\[       OK \] test_live_submit' t.out || { cat t.out; fail "test_live_submit did not run"; }
echo "ok"

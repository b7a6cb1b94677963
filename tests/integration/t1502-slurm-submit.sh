# The library's side of `bench --slurm` against a real private cluster: kp_slurm_write_and_submit
# writes and submits a 3-element array and its afterany merge job; kp_slurm_query follows them to
# the end; each element ran `bench SUITE --shard K/3 --resume ...` (t_slurm's test_live_submit).
. "$KP_ROOT/tests/integration/lib.sh"

CL="$KP_ROOT/tests/support/slurm/cluster.sh"
C=$KP_TMP/cluster
T=$KP_BUILD/tests/t_slurm
[ -x "$T" ] || fail "build $T first (make unit)"
trap 'sh "$CL" down "$C" >down.out 2>&1' EXIT
trap 'exit 1' INT TERM
sh "$CL" up "$C" 8 4 >up.out 2>&1
rc=$?
[ $rc -eq 77 ] && skip "$(tail -1 up.out)"
[ $rc -eq 0 ] || { cat up.out; fail "the Slurm cluster did not start"; }
export SLURM_CONF="$C/etc/slurm.conf"
PATH=$PATH:/usr/sbin

(cd "$KP_ROOT" && KP_SLURM_LIVE=1 "$T") >t.out 2>&1 || { cat t.out; fail "t_slurm against the cluster"; }
grep -q '^\[       OK \] test_live_submit' t.out || { cat t.out; fail "test_live_submit did not run"; }
echo "ok"

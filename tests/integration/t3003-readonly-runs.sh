# Issue 30, N6: show, runs and report read a run on a read-only file system (a run directory mounted
# read-only, a copy on a read-only share): SQLite cannot make the -shm file a WAL database needs
# there, so such a database opens as immutable. Needs unprivileged user and mount namespaces.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"
command -v unshare >/dev/null || skip "unshare is needed to mount a directory read-only"
unshare -rm true 2>/dev/null || skip "no user namespaces here (unshare -rm)"
expect_exit 0 optimize --evals 4 --name ro
[ ! -e kernelpro-runs/ro/run.db-wal ] || [ ! -s kernelpro-runs/ro/run.db-wal ] || fail "the run left a WAL behind"
cat >ro.sh <<'EOS'
set -u
mount --bind kernelpro-runs kernelpro-runs && mount -o remount,bind,ro kernelpro-runs || exit 77
touch kernelpro-runs/probe 2>/dev/null && { echo "the mount is writable"; exit 1; }
"$KP" show ro >show.txt 2>show.err || exit 2
"$KP" show ro --tree --json >tree.json 2>tree.err || exit 3
"$KP" runs >runs.txt 2>runs.err || exit 4
"$KP" report ro -o "$PWD/rep/report.html" >report.txt 2>report.err || exit 5
exit 0
EOS
mkdir rep
KP="$KP" unshare -rm sh ro.sh
rc=$?
[ $rc -ne 77 ] || skip "cannot mount read-only here"
for f in show.err tree.err runs.err report.err; do [ -f $f ] && cat $f; done
[ $rc -eq 0 ] || fail "a command failed on the read-only run (step $rc)"
contains show.txt "run:       ro (finished"
contains runs.txt "ro "
lacks runs.txt "unreadable"
[ "$(json tree.json 'd["used"]["evaluations"]')" = 4 ] || fail "show --tree --json on the read-only run"
[ -s rep/report.html ] || fail "no report of the read-only run"
exit 0

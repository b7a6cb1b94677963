# Sourced by the Slurm integration tests after tests/integration/lib.sh: starts a private cluster in
# $KP_TMP/cluster (CPUS and GPUS as given), stops it when the test exits, and exports SLURM_CONF.
# A machine that cannot run Slurm at all makes the test report itself skipped, with the reason.
# slurm_test_cluster CPUS GPUS
slurm_test_cluster() {
	CL="$KP_ROOT/tests/support/slurm/cluster.sh"
	C=$KP_TMP/cluster
	trap 'sh "$CL" down "$C" >down.out 2>&1' EXIT
	trap 'exit 1' INT TERM
	sh "$CL" up "$C" "$1" "$2" >up.out 2>&1
	rc=$?
	[ $rc -eq 77 ] && skip "$(tail -1 up.out)"
	[ $rc -eq 0 ] || { cat up.out; fail "the Slurm cluster did not start"; }
	export SLURM_CONF="$C/etc/slurm.conf"
	PATH=$PATH:/usr/sbin
}

# slurm_start_now JOB...: lets requeued jobs (array elements J_K) start at once instead of at their
# begin time, once what that delay protects against is over: a step of the last run still on the
# node (slurmd would refuse a second copy and hold the job), a kill slurmctld still owes the node for
# it (it would end the new run), and the credential the kill revoked (slurmd refuses it until it
# expires: cred_expire=5 in cluster.sh, and the revocation came before the step left).
slurm_start_now() {
	tries=150
	for job in "$@"; do
		until [ "$(squeue --noheader --states=all --array --jobs="$job" --format=%T 2>/dev/null)" = PENDING ] &&
			slurm_step_gone "$job" && sdiag | grep -q "No pending RPCs"; do
			tries=$((tries - 1))
			[ $tries -gt 0 ] || { squeue --states=all --array; sdiag | sed -n '/Pending RPC/,$p'; fail "$job cannot start"; }
			sleep 0.2
		done
	done
	sleep 6
	# Slurm may start an element on its own during the sleep (its begin time passed, common on a slow
	# machine): the update then answers "no longer pending", which is what the update was for.
	for job in "$@"; do
		scontrol update jobid="$job" StartTime=now 2>"$KP_TMP/start-now.err" && continue
		st=$(squeue --noheader --states=all --array --jobs="$job" --format=%T 2>/dev/null)
		[ "$st" != PENDING ] && grep -q "no longer pending" "$KP_TMP/start-now.err" ||
			{ cat "$KP_TMP/start-now.err"; fail "scontrol update jobid=$job StartTime=now ($st)"; }
	done
}

# slurm_step_gone JOB: no slurmstepd of JOB (an array element J_K, or a job id) runs any more.
slurm_step_gone() {
	id=$(squeue --noheader --states=all --array --jobs="$1" --format=%A 2>/dev/null)
	[ -n "$id" ] && ! ps -eo args= | grep -q "^slurmstepd: \[$id\."
}

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

#!/bin/sh
# The profile parsers at scale (issue 21): 200,000 SASS or ptxas functions and an ncu header of
# 200,000 prefixed columns parse in linear time (each was quadratic: minutes to hours), and a file
# that would need more memory than KERNELPRO_PROFILE_MEM_MB is refused with a message saying how
# to raise the cap. The `timeout`s only detect a hang: each of these takes a second or two.
. "$KP_ROOT/tests/integration/lib.sh"
G="$KP_ROOT/tests/golden/h200-probe"
export XDG_CACHE_HOME="$PWD/cache"
unset KERNELPRO_PROFILE_MEM_MB

# 200,000 cuobjdump functions (one of them the kernel of launch 0, which must still join).
awk 'BEGIN { print "\tcode for sm_90"
	for (i = 0; i < 200000; i++) {
		printf "\t\tFunction : _Z1k%06dPf\n", i
		print "        /*0000*/                   LDG.E R2, desc[UR4][R2.64] ;"
		print "        /*0010*/                   EXIT ;"
		print "\t\t.........."
	} }' >many_sass.txt
sed -n '/Function : _Z11tiny_kernelPf/,/\.\.\.\.\.\.\.\.\.\./p' "$G/sass.txt" >>many_sass.txt
expect_exit 0 timeout 60 "$KP" diagnose --json --gpu-model h200 --ncu-csv "$G/ncu_raw.csv" --sass many_sass.txt --launch 0
python3 -c "import json; l = json.load(open('out'))['launches'][0]; assert 'sass' in l['sources'], l['sources']" ||
	fail "the launch's kernel did not join among 200,000 SASS functions"

# 200,000 ptxas reports of device functions, each looked up by name when it appears.
awk 'BEGIN { for (i = 0; i < 200000; i++) {
		printf "ptxas info    : Function properties for _Z1d%06dPf\n", i
		print "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
	} }' >many_ptxas.txt
expect_exit 0 timeout 60 "$KP" diagnose --gpu-model h200 --ncu-csv "$G/ncu_raw.csv" --ptxas many_ptxas.txt --launch 0

# An ncu raw page with 200,000 section-prefixed columns (each checked against the plain names).
awk 'BEGIN { n = 200000
	printf "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\""; for (i = 0; i < n; i++) printf ",\"S.C.m%d__x.sum\"", i; print ""
	printf "\"\",\"\",\"nsecond\""; for (i = 0; i < n; i++) printf ",\"inst\""; print ""
	printf "\"0\",\"k\",\"1000\""; for (i = 0; i < n; i++) printf ",\"1\""; print ""
	}' >wide.csv
expect_exit 0 timeout 60 "$KP" diagnose --gpu-model h200 --ncu-csv wide.csv
contains out "launch 0"

# The memory cap: each parser refuses, naming the file, the cap and the variable that raises it.
for f in many_sass.txt:--sass many_ptxas.txt:--ptxas wide.csv:--ncu-csv; do
	file=${f%%:*} opt=${f#*:}
	if [ "$opt" = --ncu-csv ]; then args="--ncu-csv $file"; else args="--ncu-csv $G/ncu_raw.csv $opt $file"; fi
	# shellcheck disable=SC2086
	KERNELPRO_PROFILE_MEM_MB=8 expect_exit 1 "$KP" diagnose --gpu-model h200 $args
	contains err "$file"
	contains err "more than the 8 MiB allowed for profile data (KERNELPRO_PROFILE_MEM_MB); raise it (e.g. KERNELPRO_PROFILE_MEM_MB=32)"
done
KERNELPRO_PROFILE_MEM_MB=lots expect_exit 1 "$KP" diagnose --gpu-model h200 --ncu-csv "$G/ncu_raw.csv"
contains err "KERNELPRO_PROFILE_MEM_MB='lots' is not a positive number of MiB"
echo ok

# Without NVML, kernelpro energy says "energy unavailable" at once (before building anything) and exits 3.
. "$KP_ROOT/tests/integration/lib.sh"

expect_exit 3 env KP_LIBNVML=/nonexistent/libnvidia-ml.so.1 "$KP" energy --builtin fma
contains err "energy unavailable"
contains err "libnvidia-ml.so.1"

expect_exit 3 env KP_LIBNVML=/nonexistent/libnvidia-ml.so.1 "$KP" energy "$KP_ROOT/examples/native/swish" "$KP_ROOT/examples/native/swish/candidates/fast.cu"
contains err "energy unavailable"

# The driver itself says the same, as JSON on stdout, with exit status 3.
drv="$KP_BUILD/libexec/kernelpro/kp-energy"
if [ -x "$drv" ]; then
	expect_exit 3 env KP_LIBNVML=/nonexistent/libnvidia-ml.so.1 "$drv" builtin fma
	contains out '"ok": false'
	contains out '"code": "notool"'
	contains out "energy unavailable"
fi

# Usage errors come before anything else.
expect_exit 2 "$KP" energy --builtin fma "$KP_ROOT/examples/native/swish"
contains err "--builtin"
expect_exit 2 "$KP" energy --windows 0 --builtin fma
contains err "--windows"
expect_exit 2 "$KP" energy --idle-w 120 --builtin fma
contains err "--idle-s 0"

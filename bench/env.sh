# Sourced by the bench scripts once they have set $root (the repository): the kernelpro binary (KP:
# build/, else the GPU bundle dist/gpu) and the python3 with torch (KERNELPRO_PYTHON: the H200's venv
# where it exists), both exported with KERNELPRO_HOME.
KP=${KP:-$root/build/bin/kernelpro}
[ -x "$KP" ] || KP="$root/dist/gpu/bin/kernelpro"
py=${KERNELPRO_PYTHON:-python3}
[ -x /opt/torch/.venv/bin/python3 ] && py=${KERNELPRO_PYTHON:-/opt/torch/.venv/bin/python3}
export KP KERNELPRO_PYTHON="$py" KERNELPRO_HOME="${KERNELPRO_HOME:-$root}"

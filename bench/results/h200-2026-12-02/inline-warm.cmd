XDG_CACHE_HOME=/tmp/kp-inline-6XzZfr/shared  /work/main/dist/gpu/bin/kernelpro eval /work/main/examples/kernelbench/swish_scale.py /tmp/kp-inline-6XzZfr/a.py --worker --json

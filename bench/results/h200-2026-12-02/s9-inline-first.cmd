XDG_CACHE_HOME=/tmp/kp-inline-e6vEQW/shared  /work/main/dist/gpu/bin/kernelpro eval /work/main/examples/kernelbench/swish_scale.py /tmp/kp-inline-e6vEQW/b.py --worker --json

XDG_CACHE_HOME=/tmp/kp-inline-e6vEQW/shared KERNELPRO_INLINE_MIN=0 /work/main/dist/gpu/bin/kernelpro eval /work/main/examples/kernelbench/swish_scale.py /tmp/kp-inline-e6vEQW/c.py --worker --json

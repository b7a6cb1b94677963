XDG_CACHE_HOME=/tmp/kp-inline-e6vEQW/plain KERNELPRO_INLINE_CACHE=0 /work/main/dist/gpu/bin/kernelpro eval /work/main/examples/kernelbench/swish_scale.py /tmp/kp-inline-e6vEQW/a.py --worker --json

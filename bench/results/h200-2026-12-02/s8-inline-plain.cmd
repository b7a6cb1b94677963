XDG_CACHE_HOME=/tmp/kp-inline-4nJavN/plain KERNELPRO_INLINE_CACHE=0 /work/main/dist/gpu/bin/kernelpro eval /work/main/examples/kernelbench/swish_scale.py /tmp/kp-inline-4nJavN/a.py --worker --json

XDG_CACHE_HOME=/tmp/kp-inline-e6vEQW/shared /work/main/dist/gpu/bin/kernelpro eval /work/main/examples/kernelbench/swish_scale.py p$i.py --json   (i = 0..15, all at once)

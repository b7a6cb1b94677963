#!/bin/sh
# Builds dist/gpu: kernelpro plus what it needs to run on the GPU machine (Ubuntu 24.04, runtime
# libraries present, no headers, no Lua). Lua is linked statically; every other shared library the
# binary needs must be one the image has (docs/internals/gpu-machine.md), else it is copied beside it.
set -eu
build=$1
dest=$2
# Shared libraries the GPU image is known to provide (gpu_image.txt and our own probe). The CUDA 13
# toolkit there has cuBLAS (kp-calibrate) and CUPTI (the tracer): never copy those (cuBLAS is 54 MB).
present="libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 libcurl.so.4 libjansson.so.4 libsqlite3.so.0 \
libcrypto.so.3 libssl.so.3 ld-linux-x86-64.so.2 linux-vdso.so.1 libgcc_s.so.1 libstdc++.so.6 librt.so.1 \
libcublas.so.13 libcublasLt.so.13 libcupti.so.13"
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/libexec/kernelpro" "$dest/share/kernelpro"
cp "$build/bin/kernelpro" "$dest/bin/"
[ -d "$build/libexec/kernelpro" ] && cp -r "$build/libexec/kernelpro/." "$dest/libexec/kernelpro/"
for d in harness prompts examples; do
	[ -d "$d" ] && cp -r "$d" "$dest/share/kernelpro/"
done
# Report (and copy) any direct dependency the image may lack.
for f in "$dest/bin/kernelpro" "$dest"/libexec/kernelpro/*; do
	[ -f "$f" ] || continue
	file "$f" 2>/dev/null | grep -q ELF || continue
	for lib in $(objdump -p "$f" 2>/dev/null | awk '/NEEDED/ {print $2}'); do
		case " $present " in *" $lib "*) continue ;; esac
		path=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')
		if [ -n "$path" ] && [ ! -e "$dest/lib/$lib" ]; then
			cp -L "$path" "$dest/lib/$lib"
			echo "gpu-bundle: copied $lib (not on the GPU image)"
		fi
	done
done
echo "gpu-bundle: $dest ($(du -sh "$dest" | cut -f1)); run there: KERNELPRO_HOME=\$PWD $dest/bin/kernelpro doctor"

#!/bin/sh
# Installs CUTLASS/CuTe headers and examples for CuTe candidates and `kernelpro codesearch`, from the
# nvidia-cutlass wheel on PyPI (pinned version and SHA-256), into a checkout-shaped tree:
#   DEST/include/{cute,cutlass}  DEST/tools/util/include  DEST/examples  DEST/LICENSE.txt
# DEST defaults to .cutlass in the source tree, where kernelpro finds it (docs/codesearch.md); `make deps`
# runs this after tools/install-deps.sh.
# Idempotent: a complete DEST of this version is left alone. The GPU machine has no CUTLASS: a device
# call carries .cutlass/include and .cutlass/tools (27 MB; docs/internals/codesearch.md).
#
#   tools/install-cutlass.sh [DEST]
set -eu
VERSION=4.2.0.0
SHA256=f9599ada45c7bcb6bf53f7d3f0a7d154183e53451c01bfa59eecd37dd4a693f6
WHEEL=nvidia_cutlass-$VERSION-py3-none-any.whl

root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/.cutlass}
py=${PYTHON:-python3}

if [ -f "$dest/include/cutlass/version.h" ] && [ -f "$dest/include/cute/tensor.hpp" ] &&
	[ -f "$dest/.kernelpro-cutlass" ] && [ "$(cat "$dest/.kernelpro-cutlass")" = "$VERSION" ]; then
	echo "install-cutlass: CUTLASS $VERSION already in $dest"
else
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp" "$dest.new"' EXIT
	rm -rf "$dest.new"
	if ! "$py" -m pip download --quiet --no-deps --only-binary :all: -d "$tmp" "nvidia-cutlass==$VERSION"; then
		echo "install-cutlass: could not download nvidia-cutlass $VERSION from PyPI" >&2
		echo "install-cutlass: or point CUTLASS_PATH at a CUTLASS checkout (git clone of NVIDIA/cutlass)" >&2
		exit 1
	fi
	"$py" - "$tmp/$WHEEL" "$SHA256" "$dest.new" <<'EOF'
import hashlib, os, sys, zipfile
whl, want, dest = sys.argv[1:4]
with open(whl, "rb") as f:
    got = hashlib.sha256(f.read()).hexdigest()
if got != want:
    sys.exit("install-cutlass: %s has SHA-256 %s, expected %s" % (whl, got, want))
src = "cutlass_library/source/"
keep = ("include/", "tools/util/include/", "examples/")
with zipfile.ZipFile(whl) as z:
    for info in z.infolist():
        name = info.filename
        if name.endswith("/"):
            continue
        if name.startswith(src) and name[len(src):].startswith(keep):
            rel = name[len(src):]
        elif name.endswith(".dist-info/licenses/LICENSE.txt"):
            rel = "LICENSE.txt"
        else:
            continue
        if ".." in rel.split("/"):
            sys.exit("install-cutlass: unsafe path in the wheel: " + name)
        out = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with z.open(info) as r, open(out, "wb") as w:
            w.write(r.read())
EOF
	echo "$VERSION" >"$dest.new/.kernelpro-cutlass"
	rm -rf "$dest"
	mv "$dest.new" "$dest"
	echo "install-cutlass: CUTLASS $VERSION in $dest ($(du -sh "$dest" | cut -f1))"
fi


#!/bin/sh
# Installs the Debian/Ubuntu packages kernelpro builds and tests with. Idempotent; runs apt-get update first.
set -eu
SUDO=
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
		echo "install-deps: run as root (or install sudo)" >&2; exit 1
	fi
fi
PKGS="build-essential pkg-config git ca-certificates python3 \
libcurl4-openssl-dev libjansson-dev libsqlite3-dev liblua5.4-dev libcmocka-dev libssl-dev"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
echo "install-deps: installed$missing"

#!/bin/sh
# Installs the Debian/Ubuntu packages kernelpro needs (`make deps`), or with --test the ones only its
# tests need (`make test-deps`): cmocka, a private Slurm cluster (slurm-wlm, slurmdbd, munge, MariaDB,
# tests/support/slurm/), fonts and a headless browser for the report test. Idempotent: it checks with
# dpkg first and runs apt-get (update, then install) only for what is missing.
set -eu
usage() { echo "usage: tools/install-deps.sh [--test]" >&2; exit 2; }
want=program
case "${1:-}" in
"") ;;
--test) want=test ;;
*) usage ;;
esac
[ $# -le 1 ] || usage

# make check's Python linters (tools/check-python.sh: ruff and mypy over the harness), from PyPI,
# pinned so that every machine lints alike; tried before the apt packages, which may need root.
py_tools() {
	py_missing=
	python3 -m ruff --version >/dev/null 2>&1 || py_missing="$py_missing ruff==0.17.6"
	python3 -m mypy --version >/dev/null 2>&1 || py_missing="$py_missing mypy==2.4.1"
	[ -n "$py_missing" ] || return 0
	# shellcheck disable=SC2086
	python3 -m pip install -q $py_missing 2>/dev/null ||
		python3 -m pip install -q --break-system-packages $py_missing ||
		echo "install-deps: could not pip install$py_missing; make check will say it skipped them" >&2
}
[ "$want" = program ] || py_tools

if [ "$want" = program ]; then
	PKGS="build-essential pkg-config git ca-certificates python3 \
libcurl4-openssl-dev libjansson-dev libsqlite3-dev liblua5.4-dev libssl-dev"
else
	PKGS="libcmocka-dev slurm-wlm slurmdbd munge mariadb-server-core mariadb-client-core fonts-dejavu-core"
fi
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# A headless browser for the report test (tests/integration/t1403): Debian's headless shell (64 MB,
# about 12 s to install), else the full browser.
browser=
if [ "$want" = test ]; then
	command -v chromium-headless-shell >/dev/null 2>&1 || command -v chromium >/dev/null 2>&1 || browser=wanted
fi
if [ -z "$missing" ] && [ -z "$browser" ]; then
	echo "install-deps: all $want packages present"
	exit 0
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
		echo "install-deps: run as root (or install sudo) to install:$missing${browser:+ chromium}" >&2; exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ -n "$browser" ]; then
	if apt-cache show chromium-headless-shell >/dev/null 2>&1; then
		missing="$missing chromium-headless-shell"
	elif apt-cache show chromium >/dev/null 2>&1; then
		missing="$missing chromium"
	else
		echo "install-deps: no chromium package here; the report's browser test will be skipped" >&2
	fi
fi
if [ -n "$missing" ]; then
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing
fi
echo "install-deps: installed$missing"

#!/bin/sh
# make check's Python part: ruff (ruff.toml) over the harness and its tests, mypy (mypy.ini) over the
# harness. A tool that is not installed is reported as skipped, never as passed (make test-deps installs them).
set -u
cd "$(dirname "$0")/.."
rc=0
if python3 -m ruff --version >/dev/null 2>&1; then
	python3 -m ruff check --quiet harness tests/python bench/real_output_judge.py && echo "check-python: ruff ok" || rc=1
else
	echo "check-python: skip ruff (not installed)"
fi
if python3 -m mypy --version >/dev/null 2>&1; then
	python3 -m mypy --no-error-summary && echo "check-python: mypy ok" || rc=1
else
	echo "check-python: skip mypy (not installed)"
fi
exit $rc

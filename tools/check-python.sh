#!/bin/sh
# make check's Python part: ruff (ruff.toml) over the harness and its tests, mypy (mypy.ini) over the
# harness. A tool that is not installed is reported as skipped, never as passed (pip install ruff mypy).
set -u
cd "$(dirname "$0")/.."
rc=0
if command -v ruff >/dev/null 2>&1; then
	ruff check --quiet harness tests/python bench/real_output_judge.py && echo "check-python: ruff ok" || rc=1
else
	echo "check-python: skip ruff (not installed)"
fi
if command -v mypy >/dev/null 2>&1; then
	mypy --no-error-summary && echo "check-python: mypy ok" || rc=1
else
	echo "check-python: skip mypy (not installed)"
fi
exit $rc

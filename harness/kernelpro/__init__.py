"""kernelpro's Python side: the fast path for candidates (kernelpro.fast) and the harness helpers."""

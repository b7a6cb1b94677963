#!/bin/sh
# Triton without a GPU: optimize --formats cuda,triton on a KernelBench task with recorded replies and
# the fake harness. The tree records every version's language (show --tree prints it), the reference's
# first children are asked in each language in turn, every prompt carries the format section (and an
# optimize prompt the knob section) of the language it asks for, and a prompt that asks for another
# language than its parent's asks for a port.
# Also: the format options' usage errors, and ask --dry-run with the Triton format.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"
TASK="$KP_ROOT/examples/kernelbench/swish_scale.py"
R="$S/replay-triton"

expect_exit 2 "$KP" optimize "$KP_ROOT/examples/native/gelu" --format triton --llm "replay:$R" --evaluator "$FAKE"
contains err "Triton candidates need a KernelBench or Triton task"
expect_exit 2 "$KP" optimize "$TASK" --format triton --formats cuda,triton --llm "replay:$R" --evaluator "$FAKE"
contains err "not both"
expect_exit 2 "$KP" optimize "$TASK" --formats cuda,rust --llm "replay:$R" --evaluator "$FAKE"
contains err "rust"

expect_exit 0 "$KP" optimize "$TASK" --formats cuda,triton --llm "replay:$R" --evaluator "$FAKE" --evals 6 --name mixed
expect_exit 0 "$KP" show mixed --tree
contains out "[cuda]"
contains out "[triton]"
"$KP" show mixed --tree --json >tree.json || fail "show --tree --json"
for i in 2 3 4 5 6 7; do "$KP" show mixed --node "$i" --json >"node$i.json" || fail "show --node $i"; done
python3 - <<'PY' || fail "the languages of the tree (see above)"
import json
tree = {t["node"]: t for t in json.load(open("tree.json"))["tree"]}
assert tree[1]["format"] is None, tree[1]
assert tree[2]["format"] == "torch" and tree[2]["language"] == "cuda", tree[2]
langs = {t["language"] for t in tree.values() if t["parent"]}
assert langs == {"cuda", "triton"}, langs
ports = 0
for i in range(2, 8):
    n = json.load(open("node%d.json" % i))
    prompt = n["exchanges"][0]["prompt"]
    asked = "triton" if "Write the kernels in Triton" in prompt else "torch"
    assert ("kernelpro.fast.load_cuda" in prompt) == (asked == "torch"), (i, "format section")
    if n["exchanges"][0]["mode"] == "optimize":  # the knob section of the language asked for
        assert ("in place of an `@triton.autotune` config list" in prompt) == (asked == "triton"), (i, "knobs")
        assert ('extra_flags=["-DBLOCK=%d"' in prompt) == (asked == "torch"), (i, "knobs")
    parent = tree[n["parent"]]
    if n["exchanges"][0]["mode"] == "optimize" and parent["format"] and parent["format"] != asked:
        assert "Its kernels are written in" in prompt, (i, "no port request")
        ports += 1
    else:
        assert "Its kernels are written in" not in prompt, (i, "a port request without a language change")
    # a Triton reply asked for in CUDA is recorded as Triton
    if "@triton.jit" in n["source"]:
        assert tree[i]["format"] == "triton", (i, tree[i])
# the reference's first child is asked in the first language of --formats
first = min(i for i, t in tree.items() if t["parent"] == 1)
assert "kernelpro.fast.load_cuda" in json.load(open("node%d.json" % first))["exchanges"][0]["prompt"], first
assert ports >= 1, "no version was asked in the other language"
print("languages ok; %d port request(s)" % ports)
PY

# One language for the whole run: --format triton asks every version in Triton.
expect_exit 0 "$KP" optimize "$TASK" --format triton --llm "replay:$R" --evaluator "$FAKE" --evals 1 --name one
"$KP" show one --node 2 --json >one.json || fail "show one"
grep -q "Write the kernels in Triton" one.json || fail "--format triton: the prompt lacks the Triton format"
# A resumed run keeps its languages, as it keeps its other search settings.
expect_exit 2 "$KP" optimize --resume one --format cuda --llm "replay:$R" --evaluator "$FAKE"
contains err "keeps its search settings"
expect_exit 2 "$KP" optimize --resume one --formats cuda,triton --llm "replay:$R" --evaluator "$FAKE"
contains err "keeps its search settings"

# ask --dry-run shows the Triton format section; a Triton task defaults to it.
expect_exit 0 "$KP" ask --dry-run --task "$TASK" --format triton
contains out "tl.dot(a, b, acc)"
contains out "TRITON_F32_DEFAULT=ieee"
expect_exit 0 "$KP" ask --dry-run --task "$KP_ROOT/examples/triton/softmax.py"
contains out "Write the kernels in Triton"
contains out "softmax_kernel"

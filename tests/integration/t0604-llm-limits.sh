# One owner for token and cost limits: the run's budget (--tokens, --cost); kp_llm only counts.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"

# The token budget ends the run once the counted tokens reach it (requests in flight still finish).
expect_exit 0 optimize --tokens 2000 --name tk
[ "$(json kernelpro-runs/tk/summary.json 'd["end_reason"]')" = "budget: tokens" ] || fail "the token budget did not end the run"
used=$(json kernelpro-runs/tk/summary.json 'd["used"]["tokens_in"] + d["used"]["tokens_out"]')
[ "$used" -ge 2000 ] || fail "the run ended at $used tokens, before its budget"
gens=$(json kernelpro-runs/tk/summary.json 'd["used"]["generations"]')
[ "$gens" -lt 10 ] || fail "the run kept asking ($gens generations) past its token budget"

# A cost budget needs a price: without one the cost stays 0 and the budget could never end the run.
cat >model.sh <<'SH'
#!/bin/sh
cat >/dev/null
echo no code
SH
chmod +x model.sh
expect_exit 1 "$KP" optimize "$TASK" --llm "exec:$PWD/model.sh" --evaluator "$FAKE" --cost 1 --name nc
contains err "a cost limit needs a price"
contains err '"price"'
[ ! -d kernelpro-runs/nc ] || fail "a refused run was left behind"
# Replays cost nothing: a cost budget is accepted (the evaluations end this one).
expect_exit 0 optimize --cost 1 --evals 2 --name rc
[ "$(json kernelpro-runs/rc/summary.json 'd["end_reason"]')" = "budget: evaluations" ] || fail "wrong end"

# The LLM options carry no second set of limits.
expect_exit 2 "$KP" ask --reference "$TASK/reference.cu" --dry-run --max-cost 1
expect_exit 2 "$KP" ask --reference "$TASK/reference.cu" --dry-run --max-total-tokens 10
exit 0

#!/bin/sh
# Every ncu metric name is written once, in include/kernelpro/ncu_metrics.h: no two macros name the
# same metric, and no other C file of lib/ or src/ spells one out as a string literal.
. "$KP_ROOT/tests/integration/lib.sh"
python3 - "$KP_ROOT" <<'PY' || fail "ncu metric names are written outside include/kernelpro/ncu_metrics.h or twice"
import glob, os, re, sys
root = sys.argv[1]
hdr = open(os.path.join(root, "include/kernelpro/ncu_metrics.h")).read()
fam, names = {}, {}
for m in re.finditer(r'^#define (KP__M_\w+)\((\w+)\)\s+((?:"[^"]*"|\w+| )+)$', hdr, re.M):
    fam[m.group(1)] = (m.group(2), m.group(3))
for m in re.finditer(r'^#define (KP_M_\w+)\s+(.+?)\s*(?:/\*.*)?$', hdr, re.M):
    ident, body = m.group(1), m.group(2)
    call = re.match(r'(KP__M_\w+)\("([^"]*)"\)$', body)
    if call:
        arg, tmpl = fam[call.group(1)]
        body = tmpl.replace(arg, '"%s"' % call.group(2))
    if not body.startswith('"'):
        continue  # a macro that is not a name
    names[ident] = "".join(re.findall(r'"([^"]*)"', body))
bad = 0
seen = {}
for ident, name in names.items():
    if name in seen:
        print("%s and %s both name %s" % (seen[name], ident, name)); bad = 1
    seen[name] = ident
assert len(names) > 100, len(names)
lit = re.compile(r'"([a-z0-9]+__[A-Za-z0-9_.]+)"')
for path in glob.glob(os.path.join(root, "lib/*/*.[ch]")) + glob.glob(os.path.join(root, "src/*.[ch]")):
    for i, line in enumerate(open(path), 1):
        s = line.split("/*")[0].split("//")[0]
        for m in lit.finditer(s):
            print("%s:%d: %s: use its KP_M_ name from kernelpro/ncu_metrics.h" % (os.path.relpath(path, root), i, m.group(1)))
            bad = 1
        for name, ident in seen.items():
            if '"%s"' % name in s:
                print("%s:%d: %s is %s" % (os.path.relpath(path, root), i, name, ident)); bad = 1
sys.exit(bad)
PY
echo ok

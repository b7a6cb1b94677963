"""What a KernelBench candidate's ModelNew executes, read with Python's own parser (ast): the static
checks' facts about Python code (lib/eval/static.c asks for them through harness/kp_pystatic.py; the
adapter asks whether forward() builds an extension lazily). Pure Python, no torch, nothing executed.

A check must rest on what runs, not on what the file merely contains: models copy the whole task file
(get_inputs, get_init_inputs, sometimes Model itself), keep the reference's modules to hold weights
(nn.Sequential of nn.Linear and nn.ReLU() never called), and leave autograd backward() methods that
forward never runs. So the facts are about code reached from ModelNew.forward (methods through self
and super(), functions and classes of the file, modules assigned in __init__ when they are called,
an autograd Function's forward through .apply), plus, for reads_reference, every method of ModelNew
and imports of the task's names.

analyze(task_src, cand_src) returns a dict (docs/internals/eval.md, "Static checks"):
  "ok"            False when the candidate does not parse ("error" says why: the import will fail)
  "ref_ops"       [[name, line], ...] calls and operators reached from the task's Model.forward
  "cand_ops"      the same for ModelNew.forward
  "reads_reference" [{"line", "what", "text"}] calls of get_inputs/get_init_inputs
  "fallback"      [{"line", "what", "text"}] ModelNew running the reference Model's forward
  "lazy_build"    [{"line", "what", "text"}] load_inline/load/load_cuda reached from forward
  "defines_model_new" whether the import can bind ModelNew at all (False: it fails with no ModelNew)
Names are raw (the last name of a call chain, the module class a called attribute holds, an
operator's name: add sub mul div matmul pow); static.c canonicalizes them with its table.
"""

import ast
import warnings

INPUT_FUNCS = ("get_inputs", "get_init_inputs")
BUILD_FUNCS = ("load_inline", "load", "load_cuda")
BUILD_MODULES = ("cpp_extension", "fast", "kernelpro")
OPERATORS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.MatMult: "matmul",
             ast.Pow: "pow"}
# Calls whose result is a size or a count: arithmetic on them is shape arithmetic, not a tensor op.
SHAPE_CALLS = frozenset(("size", "numel", "dim", "len", "int", "stride", "element_size", "ceil", "floor",
                         "cdiv", "next_power_of_2", "min", "max", "prod", "math"))
SHAPE_ATTRS = frozenset(("shape", "ndim"))
MAX_TEXT = 60
# Python's own functions: in a candidate's forward they compute sizes (min(256, n)), not tensors.
BUILTINS = frozenset(("min", "max", "sum", "abs", "pow", "round", "len", "range", "int", "float", "divmod"))


def _chain(node):
    """The dotted names of an attribute chain, outermost last: a.b.c -> ["a", "b", "c"]; [] otherwise
    (a call or subscript in the middle ends the chain: its last name is still the attribute's)."""
    out = []
    while isinstance(node, ast.Attribute):
        out.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        out.append(node.id)
        return list(reversed(out))
    out.append(None)
    return list(reversed(out))


def _text(src_lines, node):
    line = src_lines[node.lineno - 1] if 0 < getattr(node, "lineno", 0) <= len(src_lines) else ""
    return " ".join(line.split())[:MAX_TEXT]


def _is_main_guard(node):
    """`if __name__ == "__main__":` (either order)."""
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    parts = [node.test.left] + list(node.test.comparators)
    names = [p for p in parts if isinstance(p, ast.Name) and p.id == "__name__"]
    consts = [p for p in parts if isinstance(p, ast.Constant) and p.value == "__main__"]
    return bool(names and consts)


def _decorated_kernel(fn):
    """A @triton.jit / @triton.autotune / @jit function: a kernel, not host code."""
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        ch = _chain(target)
        if "triton" in ch or ch in (["jit"], ["autotune"], ["heuristics"]):
            return True
    return False


def _builds(value):
    """Whether an expression is a call that builds an extension (load_inline, cpp_extension.load,
    load_cuda)."""
    if not isinstance(value, ast.Call):
        return False
    ch = _chain(value.func)
    return bool(ch) and ch[-1] in BUILD_FUNCS and (ch[-1] != "load" or len(ch) == 1 or
                                                   any(m in ch for m in BUILD_MODULES))


class _Module:
    """One source file: its classes, functions and what each class assigns to self in __init__."""

    def __init__(self, src):
        self.src = src
        self.lines = src.splitlines()
        with warnings.catch_warnings():  # "invalid escape sequence" and the like: not ours to print
            warnings.simplefilter("ignore")
            self.tree = ast.parse(src)
        self.classes = {}
        self.funcs = {}
        for node in self.tree.body:
            if isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.funcs[node.name] = node
        # Names bound to a built extension (`ext = load_inline(...)`, also self.ext = ...): calling into
        # one runs the candidate's own code, whatever its functions are called.
        self.ext_names = set()
        assigns = [n for n in ast.walk(self.tree) if isinstance(n, ast.Assign)]
        for node in assigns:
            if _builds(node.value):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.ext_names.add(t.id)
                    elif isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        self.ext_names.add("self." + t.attr)
        for node in assigns:  # self.pool = pool_ext (a module-level extension kept as an attribute)
            if isinstance(node.value, ast.Name) and node.value.id in self.ext_names:
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        self.ext_names.add("self." + t.attr)

    def bases(self, cls):
        out = []
        for b in cls.bases:
            ch = _chain(b)
            if ch and ch[-1] in self.classes and ch[-1] != cls.name:
                out.append(self.classes[ch[-1]])
        return out

    def method(self, cls, name, seen=None):
        """(defining class, function) for cls.name along the file's bases, or (None, None)."""
        seen = seen or set()
        if cls.name in seen:
            return None, None
        seen.add(cls.name)
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return cls, node
        for b in self.bases(cls):
            c, f = self.method(b, name, seen)
            if f is not None:
                return c, f
        return None, None

    def attrs(self, cls, seen=None):
        """{attr: [value expressions]} of `self.attr = value` anywhere in the class's methods (and its
        bases'): what calling self.attr may run."""
        seen = seen or set()
        if cls.name in seen:
            return {}
        seen.add(cls.name)
        out = {}
        for b in self.bases(cls):
            for k, v in self.attrs(b, seen).items():
                out.setdefault(k, []).extend(v)
        for node in ast.walk(cls):
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    out.setdefault(t.attr, []).append(value)
        # setattr(self, "name", value) / self.add_module("name", value)
        for node in ast.walk(cls):
            if isinstance(node, ast.Call) and len(node.args) >= 2 and isinstance(node.args[0], ast.Constant):
                ch = _chain(node.func)
                if ch and ch[-1] == "add_module":
                    out.setdefault(str(node.args[0].value), []).append(node.args[1])
        return out


class _Reach:
    """Walks the code one entry point reaches, collecting calls and operators."""

    def __init__(self, mod, cls, count_shape_ops):
        self.mod = mod
        self.cls = cls
        self.count_shape_ops = count_shape_ops  # the reference's arithmetic all counts
        self._attrs = {}  # class name -> its attrs(), computed when first needed
        self.ops = []
        self.calls = []  # (node, chain) of every call reached
        self.done = set()
        self.work = []
        self.owner = {}  # id(function) -> the class whose method it is (self's class there)
        self.via = {}  # id(function) -> the call (or definition) it was reached from
        self.reached = []  # (function, owner) in the order reached
        self.site = None  # the call being visited
        self.task_models = []  # calls that run a Model this file does not define

    def add_function(self, fn, owner=None, via=None):
        if id(fn) in self.done or _decorated_kernel(fn):
            return
        self.done.add(id(fn))
        self.owner[id(fn)] = owner
        self.via[id(fn)] = via if via is not None else self.site
        self.reached.append((fn, owner))
        self.work.append(fn)

    def add_class_forward(self, cls):
        """A file-defined class called or constructed in reached code: its forward (an nn.Module) runs."""
        for name in ("forward", "__call__"):
            c, f = self.mod.method(cls, name)
            if f is not None:
                self.add_function(f, c)

    def add_value(self, value, seen, cls):
        """What calling a value assigned to self.attr runs: the module classes its expression constructs
        (nn.Sequential(nn.Linear(...), nn.ReLU()) runs linear and relu), a file-defined module's
        forward, or another self attribute."""
        for node in ast.walk(value):
            if isinstance(node, ast.Call):
                ch = _chain(node.func)
                last = ch[-1] if ch else None
                if last in self.mod.classes:
                    self.add_class_forward(self.mod.classes[last])
                elif last == "Model":  # the task's Model, reached some other way (an import)
                    self.task_models.append(self.site if self.site is not None else node)
                elif last and last not in ("Parameter", "ParameterList", "ParameterDict", "Buffer", "tensor",
                                           "empty", "zeros", "ones", "randn", "rand"):
                    self.ops.append([last, node.lineno])
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                self.add_attr(node.attr, seen, cls)
            elif isinstance(node, ast.Name) and node.id in self.mod.funcs:
                self.add_function(self.mod.funcs[node.id])

    def attrs_of(self, cls):
        if cls is None:
            return {}
        if cls.name not in self._attrs:
            self._attrs[cls.name] = self.mod.attrs(cls)
        return self._attrs[cls.name]

    def add_attr(self, attr, seen=None, cls=None):
        """What calling self.attr runs, self being a `cls` (the entry class by default)."""
        cls = cls or self.cls
        seen = seen if seen is not None else set()
        if attr in seen:
            return
        seen.add(attr)
        for value in self.attrs_of(cls).get(attr, []):
            self.add_value(value, seen, cls)

    def run(self):
        while self.work:
            fn = self.work.pop()
            self.visit_function(fn, self.owner.get(id(fn)))
        return self

    def shape_names(self, fn):
        """Local names bound to sizes in fn: `n = x.numel()`, `B, C, H, W = x.shape`, loop counters."""
        names = set()
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and self.is_shape(node.value, names):
                for t in node.targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            names.add(n.id)
            elif isinstance(node, ast.For) and isinstance(node.iter, ast.Call):
                ch = _chain(node.iter.func)
                if ch and ch[-1] == "range":
                    for n in ast.walk(node.target):
                        if isinstance(n, ast.Name):
                            names.add(n.id)
        return names

    def is_shape(self, node, names):
        if isinstance(node, ast.Constant):
            return isinstance(node.value, int) and not isinstance(node.value, bool)
        if isinstance(node, ast.Name):
            return node.id in names
        if isinstance(node, ast.Attribute):
            return node.attr in SHAPE_ATTRS
        if isinstance(node, ast.Subscript):
            return self.is_shape(node.value, names)
        if isinstance(node, ast.Call):
            ch = _chain(node.func)
            return bool(ch) and (ch[-1] in SHAPE_CALLS or ch[0] == "math")
        if isinstance(node, ast.BinOp):
            return self.is_shape(node.left, names) and self.is_shape(node.right, names) or \
                isinstance(node.op, (ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift))
        if isinstance(node, ast.UnaryOp):
            return self.is_shape(node.operand, names)
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(self.is_shape(e, names) for e in node.elts)
        return False

    def loop_attrs(self, fn):
        """{name: attr} for `for name in self.attr` (and enumerate/zip/reversed of it, .children())."""
        out = {}
        for node in ast.walk(fn):
            if not isinstance(node, (ast.For, ast.comprehension)):
                continue
            for sub in ast.walk(node.iter):
                if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self":
                    for n in ast.walk(node.target):
                        if isinstance(n, ast.Name):
                            out[n.id] = sub.attr
        return out

    def visit_function(self, fn, owner):
        shape = self.shape_names(fn) if not self.count_shape_ops else set()
        loops = self.loop_attrs(fn)
        dead = _cpu_only(fn)
        for node in ast.walk(fn):
            if id(node) in dead:
                continue
            if isinstance(node, (ast.BinOp, ast.AugAssign)):
                op = OPERATORS.get(type(node.op))
                if op is None:
                    continue
                left = node.left if isinstance(node, ast.BinOp) else node.target
                right = node.right if isinstance(node, ast.BinOp) else node.value
                if self.count_shape_ops or not (self.is_shape(left, shape) or self.is_shape(right, shape)):
                    self.ops.append([op, node.lineno])
            elif isinstance(node, ast.Call):
                self.visit_call(node, owner, loops)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and node is not fn:
                pass  # nested bodies are walked with fn (ast.walk descends): they run when called

    def visit_call(self, node, owner, loops):
        self.site = node
        f = node.func
        ch = _chain(f)
        self.calls.append((node, ch))
        last = ch[-1] if ch else None
        # self.method(...) / self.attr(...) / self.attr[i](...)
        base = f.value if isinstance(f, ast.Subscript) else f
        if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id == "self" and \
                self.cls is not None:
            c, m = self.mod.method(owner or self.cls, base.attr)
            if m is not None and not isinstance(f, ast.Subscript):
                self.add_function(m, c)
            else:
                self.add_attr(base.attr, cls=owner)
            return
        # super().forward(...) / Base.forward(self, ...)
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Call) and _chain(f.value.func)[-1:] == ["super"]:
            start = owner or self.cls
            for b in (self.mod.bases(start) if start is not None else []):
                c, m = self.mod.method(b, f.attr)
                if m is not None:
                    self.add_function(m, c)
                    break
            return
        if isinstance(f, ast.Name) and f.id in loops:
            self.add_attr(loops[f.id], cls=owner)
            return
        if len(ch) >= 2 and ch[0] in self.mod.classes:
            cls = self.mod.classes[ch[0]]
            name = "forward" if ch[-1] == "apply" else ch[-1]  # an autograd Function runs forward only
            c, m = self.mod.method(cls, name)
            if m is not None:
                self.add_function(m, c)
                return
        if isinstance(f, ast.Name) and f.id in self.mod.funcs:
            self.add_function(self.mod.funcs[f.id])
            return
        if isinstance(f, ast.Name) and f.id in self.mod.classes:
            self.add_class_forward(self.mod.classes[f.id])
            return
        if isinstance(f, ast.Name) and f.id == "Model":
            self.task_models.append(node)
        root = ch[0] if ch else None
        if root in self.mod.ext_names or (root == "self" and len(ch) > 2 and "self." + ch[1] in self.mod.ext_names):
            return  # into the candidate's own extension
        if last and not (not self.count_shape_ops and isinstance(f, ast.Name) and last in BUILTINS):
            self.ops.append([last, node.lineno])


def _device_test(test):
    """What an `if` on the input's device means: "cuda" (true on a CUDA tensor), "cpu" (true on a CPU
    one), or None. `x.is_cuda`, `x.is_cpu`, `x.device.type == "cuda"` (or != / "cpu"), with `not`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _device_test(test.operand)
        return {"cuda": "cpu", "cpu": "cuda"}.get(inner) if inner else None
    if isinstance(test, ast.Attribute) and test.attr in ("is_cuda", "is_cpu"):
        return "cuda" if test.attr == "is_cuda" else "cpu"
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
        sides = [test.left, test.comparators[0]]
        dev = [x for x in sides if isinstance(x, ast.Attribute) and x.attr == "type"
               and isinstance(x.value, ast.Attribute) and x.value.attr == "device"]
        lit = [x.value for x in sides if isinstance(x, ast.Constant) and x.value in ("cuda", "cpu")]
        if dev and lit:
            true_on = lit[0] if isinstance(test.ops[0], ast.Eq) else {"cuda": "cpu", "cpu": "cuda"}[lit[0]]
            return true_on
    return None


def _cpu_only(fn):
    """Ids of the nodes in fn that only a CPU input runs: the branch of an `if` (or `a if c else b`) on
    the input's device that a CUDA tensor does not take. The harness gives ModelNew CUDA tensors only,
    so a `torch.op(x)` kept for CPU inputs is not what forward runs (KernelBench answers often have
    `if x.is_cuda: return ext.f(x) else: return torch.op(x)`)."""
    dead = set()
    for node in ast.walk(fn):
        if not isinstance(node, (ast.If, ast.IfExp)):
            continue
        t = _device_test(node.test)
        if t is None:
            continue
        branch = node.orelse if t == "cuda" else node.body
        for sub in (branch if isinstance(branch, list) else [branch]):
            dead.update(id(n) for n in ast.walk(sub))
    return dead


def _entry(mod, name):
    cls = mod.classes.get(name)
    if cls is None:
        return None, None, None
    c, f = mod.method(cls, "forward")
    return cls, c, f


def _reach(mod, class_name, count_shape_ops):
    cls, owner, fwd = _entry(mod, class_name)
    r = _Reach(mod, cls, count_shape_ops)
    if fwd is not None:
        r.add_function(fwd, owner)
    return r.run()


def _module_level(mod):
    """Statements the import runs: module level, class bodies, outside `if __name__ == "__main__"`
    (function bodies run only when called)."""
    out = []
    stack = list(mod.tree.body)
    while stack:
        node = stack.pop()
        if _is_main_guard(node) or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.ClassDef):
            stack.extend(node.body)
            continue
        out.append(node)
    return out


def _evidence(mod, node, what):
    return {"line": node.lineno, "what": what, "text": _text(mod.lines, node)}


def _reads_reference(mod, reach):
    """Calls of the input generator (the task's, or a copy in the file) from code ModelNew runs: what
    forward reaches and every method of ModelNew (its __init__ too: the harness has seeded the
    generators by then), and imports of the task's names anywhere. A copy run at import (a model's
    test block without a __main__ guard) is not ModelNew's: it draws from a generator nobody seeded."""
    found, seen = [], set()
    cls = mod.classes.get("ModelNew")
    extra = _Reach(mod, cls, True)
    if cls is not None:
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                extra.add_function(node, cls)
    extra.run()
    for n in ast.walk(mod.tree):
        if isinstance(n, ast.ImportFrom):
            for a in n.names:
                if a.name in INPUT_FUNCS + ("Model",):
                    found.append(_evidence(mod, n, "imports the task's %s" % a.name))
    for n in [c for c, _ in reach.calls] + [c for c, _ in extra.calls]:
        if id(n) in seen:
            continue
        seen.add(id(n))
        ch = _chain(n.func)
        if ch and ch[-1] in INPUT_FUNCS:
            found.append(_evidence(mod, n, "calls the task's input generator %s()" % ch[-1]))
    found.sort(key=lambda e: e["line"])
    return found


def _fallback(mod, reach):
    """ModelNew running the reference Model's forward: inherited (no forward of its own), through
    super() or Model.forward, or through an instance of Model it calls. Model need not be in the file
    (a base named Model is the task's)."""
    found = [_evidence(mod, n, "runs the reference Model's forward") for n in reach.task_models]
    cls = mod.classes.get("ModelNew")
    if cls is not None and "Model" not in mod.classes and any(_chain(b)[-1:] == ["Model"] for b in cls.bases):
        if mod.method(cls, "forward")[1] is None:
            found.append(_evidence(mod, cls, "ModelNew inherits the reference Model's forward"))
        for n, ch in reach.calls:
            f = n.func
            if ch and ch[-1] == "forward" and isinstance(f, ast.Attribute) and (
                    (isinstance(f.value, ast.Call) and _chain(f.value.func)[-1:] == ["super"]) or ch[:1] == ["Model"]):
                found.append(_evidence(mod, n, "runs the reference Model's forward"))
    for fn, owner in reach.reached:
        if owner is not None and owner.name == "Model" and fn.name in ("forward", "__call__"):
            via = reach.via.get(id(fn))
            if via is None:
                found.append(_evidence(mod, mod.classes.get("ModelNew", fn),
                                       "ModelNew inherits the reference Model's forward"))
            else:
                found.append(_evidence(mod, via, "runs the reference Model's forward"))
    return found


def _lazy_build(mod, reach):
    found = []
    for n, ch in reach.calls:
        if _builds(n):
            found.append(_evidence(mod, n, "builds an extension (%s) when forward runs" % ch[-1]))
    return found


def analyze(task_src, cand_src):
    try:
        cand = _Module(cand_src)
    except (SyntaxError, ValueError) as e:
        return {"ok": False, "error": "the candidate does not parse: %s" % e}
    try:
        task = _Module(task_src)
        ref = _reach(task, "Model", True)
        ref_ops = ref.ops
    except (SyntaxError, ValueError):
        ref_ops = []
    reach = _reach(cand, "ModelNew", False)
    return {"ok": True, "ref_ops": sorted(ref_ops, key=lambda o: o[1]),
            "cand_ops": sorted(reach.ops, key=lambda o: o[1]),
            "reads_reference": _reads_reference(cand, reach), "fallback": _fallback(cand, reach),
            "lazy_build": _lazy_build(cand, reach),
            "defines_model_new": _defines(cand, "ModelNew")}


def _defines(mod, name):
    """Whether the import can bind `name` at module level: a class or function of that name, an
    assignment or import to it, or anything that binds names out of sight (globals(), exec, a star
    import)."""
    if name in mod.classes or name in mod.funcs:
        return True
    for n in ast.walk(mod.tree):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store):
            return True
        if isinstance(n, (ast.Import, ast.ImportFrom)) and any(a.name == "*" or (a.asname or a.name) == name
                                                                for a in n.names):
            return True
        if isinstance(n, ast.Call) and _chain(n.func)[-1:] in (["globals"], ["exec"], ["setattr"], ["vars"]):
            return True
    return False


def lazy_build(cand_src):
    """Whether ModelNew.forward reaches an extension build (the adapter calls it once before the lock)."""
    try:
        mod = _Module(cand_src)
    except (SyntaxError, ValueError):
        return []
    return _lazy_build(mod, _reach(mod, "ModelNew", False))

"""nvcc with its host and device halves side by side: the same commands nvcc runs, in two chains.

For `nvcc ... -c X.cu -o X.o`, nvcc runs a chain (`nvcc --dryrun` prints it): the host preprocessing
and cudafe++ (the host half), the device preprocessing, cicc, ptxas and fatbinary (the device half),
then the host compiler on cudafe++'s output, which includes the fatbinary. Only one thing links the
halves before that last step: cudafe++ writes the module id that cicc reads. On a load_inline build
each half parses torch's headers, so running them one after the other makes nvcc's step the build's
critical path. run() takes nvcc's own command list and runs the halves at once, then the last step:

  the commands    nvcc's, argument for argument, from `nvcc --dryrun` with the same arguments and a
                  private TMPDIR; two changes only: every cicc makes the module id itself
                  (`--gen_module_id_file`, into a file of its own) instead of reading cudafe++'s, and
                  the dependency file ninja asks for comes from the host preprocessing (`-MD`) instead
                  of nvcc's internal step
  the check       each cicc's module id must equal cudafe++'s, byte for byte, or nothing it built is
                  used; the ids are nvcc's own (derived from the file, not chosen here)
  any doubt       a command list of another shape, an option this does not know, a failed step, a
                  module id that differs: nvcc itself runs with the original arguments (exec), so its
                  output, messages and exit status are exactly nvcc's

torch's cpp_extension runs `$PYTORCH_NVCC` in place of nvcc when that is set (inline_cache.install
sets it to harness/kp_nvcc.py; KERNELPRO_INLINE_NVCC=0, or a PYTORCH_NVCC of the user's, leaves nvcc
alone). KERNELPRO_REAL_NVCC names the real nvcc. KERNELPRO_NVCC_NOTES, when set, is a file to which
each call appends one JSON line saying what it did, for the verdict's build_note.

Pure Python, no torch; parse() is a pure function of nvcc's dry-run text (golden tests and a fuzz
loop in tests/python/test_nvcc_par.py).
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

# Programs nvcc's chain may hold besides the host compiler: anything else is another shape.
DEVICE_TOOLS = ("cicc", "ptxas", "fatbinary", "nvlink")
# Options that make nvcc do something else than one compile to one object (or that this cannot see
# through): left to nvcc.
OTHER_MODES = frozenset((
    "-E", "--preprocess", "-dryrun", "--dryrun", "-keep", "--keep", "-keep-dir", "--keep-dir", "-rdc",
    "--relocatable-device-code", "-dc", "--device-c", "-dw", "--device-w", "-lib", "--lib", "-link", "--link",
    "-ptx", "--ptx", "-cubin", "--cubin", "-fatbin", "--fatbin", "-cuda", "--cuda", "-time", "--time", "-run",
    "--run", "-x", "--x", "-optf", "--options-file", "-save-temps", "--save-temps", "-lto", "-dlto",
    "--dlink-time-opt", "-V", "--version", "-h", "--help", "-dlink", "--device-link", "-fdevice-time-trace",
    "--fdevice-time-trace", "-odir", "--output-directory"))
OTHER_MODE_PREFIXES = ("-M", "--generate-dependencies", "--generate-nonsystem-dependencies", "--dependency-",
                       "-arch=native", "--list-gpu")
ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
SAFE_VALUE = re.compile(r"^[A-Za-z0-9_./:+=,@%-]*$")


class Shape(Exception):
    """nvcc's command list is not one this knows how to split: nvcc runs as is."""


def split_args(args):
    """(args for the dry run, dependency file or None, output) for a single-file compile, or raises
    Shape. Only the dependency options torch's ninja rule uses are taken out (`-MD -MF FILE`, or in
    older torch `--generate-dependencies-with-compile --dependency-output FILE`); any other
    dependency, preprocessing-only, multi-file or link mode is left to nvcc."""
    out, dep, kept, inputs, compile_only, gendeps = None, None, [], [], False, False
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-MD", "--generate-dependencies-with-compile"):
            gendeps = True
            i += 1
            continue
        if a in ("-MF", "--dependency-output") and i + 1 < len(args):
            dep = args[i + 1]
            i += 2
            continue
        if a in ("-c", "--compile"):
            compile_only = True
        elif a in ("-o", "--output-file") and i + 1 < len(args):
            out = args[i + 1]
            kept += [a, out]
            i += 2
            continue
        elif a.startswith(OTHER_MODE_PREFIXES) or a.split("=")[0] in OTHER_MODES:
            raise Shape("nvcc option %s" % a)
        elif a.endswith(".cu") and not a.startswith("-"):
            inputs.append(a)
        kept.append(a)
        i += 1
    if not compile_only or out is None or len(inputs) != 1:
        raise Shape("not a compile of one .cu file with -c and -o")
    if gendeps != (dep is not None):
        raise Shape("a dependency file asked for without -MD and -MF together")
    return kept, dep, out


def _expand(text, env):
    def one(m):
        name = m.group(1) or m.group(2)
        value = env.get(name, "")
        if not SAFE_VALUE.match(value):
            raise Shape("variable %s holds characters that would need quoting" % name)
        return value

    return VAR.sub(one, text)


def parse(dryrun, out):
    """nvcc's dry-run text (its stderr) into {"env": {...}, "host": [argv, argv], "device": [argv...],
    "final": argv, "module_id": path, "cicc_ids": [path...]} with the changes the module's docstring
    names already made; raises Shape for anything else."""
    env, cmds = {}, []
    for line in dryrun.splitlines():
        if not line.startswith("#$ "):
            if line.strip():
                raise Shape("a line of nvcc's dry run that is not a step: %r" % line[:80])
            continue
        line = line[3:].rstrip()
        m = ASSIGN.match(line)
        if m:
            try:
                value = shlex.split(m.group(2))
            except ValueError as e:
                raise Shape("an assignment nvcc printed: %s" % e) from None
            if len(value) <= 1:  # the multi-word ones (INCLUDES, LIBRARIES) are already in the commands
                env[m.group(1)] = _expand(value[0] if value else "", env)
            continue
        if line.startswith("--"):
            raise Shape("an internal step of nvcc: %r" % line[:60])
        try:
            cmds.append(shlex.split(_expand(line, env)))
        except ValueError as e:
            raise Shape("a command nvcc printed: %s" % e) from None
    cmds = [c for c in cmds if c]
    fe = [i for i, c in enumerate(cmds) if os.path.basename(c[0]) == "cudafe++"]
    if len(fe) != 1 or len(cmds) < 4:
        raise Shape("%d cudafe++ steps in %d" % (len(fe), len(cmds)))
    cudafe = cmds[fe[0]]
    final = cmds[-1]
    cxx = final[0]
    if "-c" not in final or _opt(final, "-o") != out or fe[0] == len(cmds) - 1:
        raise Shape("the last step is not the host compile of %s" % out)
    if "--gen_module_id_file" not in cudafe:
        raise Shape("cudafe++ does not make the module id")
    module_id = _opt(cudafe, "--module_id_file_name")
    fe_in = cudafe[-1]
    fe_out = {_opt(cudafe, "--gen_c_file_name"), _opt(cudafe, "--stub_file_name")}
    pre = [i for i, c in enumerate(cmds) if _opt(c, "-o") == fe_in]
    if module_id is None or None in fe_out or len(pre) != 1 or pre[0] > fe[0] or cmds[pre[0]][0] != cxx \
            or "-E" not in cmds[pre[0]]:
        raise Shape("cudafe++'s input, outputs or module id are not where nvcc puts them")
    host = [cmds[pre[0]], cudafe]
    device, cicc_ids = [], []
    for i, c in enumerate(cmds[:-1]):
        if i in (pre[0], fe[0]):
            continue
        tool = os.path.basename(c[0])
        if c[0] == "rm" and len(c) == 2:
            device.append(c)
            continue
        if c[0] == cxx:
            if "-E" not in c:
                raise Shape("a host compiler step of the device half that does not preprocess")
        elif tool not in DEVICE_TOOLS:
            raise Shape("a step nvcc runs with %s" % tool)
        if any(a == fe_in or a in fe_out or fe_in in a for a in c):
            raise Shape("a device step reads what the host half makes")
        if tool == "cicc":
            if "--gen_module_id_file" in c or _opt(c, "--module_id_file_name") != module_id:
                raise Shape("cicc does not read cudafe++'s module id")
            k = c.index("--module_id_file_name")
            own = "%s.cicc%d" % (module_id, len(cicc_ids))
            c = c[:k] + ["--gen_module_id_file", "--module_id_file_name", own] + c[k + 2:]
            cicc_ids.append(own)
        device.append(c)
    if not cicc_ids:
        raise Shape("no cicc step")
    return {"env": env, "host": host, "device": device, "final": final, "module_id": module_id,
            "cicc_ids": cicc_ids}


def _opt(argv, name):
    """The value after option name in argv (as `name value` or `name=value`), or None."""
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return None


def with_depfile(plan, dep, out):
    """The dependency file from the host preprocessing: gcc's -MD beside -E writes what nvcc's own
    step would list (the sources and headers the compile read), for ninja's rebuilds only."""
    if dep is not None:
        plan["host"][0] = plan["host"][0][:1] + ["-MD", "-MF", dep, "-MT", out] + plan["host"][0][1:]
    return plan


class _Chain(threading.Thread):
    def __init__(self, cmds, env, procs):
        super().__init__(daemon=True)
        self.cmds, self.env, self.procs = cmds, env, procs
        self.output, self.failed, self.seconds = [], None, 0.0

    def run(self):
        t0 = time.monotonic()
        try:
            self._run()
        finally:
            self.seconds = time.monotonic() - t0

    def _run(self):
        for c in self.cmds:
            if c[0] == "rm":
                try:
                    os.remove(c[1])
                except FileNotFoundError:
                    pass
                continue
            try:
                p = subprocess.Popen(c, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            except OSError as e:
                self.failed = "%s: %s" % (c[0], e)
                return
            self.procs.append(p)
            text, _ = p.communicate()
            self.output.append(text)
            if p.returncode != 0:
                self.failed = "%s exited %d" % (os.path.basename(c[0]), p.returncode)
                return


def execute(plan, base_env):
    """Runs the two halves at once, then the host compile. Returns (None, output, seconds) on success,
    seconds = {"host": ..., "device": ..., "final": ...}, else (why, None, None); on a failure the other
    half's running step is killed."""
    env = dict(base_env)
    env.update(plan["env"])
    procs = []
    host, device = _Chain(plan["host"], env, procs), _Chain(plan["device"], env, procs)
    host.start()
    device.start()
    while host.is_alive() or device.is_alive():
        if host.failed or device.failed:
            for p in list(procs):
                if p.poll() is None:
                    p.kill()
        time.sleep(0.02)
    why = host.failed or device.failed
    if why:
        return why, None, None
    with open(plan["module_id"], "rb") as f:
        ident = f.read()
    for own in plan["cicc_ids"]:
        with open(own, "rb") as f:
            if f.read() != ident:
                return "cicc's module id differs from cudafe++'s", None, None
    final = _Chain([plan["final"]], env, procs)
    final.run()
    if final.failed:
        return final.failed, None, None
    seconds = {"host": round(host.seconds, 3), "device": round(device.seconds, 3), "final": round(final.seconds, 3)}
    return None, b"".join(host.output + device.output + final.output), seconds


def _note(record):
    path = os.environ.get("KERNELPRO_NVCC_NOTES")
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
    except OSError:
        pass


def main(args, real=None):
    """kp_nvcc.py's body: the two halves at once where the chain allows it, else exec real nvcc."""
    real = real or os.environ.get("KERNELPRO_REAL_NVCC") or shutil.which("nvcc")
    if not real:
        sys.stderr.write("kp_nvcc: KERNELPRO_REAL_NVCC is not set and no nvcc is on PATH\n")
        return 127
    t0 = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="kp-nvcc-")
    why = None
    try:
        try:
            kept, dep, out = split_args(args)
            env = dict(os.environ, TMPDIR=tmp)
            r = subprocess.run([real, "--dryrun"] + kept, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                raise Shape("nvcc --dryrun exited %d" % r.returncode)
            plan = with_depfile(parse(r.stderr, out), dep, out)
        except Shape as e:
            why = str(e)
        else:
            why, output, seconds = execute(plan, env)
            if why is None:
                sys.stdout.flush()
                os.write(2, output)
                _note(dict({"out": out, "mode": "halves", "s": round(time.monotonic() - t0, 3)}, **seconds))
                return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _note({"out": args[args.index("-o") + 1] if "-o" in args[:-1] else None, "mode": "nvcc", "why": why})
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(real, [real] + list(args))
    return 127  # not reached

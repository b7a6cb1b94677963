"""kernelpro.nvcc_par: nvcc's own steps with the host and device halves side by side.

Golden dry runs of nvcc 13.0 (tests/python/data/nvcc13-dryrun-*.txt: `nvcc --dryrun` on a file of
ours with torch's load_inline flags, with and without ninja's dependency options) split into the two
halves and the last step; every other shape is refused (nvcc then runs as is); a fuzz loop over the
dry-run text raises nothing but Shape. kp_nvcc.py end to end with stand-in tools (any machine): the
halves used, and nvcc itself exec'd when a step fails, when the module ids differ or for another mode.
With a real nvcc: the same object as nvcc's (up to the temporary file's name, which differs between
two runs of nvcc too), and a compile error reported exactly as nvcc reports it."""

import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "harness"))

from kernelpro import nvcc_par  # noqa: E402

sys.path.insert(0, HERE)
from mutate import mutate  # noqa: E402

KP_NVCC = os.path.join(ROOT, "harness", "kp_nvcc.py")
GOLDEN_DIR = "/tmp/kp-nvcc-golden"  # the TMPDIR the golden dry runs were made with


def golden(name):
    with open(os.path.join(HERE, "data", "nvcc13-dryrun-%s.txt" % name)) as f:
        return f.read()


class ArgsTest(unittest.TestCase):
    def test_torch_rule(self):
        kept, dep, out = nvcc_par.split_args(
            ["--generate-dependencies-with-compile", "--dependency-output", "cuda.cuda.o.d", "-DX=1",
             "--generate-line-info", "-c", "cuda.cu", "-o", "cuda.cuda.o", "-O3"])
        self.assertEqual(kept, ["-DX=1", "--generate-line-info", "-c", "cuda.cu", "-o", "cuda.cuda.o", "-O3"])
        self.assertEqual((dep, out), ("cuda.cuda.o.d", "cuda.cuda.o"))
        # torch 2.11's rule: $nvcc -MD -MF $out.d $cuda_cflags -c $in -o $out $cuda_post_cflags
        kept, dep, out = nvcc_par.split_args(["-MD", "-MF", "x.o.d", "-DX=1", "-c", "x.cu", "-o", "x.o"])
        self.assertEqual((kept, dep, out), (["-DX=1", "-c", "x.cu", "-o", "x.o"], "x.o.d", "x.o"))

    def test_other_modes_left_to_nvcc(self):
        for args in (["-E", "a.cu", "-o", "a.ii"], ["-M", "-c", "a.cu", "-o", "a.o"], ["--version"],
                     ["-c", "a.cu", "b.cu", "-o", "a.o"], ["a.cu", "-o", "a.out"], ["-c", "a.cu"],
                     ["-rdc=true", "-c", "a.cu", "-o", "a.o"], ["-x", "cu", "-c", "a.c", "-o", "a.o"],
                     ["-MD", "-c", "a.cu", "-o", "a.o"], ["--keep", "-c", "a.cu", "-o", "a.o"],
                     ["-MMD", "-MF", "d", "-c", "a.cu", "-o", "a.o"]):
            with self.assertRaises(nvcc_par.Shape, msg=args):
                nvcc_par.split_args(args)


class ParseTest(unittest.TestCase):
    def check_plan(self, p):
        self.assertEqual([os.path.basename(c[0]) for c in p["host"]], ["gcc", "cudafe++"])
        self.assertIn("-E", p["host"][0])
        self.assertEqual([os.path.basename(c[0]) for c in p["device"]], ["gcc", "cicc", "ptxas", "fatbinary", "rm"])
        self.assertEqual(p["final"][-1], "cuda.cuda.o")
        self.assertIn("-c", p["final"])
        cicc = p["device"][1]
        self.assertEqual(cicc.count("--gen_module_id_file"), 1)
        self.assertEqual(p["cicc_ids"], [p["module_id"] + ".cicc0"])
        self.assertEqual(cicc[cicc.index("--module_id_file_name") + 1], p["cicc_ids"][0])
        self.assertTrue(cicc[0].startswith("/usr/local/cuda/bin/../nvvm/bin/"))  # $CICC_PATH expanded
        self.assertEqual(p["env"]["NVVMIR_LIBRARY_DIR"], "/usr/local/cuda/bin/../nvvm/libdevice")
        self.assertNotIn("SYSTEM_INCLUDES", p["env"])  # a multi-word one: already inside the commands
        cudafe = p["host"][1]
        self.assertIn("--gen_module_id_file", cudafe)  # cudafe++ still makes the id, as in nvcc

    def test_golden_plain(self):
        self.check_plan(nvcc_par.parse(golden("plain"), "cuda.cuda.o"))

    def test_golden_deps_options_taken_out(self):
        # With ninja's options nvcc adds an internal step ("-- Filter Dependencies --"): that shape is
        # refused, which is why split_args takes the options out and the host preprocessing writes it.
        with self.assertRaises(nvcc_par.Shape):
            nvcc_par.parse(golden("deps"), "cuda.cuda.o")
        p = nvcc_par.with_depfile(nvcc_par.parse(golden("plain"), "cuda.cuda.o"), "cuda.cuda.o.d", "cuda.cuda.o")
        self.assertEqual(p["host"][0][1:7], ["-MD", "-MF", "cuda.cuda.o.d", "-MT", "cuda.cuda.o", "-std=c++17"])

    def test_wrong_output(self):
        with self.assertRaises(nvcc_par.Shape):
            nvcc_par.parse(golden("plain"), "other.o")

    def test_shapes_refused(self):
        text = golden("plain")
        lines = text.splitlines()
        cicc = next(i for i, line in enumerate(lines) if "cicc" in line)
        fe = next(i for i, line in enumerate(lines) if line.startswith("#$ cudafe++"))
        fe_out = re.search(r'--gen_c_file_name "([^"]+)"', lines[fe]).group(1)
        cases = {
            "another tool": lines[:cicc] + ["#$ nvdisasm x.cubin"] + lines[cicc:],
            "two cudafe++": lines[:fe + 1] + [lines[fe]] + lines[fe + 1:],
            "cicc given the id": [line.replace("--module_id_file_name", "--gen_module_id_file --module_id_file_name")
                                  if "cicc" in line else line for line in lines],
            "no id made by cudafe++": [line.replace("--gen_module_id_file ", "") for line in lines],
            "device reads host output": lines[:cicc] + ["#$ ptxas " + fe_out] + lines[cicc:],
            "a stray line": lines[:3] + ["warning: something"] + lines[3:],
            "an unsafe variable": lines[:cicc] + ["#$ CICC_PATH=/a;rm"] + lines[cicc:],
            "no cicc": [line for line in lines if "cicc" not in line],
        }
        for name, ls in cases.items():
            with self.assertRaises(nvcc_par.Shape, msg=name):
                nvcc_par.parse("\n".join(ls), "cuda.cuda.o")

    def test_fuzz_only_shape(self):
        rng = random.Random(2907)
        lines = golden("plain").splitlines()
        pieces = [["#$ -- x --"], ["#$ cudafe++ a"], ["#$ X=$Y"], ['#$ "unterminated'], ["#$ rm"], [""], ["#$ "],
                  ["#$ cicc --module_id_file_name"], ["#$ gcc -c -o"]]
        ok = 0
        for _ in range(1500):
            text = "\n".join(mutate(rng, lines, pieces, ops=3, cut_len=3, dup_len=3))
            try:
                p = nvcc_par.parse(text, "cuda.cuda.o")
            except nvcc_par.Shape:
                continue
            ok += 1
            self.assertTrue(p["cicc_ids"] and len(p["host"]) == 2 and p["final"][-1] == "cuda.cuda.o")
        self.assertGreater(ok, 0)  # some mutations (duplicated assignments, rm lines) still parse


# Stand-in tools for kp_nvcc.py end to end: each writes the files its real counterpart would.
TOOL = """#!/bin/sh
# stand-in %(name)s: writes what the real one would; FAIL_TOOL=%(name)s makes it fail
echo "%(name)s $*" >> "$KP_TOOL_LOG"
[ "${FAIL_TOOL:-}" = "%(name)s" ] && { echo "%(name)s: error: stand-in failure" >&2; exit 2; }
prev=""; gen=0; idf=""; out=""
for a in "$@"; do
  case "$prev" in
    -o|--gen_c_file_name|--embedded-fatbin) out="$a"; echo x > "$a" ;;
    --stub_file_name) echo stub > "$a" ;;
    --module_id_file_name) idf="$a" ;;
    -MF) echo "dep: x" > "$a" ;;
  esac
  case "$a" in --gen_module_id_file) gen=1 ;; --embedded-fatbin=*) echo fatbin > "${a#*=}" ;; esac
  prev="$a"
done
if [ -n "$idf" ]; then
  if [ $gen = 1 ]; then
    id=_0e13a5ca_4_a_cu__Z1kPf
    [ "%(name)s" = cicc ] && [ -n "${CICC_ID:-}" ] && id=$CICC_ID
    printf %%s "$id" > "$idf"
  else
    [ -s "$idf" ] || { echo "%(name)s: no module id" >&2; exit 3; }
  fi
fi
[ "%(name)s" = gcc ] && [ -n "$out" ] && echo "%(name)s-output" > "$out"
exit 0
"""

NVCC = """#!/bin/sh
# stand-in nvcc: --dryrun prints the golden chain with its tools in $KP_TOOLS; otherwise it is "nvcc
# itself": it says so in the log and writes -o
if [ "$1" = "--dryrun" ]; then
  sed -e "s|%(golden)s|$TMPDIR|g" -e "s|^#\\$ gcc|#\\$ $KP_TOOLS/gcc|" -e "s|^#\\$ cudafe++|#\\$ $KP_TOOLS/cudafe++|" \
      -e "s|^#\\$ ptxas|#\\$ $KP_TOOLS/ptxas|" -e "s|^#\\$ fatbinary|#\\$ $KP_TOOLS/fatbinary|" \
      -e "s|^CICC_PATH=.*|CICC_PATH=$KP_TOOLS|" -e "s|^#\\$ CICC_PATH=.*|#\\$ CICC_PATH=$KP_TOOLS|" \
      -e "s|cuda.cu\\b|$KP_SRC|g" "$KP_GOLDEN" >&2
  exit 0
fi
echo "nvcc-itself $*" >> "$KP_TOOL_LOG"
prev=""; for a in "$@"; do [ "$prev" = "-o" ] && echo nvcc-output > "$a"; prev=$a; done
exit ${NVCC_EXIT:-0}
"""


class EndToEndTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        tools = os.path.join(self.tmp, "tools")
        os.makedirs(tools)
        for name in ("gcc", "cudafe++", "cicc", "ptxas", "fatbinary"):
            self.script(os.path.join(tools, name), TOOL % {"name": name})
        self.nvcc = os.path.join(self.tmp, "nvcc")
        self.script(self.nvcc, NVCC % {"golden": GOLDEN_DIR})
        self.log = os.path.join(self.tmp, "log")
        self.notes = os.path.join(self.tmp, "notes")
        self.env = dict(os.environ, KP_TOOLS=tools, KP_TOOL_LOG=self.log, KP_SRC="cuda.cu",
                        KP_GOLDEN=os.path.join(HERE, "data", "nvcc13-dryrun-plain.txt"),
                        KERNELPRO_REAL_NVCC=self.nvcc, KERNELPRO_NVCC_NOTES=self.notes)
        for k in ("FAIL_TOOL", "CICC_ID", "NVCC_EXIT"):
            self.env.pop(k, None)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    @staticmethod
    def script(path, text):
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)

    def run_nvcc(self, args, **env):
        r = subprocess.run([sys.executable, "-E", "-s", "-B", KP_NVCC] + args, cwd=self.tmp, capture_output=True,
                           text=True, env=dict(self.env, **env))
        with open(self.log) as f:
            log = f.read().splitlines()
        with open(self.notes) as f:
            notes = [json.loads(line) for line in f]
        return r, log, notes

    ARGS = ["-MD", "-MF", "cuda.cuda.o.d", "-c", "cuda.cu", "-o", "cuda.cuda.o"]  # torch 2.11's rule

    def test_halves(self):
        r, log, notes = self.run_nvcc(self.ARGS)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([n["mode"] for n in notes], ["halves"])
        self.assertTrue(all(isinstance(notes[0][k], float) for k in ("host", "device", "final")), notes)
        self.assertFalse(any(line.startswith("nvcc-itself") for line in log), log)
        self.assertEqual(len(log), 7)  # gcc -E twice, cudafe++, cicc, ptxas, fatbinary, gcc -c
        with open(os.path.join(self.tmp, "cuda.cuda.o")) as f:
            self.assertEqual(f.read(), "gcc-output\n")
        with open(os.path.join(self.tmp, "cuda.cuda.o.d")) as f:
            self.assertEqual(f.read(), "dep: x\n")  # from -MD -MF on the host preprocessing
        self.assertEqual(os.listdir(tempfile.gettempdir()).count("kp-nvcc-"), 0)

    def assert_nvcc_itself(self, args, why, **env):
        r, log, notes = self.run_nvcc(args, **env)
        self.assertEqual(log[-1], "nvcc-itself " + " ".join(args))  # the original arguments, exec'd
        self.assertEqual(notes[-1]["mode"], "nvcc")
        self.assertIn(why, notes[-1]["why"])
        self.assertNotIn("stand-in failure", r.stderr)  # the attempt's output is not shown: nvcc's is
        return r

    def test_failed_step_is_nvcc_itself(self):
        r = self.assert_nvcc_itself(self.ARGS, "cicc exited 2", FAIL_TOOL="cicc", NVCC_EXIT="1")
        self.assertEqual(r.returncode, 1)  # nvcc's own exit status

    def test_other_module_id_is_nvcc_itself(self):
        self.assert_nvcc_itself(self.ARGS, "module id differs", CICC_ID="_other")

    def test_other_mode_is_nvcc_itself(self):
        self.assert_nvcc_itself(["-E", "cuda.cu", "-o", "x.ii"], "nvcc option -E")


@unittest.skipUnless(shutil.which("nvcc") and shutil.which("objdump") and shutil.which("objcopy"), "needs nvcc")
class RealNvccTest(unittest.TestCase):
    SOURCE = """#include <cuda_runtime.h>
#include <vector>
template <typename T> __global__ void axpy(T a, const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
std::vector<int> host_side(int n) { return std::vector<int>(n, 1); }
void launch(float a, const float* x, float* y, int n) { axpy<float><<<(n + 255) / 256, 256>>>(a, x, y, n); }
void launch(double a, const double* x, double* y, int n) { axpy<double><<<(n + 255) / 256, 256>>>(a, x, y, n); }
"""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.src = os.path.join(self.tmp, "cuda.cu")
        with open(self.src, "w") as f:
            f.write(self.SOURCE)
        self.env = dict(os.environ, KERNELPRO_REAL_NVCC=shutil.which("nvcc"),
                        KERNELPRO_NVCC_NOTES=os.path.join(self.tmp, "notes"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def build(self, tool, out, src=None):
        args = ["-MD", "-MF", out + ".d", "-O3", "--compiler-options",
                "-fPIC", "-gencode=arch=compute_90,code=compute_90", "-gencode=arch=compute_90,code=sm_90", "-c",
                src or self.src, "-o", out]
        return subprocess.run(tool + args, cwd=self.tmp, capture_output=True, text=True, env=self.env)

    @staticmethod
    def dump(path):
        """The host code (disassembled, relocations named; nvcc's temporary file name masked) and the
        embedded fatbinary's bytes (the device code)."""
        host = subprocess.run(["objdump", "-d", "-r", "--no-show-raw-insn", path], capture_output=True,
                              text=True).stdout.split("\n", 3)[-1]
        fatbin = path + ".fatbin"
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", path, fatbin], check=True)
        with open(fatbin, "rb") as f:
            device = f.read()
        return re.sub(r"tmpxft_[0-9a-f]+_[0-9a-f]+_\d+", "TMP", host), device

    def test_same_object_as_nvcc(self):
        a = self.build(["nvcc"], os.path.join(self.tmp, "nvcc.o"))
        b = self.build([sys.executable, "-E", "-s", "-B", KP_NVCC], os.path.join(self.tmp, "halves.o"))
        self.assertEqual((a.returncode, b.returncode), (0, 0), b.stderr)
        with open(os.path.join(self.tmp, "notes")) as f:
            self.assertEqual(json.loads(f.readline())["mode"], "halves")
        host_a, dev_a = self.dump(os.path.join(self.tmp, "nvcc.o"))
        host_b, dev_b = self.dump(os.path.join(self.tmp, "halves.o"))
        self.assertIn(b"axpy", dev_a)  # the kernel's name in the embedded PTX and cubin
        self.assertEqual(dev_a, dev_b)
        self.assertEqual(host_a, host_b)
        with open(os.path.join(self.tmp, "halves.o.d")) as f:
            self.assertTrue(f.read().startswith(os.path.join(self.tmp, "halves.o") + ":"))

    def test_compile_error_as_nvcc_says_it(self):
        bad = os.path.join(self.tmp, "bad.cu")
        with open(bad, "w") as f:
            f.write("__global__ void k(float* x) { x[0] = undefined_name; }\n")
        a = self.build(["nvcc"], os.path.join(self.tmp, "a.o"), bad)
        b = self.build([sys.executable, "-E", "-s", "-B", KP_NVCC], os.path.join(self.tmp, "b.o"), bad)
        self.assertNotEqual(a.returncode, 0)
        self.assertEqual((a.returncode, a.stdout, a.stderr), (b.returncode, b.stdout, b.stderr))


if __name__ == "__main__":
    unittest.main()

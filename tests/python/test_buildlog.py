"""kernelpro.buildlog: a compile_error's log keeps what the compiler said about the candidate's files and
the toolchain's headers and withholds what it quotes of any other file (issue 30). Golden logs of
nvcc, g++ and a Python traceback; the adapter's compile_error through it; a fuzz loop."""

import os
import random
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "fake_harness"))

import cpu_adapter  # noqa: E402
from kernelpro import buildlog  # noqa: E402
from mutate import mutate  # noqa: E402
from test_compile_threads import evaluate  # noqa: E402

EXT = "/cache/builds/torch_ext/0123456789abcdef"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOTS = [EXT, "/usr/local/cuda", "/site/torch", "/tmp/run/cand.py"] + list(buildlog.SYSTEM_DIRS)
SECRET = "sk-do-not-leak-0123456789"

LOG = """[1/3] /usr/local/cuda/bin/nvcc -c %(ext)s/kp_x/cuda.cu -o cuda.cuda.o
%(ext)s/kp_x/cuda.cu(12): error: identifier "vec4" is undefined
      vec4 v = x[i];
      ^
/usr/local/cuda/include/cuda_fp16.h(200): warning: something about the toolkit
      half h;
/home/other/.config/keys.h(1): error: this declaration has no storage class or type specifier
  OPENAI_API_KEY=%(secret)s
  ^
In file included from /home/other/.config/keys.h:3,
                 from main.cpp:2:
/home/other/.config/keys.h:3:1: error: 'TOKEN' does not name a type
    3 | %(secret)s
      | ^~~~~
main.cpp:4:1: error: stray '@' in program
    4 | @
ninja: build stopped: subcommand failed.
Traceback (most recent call last):
  File "/tmp/run/cand.py", line 3, in <module>
    mod = load_inline(name="kp_x", cpp_sources=cpp, cuda_sources=cu)
  File "/site/torch/utils/cpp_extension.py", line 2200, in _run_ninja_build
    raise RuntimeError(message)
  File "/etc/kernelpro-secret.py", line 1
    KEY = "%(secret)s"
RuntimeError: Error building extension 'kp_x'
""" % {"ext": EXT, "secret": SECRET}


class ConfineTest(unittest.TestCase):
    def test_golden(self):
        out = buildlog.confine(LOG, ROOTS)
        self.assertNotIn(SECRET, out)
        lines = out.split("\n")
        self.assertIn('%s/kp_x/cuda.cu(12): error: identifier "vec4" is undefined' % EXT, lines)
        self.assertIn("      vec4 v = x[i];", lines)  # the candidate's own line
        self.assertIn("      half h;", lines)  # a toolkit header's
        self.assertIn("/home/other/.config/keys.h: " + buildlog.WITHHELD, lines)
        self.assertEqual(lines.count("/home/other/.config/keys.h: " + buildlog.WITHHELD), 3)
        self.assertIn("                 from main.cpp:2:", lines)  # no '/': the build directory's
        self.assertIn("    4 | @", lines)
        self.assertIn("    mod = load_inline(name=\"kp_x\", cpp_sources=cpp, cuda_sources=cu)", lines)
        self.assertIn("    raise RuntimeError(message)", lines)
        self.assertIn("/etc/kernelpro-secret.py: " + buildlog.WITHHELD, lines)
        self.assertIn("RuntimeError: Error building extension 'kp_x'", lines)
        self.assertIn("ninja: build stopped: subcommand failed.", lines)

    def test_nothing_to_withhold_is_unchanged(self):
        log = "%s/kp_x/cuda.cu(3): error: x\n  int x = ;\n      ^\nmain.cpp:1:1: error: y\n" % EXT
        self.assertEqual(buildlog.confine(log, ROOTS), log)
        self.assertEqual(buildlog.confine("", ROOTS), "")
        self.assertIsNone(buildlog.confine(None, ROOTS))

    def test_a_root_is_a_directory_not_a_prefix(self):
        out = buildlog.confine("/usr/local/cuda-evil/x.h(1): error: e\n  " + SECRET + "\n", ROOTS)
        self.assertNotIn(SECRET, out)

    def test_roots_from_env(self):
        env = {"TORCH_EXTENSIONS_DIR": EXT, "KP_NVCC": "/opt/cuda-13/bin/nvcc", "KP_BUILD_CACHE": "/c/b",
               "KP_CUTLASS_INCLUDES": "/opt/cutlass/include\x1f/opt/cutlass/tools/util/include"}
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            roots = buildlog.roots_from_env("/tmp/run/cand.py", "/site/torch")
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        for want in (EXT, "/opt/cuda-13", "/c/b", "/opt/cutlass/include", "/site/torch", "/tmp/run/cand.py",
                     "/usr/include"):
            self.assertIn(want, roots)

    def test_fuzz_the_secret_never_survives(self):
        """Random cuts, duplications and insertions of the golden log: confine() never raises, and no
        line that quotes the outside files' secret survives unless a kept diagnostic quotes it (the
        secret only ever follows an outside file's diagnostic here, so it never may)."""
        rng = random.Random(30)
        tokens = ["\n", "  ", "(1): error: ", ":3:1: error: ", "In file included from ", "/home/x/k.h",
                  '  File "/etc/k.py", line 1\n', "main.cpp", "\t"]
        base = LOG.split("\n")
        pieces = [[t + x] for t in tokens for x in ("", "x", "  y")]
        for _ in range(500):
            lines = mutate(rng, base, pieces, ops=5, cut_len=3, dup_len=4)
            log = "\n".join(lines)
            out = buildlog.confine(log, ROOTS)
            self.assertIsInstance(out, str)
            self.assertLessEqual(out.count(SECRET), log.count(SECRET))


def outside_secret():
    """A file outside the candidate's holding SECRET: its path."""
    d = tempfile.mkdtemp(prefix="kp-buildlog-")
    secret_file = os.path.join(d, "outside", "keys.h")
    os.makedirs(os.path.dirname(secret_file))
    with open(secret_file, "w") as f:
        f.write(SECRET + "\n")
    return secret_file


class AdapterTest(unittest.TestCase):
    def test_compile_error_log_is_confined(self):
        secret_file = outside_secret()
        # As nvcc reports a file the candidate included: its location, then the quoted line.
        cand = ("_text = open(%r).read().strip()\n"
                "raise RuntimeError(\"Error building extension 'kp_x': %s(1): error: bad\\n  \" + _text + "
                "\"\\n  ^\\nmain.cpp:2:1: error: own\\n\")\n" % (secret_file, secret_file))
        res, _ = evaluate(self, candidate=cand + cpu_adapter.CANDIDATE)
        self.assertEqual(res["status"], "compile_error", res)
        self.assertNotIn(SECRET, res["log"])
        self.assertIn(secret_file + ": " + buildlog.WITHHELD, res["log"])
        self.assertIn("main.cpp:2:1: error: own", res["log"])
        self.assertNotIn(SECRET, res["message"])

    def test_printed_build_output_in_the_log(self):
        """load_inline(verbose=True) prints ninja's output (a child process's, on fd 1) and raises with
        none of it: the compile_error's log gets its end, confined like the rest; the adapter's own
        frames are not withheld."""
        secret_file = outside_secret()
        ninja = ("FAILED: main.o\nc++ -arch=sm_70 -c main.cpp -o main.o\n"
                 "c++: error: unrecognized command-line option '-arch=sm_70'\n"
                 "%s(1): error: bad\n  %s\n" % (secret_file, SECRET))
        cand = ("import os, sys\n"
                "os.system = None\n"
                "sys.stdout.write('[1/3] c++ main.cpp\\n'); sys.stdout.flush()\n"
                "os.write(1, %r.encode())\n"
                "raise RuntimeError(\"Error building extension 'kp_x'\")\n" % ninja)
        res, _ = evaluate(self, candidate=cand + cpu_adapter.CANDIDATE)
        self.assertEqual(res["status"], "compile_error", res)
        self.assertIn("what the import printed", res["log"])
        self.assertIn("c++: error: unrecognized command-line option '-arch=sm_70'", res["log"])
        self.assertIn("[1/3] c++ main.cpp", res["log"])
        self.assertNotIn(SECRET, res["log"])
        self.assertNotIn("kernelpro/inline_cache.py: [what", res["log"])


class PrintedTest(unittest.TestCase):
    def test_captures_fd1_and_passes_it_on(self):
        code = ("import os, subprocess, sys\n"
                "sys.path.insert(0, %r)\n"
                "from kernelpro import util\n"
                "p = util.Printed(cap=10)\n"
                "with p:\n"
                "    print('from python')\n"
                "    subprocess.run(['sh', '-c', 'echo from a child; echo to stderr >&2'])\n"
                "print('after', repr(p.text()))\n" % os.path.join(ROOT, "harness"))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "after 'm a child\\n'\n")  # the last 10 bytes; stdout itself back
        self.assertIn("from python\nfrom a child\n", r.stderr)  # passed on to stderr
        self.assertIn("to stderr", r.stderr)


if __name__ == "__main__":
    unittest.main()

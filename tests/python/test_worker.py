"""harness/kp_worker.py with a stand-in adapter (fake_harness/kp_torch.py, no torch): a fresh forked
child per job in its own process group, crashes and hangs that end only their job, time limits with
the whole group killed, output caps, the job's environment and directory, clients that go away, and a
worker that dies under a running job (the job dies with it). With the real adapter on a stand-in
torch (fake_harness/cpu_adapter.py): the forked child applies the sandbox prelude, the worker not."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "python", "fake_harness"))
WORKER = os.path.join(ROOT, "harness", "kp_worker.py")
FAKE = os.path.join(ROOT, "tests", "python", "fake_harness", "kp_torch.py")
CPU_ADAPTER = os.path.join(ROOT, "tests", "python", "fake_harness", "cpu_adapter.py")
FORK_ADAPTER = os.path.join(ROOT, "tests", "python", "fake_harness", "fork_adapter.py")
REAL_ADAPTER = os.path.join(ROOT, "harness", "kp_torch.py")
FAKE_TORCH = os.path.join(ROOT, "tests", "python", "fake_torch")  # torch's fork poisoning, nothing else
BUILD = os.environ.get("KP_BUILD") or os.path.join(ROOT, "build")
SANDBOX_LIB = os.path.join(BUILD, "libexec", "kernelpro", "libkp_sandbox.so")


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie still answers kill(0): look at its state
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pid, seconds=5.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


class WorkerCase(unittest.TestCase):
    """A worker per test, in a fresh directory, and the client's side of the protocol."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="kp-worker-test-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.sock_path = os.path.join(self.dir, "w.sock")
        self.next_id = 0

    def start(self, idle=30.0, env=None, expect="hello", adapter=FAKE):
        r, w = os.pipe()
        p = subprocess.Popen([sys.executable, "-B", WORKER, "--socket", self.sock_path, "--idle", str(idle),
                              "--ready-fd", str(w), "--adapter", adapter], pass_fds=(w,), stdin=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=dict(os.environ, **(env or {})), start_new_session=True)
        os.close(w)
        with os.fdopen(r) as f:
            line = f.readline()
        ready = json.loads(line) if line else {}
        self.assertIn(expect, ready, (ready, p.stderr.read1(4096) if p.poll() is not None else ""))
        self.addCleanup(self.stop, p)
        return p, ready

    def stop(self, p):
        if p.poll() is None:
            p.kill()
        p.wait()
        p.stderr.close()

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(self.sock_path)
        f = s.makefile("rwb", buffering=0)
        self.addCleanup(s.close)
        hello = json.loads(f.readline())
        self.assertEqual(hello["hello"]["version"], 1)
        return s, f

    def submit(self, f, cfg, timeout_s=20.0, in_process=True, argv=None, env=None, cwd=None, err_cap=1 << 20):
        self.next_id += 1
        jid = self.next_id
        base = os.path.join(self.dir, "job%d" % jid)
        with open(base + ".in", "w") as inp:
            json.dump(cfg, inp)
        req = {"op": "run", "id": jid, "argv": argv or [sys.executable, "-B", FAKE],
               "env": ["%s=%s" % kv for kv in (env or dict(os.environ)).items()], "cwd": cwd or self.dir,
               "stdin": base + ".in", "out": base + ".out", "err": base + ".err", "out_cap": 1 << 20,
               "err_cap": err_cap, "timeout_s": timeout_s, "in_process": in_process}
        f.write((json.dumps(req) + "\n").encode())
        return jid, base

    def events(self, f, jid):
        """Reads events until job jid is done; returns them by kind."""
        got = {}
        while "done" not in got:
            line = f.readline()
            self.assertTrue(line, "the worker closed the connection")
            ev = json.loads(line)
            self.assertNotIn("error", ev, ev)
            if ev.get("id") == jid:
                for k in ("queued", "started", "done"):
                    if k in ev:
                        got[k] = ev[k]
        return got

    def result(self, base):
        with open(base + ".out") as f:
            lines = [json.loads(x) for x in f if x.startswith("{")]
        return lines[-1].get("result")


class WorkerTest(WorkerCase):
    def test_fresh_child_per_job_in_its_own_group(self):
        p, ready = self.start()
        self.assertIsNone(ready["hello"]["torch"])
        _, f = self.connect()
        pids = []
        for _ in range(2):
            jid, base = self.submit(f, {"do": "ok"}, env=dict(os.environ, FOO="bar"), cwd="/")
            ev = self.events(f, jid)
            self.assertEqual((ev["done"]["exit_code"], ev["done"]["signal"], ev["done"]["timed_out"]), (0, 0, False))
            r = self.result(base)
            self.assertEqual(r["pid"], ev["started"])
            self.assertEqual(r["pgid"], r["pid"])  # its own process group
            self.assertEqual(r["ppid"], p.pid)  # forked by the worker
            self.assertEqual((r["cwd"], r["foo"]), ("/", "bar"))  # the job's directory and environment
            self.assertEqual(r["argv"], [FAKE])  # as `python3 -B FAKE` would see it
            pids.append(r["pid"])
        self.assertNotEqual(pids[0], pids[1])

    def test_crash_then_clean_job(self):
        self.start()
        _, f = self.connect()
        jid, _ = self.submit(f, {"do": "crash"})
        done = self.events(f, jid)["done"]
        self.assertEqual((done["signal"], done["exit_code"]), (signal.SIGSEGV, None))
        jid, base = self.submit(f, {"do": "ok"})
        self.assertEqual(self.events(f, jid)["done"]["exit_code"], 0)
        self.assertEqual(self.result(base)["status"], "correct")

    def test_hang_killed_at_its_limit_then_clean_job(self):
        self.start()
        _, f = self.connect()
        t0 = time.monotonic()
        jid, base = self.submit(f, {"do": "hang"}, timeout_s=0.5)
        done = self.events(f, jid)["done"]
        self.assertTrue(done["timed_out"])
        self.assertEqual(done["signal"], signal.SIGTERM)
        self.assertLess(time.monotonic() - t0, 10)
        with open(base + ".out") as out:
            self.assertIn('"phase": "correctness"', out.read())  # the last phase survives for the verdict
        jid, _ = self.submit(f, {"do": "hang_hard"}, timeout_s=0.3)
        done = self.events(f, jid)["done"]
        self.assertEqual((done["timed_out"], done["signal"]), (True, signal.SIGKILL))
        jid, base = self.submit(f, {"do": "ok"})
        self.assertEqual(self.events(f, jid)["done"]["exit_code"], 0)
        self.assertEqual(self.result(base)["status"], "correct")

    def test_whole_group_killed_when_the_job_ends(self):
        self.start()
        _, f = self.connect()
        pidfile = os.path.join(self.dir, "grandchild.pid")
        jid, _ = self.submit(f, {"do": "grandchild", "pidfile": pidfile})
        self.assertEqual(self.events(f, jid)["done"]["exit_code"], 0)
        with open(pidfile) as pf:
            self.assertTrue(wait_gone(int(pf.read())), "a process the job started outlived it")

    def test_output_capped_and_counted(self):
        self.start()
        _, f = self.connect()
        jid, base = self.submit(f, {"do": "flood", "n": 300000}, err_cap=1000)
        done = self.events(f, jid)["done"]
        self.assertEqual((done["err_total"], done["err_truncated"]), (300000, True))
        self.assertEqual(os.path.getsize(base + ".err"), 1000)

    def test_exit_code_and_exec_jobs(self):
        self.start()
        _, f = self.connect()
        jid, _ = self.submit(f, {"do": "exit", "code": 7})
        self.assertEqual(self.events(f, jid)["done"]["exit_code"], 7)
        jid, base = self.submit(f, {}, in_process=False, argv=["sh", "-c", "echo out; echo err >&2; exit 4"])
        self.assertEqual(self.events(f, jid)["done"]["exit_code"], 4)
        with open(base + ".out") as o, open(base + ".err") as e:
            self.assertEqual((o.read(), e.read()), ("out\n", "err\n"))
        jid, _ = self.submit(f, {}, in_process=False, argv=["/nonexistent/program"])
        self.assertEqual(self.events(f, jid)["done"]["exit_code"], 127)

    def test_jobs_queue_one_at_a_time(self):
        self.start()
        _, f = self.connect()
        a, _ = self.submit(f, {"do": "ok"})
        b, _ = self.submit(f, {"do": "ok"})
        seen = []
        while len([e for e in seen if "done" in e]) < 2:
            seen.append(json.loads(f.readline()))
        order = [(e["id"], k) for e in seen for k in ("started", "done") if k in e]
        self.assertEqual(order, [(a, "started"), (a, "done"), (b, "started"), (b, "done")])

    def test_client_gone_kills_its_job(self):
        self.start()
        s, f = self.connect()
        jid, _ = self.submit(f, {"do": "hang"}, timeout_s=100)
        line = json.loads(f.readline())
        while "started" not in line:
            line = json.loads(f.readline())
        pid = line["started"]
        s.close()
        f.close()
        self.assertTrue(wait_gone(pid), "the job of a client that went away kept running")
        _, f2 = self.connect()  # and the worker serves the next client
        jid, _ = self.submit(f2, {"do": "ok"})
        self.assertEqual(self.events(f2, jid)["done"]["exit_code"], 0)

    def test_worker_death_ends_the_job(self):
        p, _ = self.start()
        _, f = self.connect()
        self.submit(f, {"do": "hang"}, timeout_s=100)
        line = json.loads(f.readline())
        while "started" not in line:
            line = json.loads(f.readline())
        p.kill()
        self.assertEqual(f.readline(), b"")  # the client sees the worker go
        self.assertTrue(wait_gone(line["started"]), "the job outlived its worker")

    def test_one_worker_per_socket_and_idle_exit(self):
        p, _ = self.start(idle=0.5)
        self.start(expect="other")  # a second worker for the same socket leaves it to the first
        self.assertEqual(p.wait(timeout=10), 0)  # nobody came: it went away by itself
        self.assertFalse(os.path.exists(self.sock_path))

    @unittest.skipUnless(os.path.isfile(SANDBOX_LIB), "no %s (run make first)" % SANDBOX_LIB)
    def test_forked_child_applies_the_sandbox(self):
        import cpu_adapter

        p, _ = self.start(adapter=CPU_ADAPTER)
        _, f = self.connect()
        task = os.path.join(self.dir, "task.py")
        marker = os.path.join(self.dir, "marker")
        with open(task, "w") as t:
            t.write(cpu_adapter.TASK)
        env = dict(os.environ, KERNELPRO_SANDBOX_LIB=SANDBOX_LIB)
        env.pop("KERNELPRO_SANDBOX", None)
        verdicts = {}
        for name, text in (("honest", cpu_adapter.CANDIDATE),
                           ("spawns", "import os\nos.system('echo pwned > %s')\n" % marker + cpu_adapter.CANDIDATE)):
            cand = os.path.join(self.dir, name + ".py")
            with open(cand, "w") as c:
                c.write(text)
            cfg = {"mode": "eval", "task": task, "candidate": cand, "seed": 42, "precision": "f32", "atol": 1e-4,
                   "rtol": 1e-4, "with_compile": True, "limits": {"build": 60, "check": 60, "timing": 60},
                   "build": {"nvcc": "/bin/false", "cache": self.dir}}
            jid, base = self.submit(f, cfg, argv=[sys.executable, "-B", CPU_ADAPTER], env=env)
            ev = self.events(f, jid)
            self.assertEqual(ev["done"]["exit_code"], 0, ev)
            verdicts[name] = r = self.result(base)
            self.assertEqual(r["sandbox"]["python"]["audit_hook"], True, r)  # the prelude ran in the child
            self.assertTrue(r["sandbox"]["applied"], r["sandbox"])  # and found libkp_sandbox.so
        honest = verdicts["honest"]
        self.assertEqual(honest["status"], "correct", honest)
        self.assertEqual(honest["sandbox"]["attempts"], {"before_candidate": 0, "candidate": 0, "reference_compile": 0})
        if honest["sandbox"]["processes"]["blocked"]:
            self.assertEqual(honest["sandbox"]["processes"]["threads"], "every thread")
        spawns = verdicts["spawns"]
        self.assertEqual(spawns["status"], "cheat_suspected", spawns)
        self.assertEqual(spawns["flags"][-1]["check"], "process_spawn")
        self.assertEqual(spawns["sandbox"]["python"]["refused"][0]["event"], "os.system")
        self.assertFalse(os.path.exists(marker), "the candidate's command ran")
        # The worker itself is not sandboxed: it still starts the next job's program.
        jid, base = self.submit(f, {}, in_process=False, argv=["sh", "-c", "echo unsandboxed"])
        self.assertEqual(self.events(f, jid)["done"]["exit_code"], 0)
        with open(base + ".out") as o:
            self.assertEqual(o.read(), "unsandboxed\n")

    def test_refuses_when_cuda_was_initialised(self):
        _, ready = self.start(env={"FAKE_CUDA_INIT": "1"}, expect="error")
        self.assertIn("CUDA was initialised", ready["error"])


class ForkSafetyTest(WorkerCase):
    """torch refuses CUDA in a child forked from a process that called into CUDA through torch._C (the
    H200 run of tests/gpu/g1201: every evaluation through the worker was a runtime_error). With the
    stand-in torch of tests/python/fake_torch, which poisons exactly as torch 2.11 does."""

    def torch_env(self, **extra):
        env = {"PYTHONPATH": os.pathsep.join(p for p in (FAKE_TORCH, os.environ.get("PYTHONPATH")) if p)}
        for k in ("FAKE_PRELOAD", "FAKE_TORCH_NVML", "PYTORCH_NVML_BASED_CUDA_CHECK"):
            env[k] = ""
        env.update(extra)
        return env

    def test_real_preload_leaves_forks_usable(self):
        # kp_torch.PRELOAD itself: torch.utils.cpp_extension's import asked torch.cuda.is_available().
        _, ready = self.start(adapter=REAL_ADAPTER, env=self.torch_env())
        hello = ready["hello"]
        self.assertEqual(hello["torch"], "0.0-fork-stand-in")
        self.assertEqual(hello["fork_probe"], {"bad_fork": False, "c": False, "python": False})
        self.assertEqual(hello["cuda_calls"], [])
        # kp_torch.warm(): the FLOP counter used once in the worker, on the CPU (8 x 8 matmul)
        fc = hello["warm"]["flop_counter"]
        self.assertEqual((fc["ok"], fc["flops"], fc["error"]), (True, 1024, None), fc)
        self.assertGreaterEqual(fc["s"], 0.0)
        self.assertFalse(hello["warm"]["cuda_initialized"])

    def run_fork_job(self):
        _, f = self.connect()
        jid, base = self.submit(f, {}, argv=[sys.executable, "-B", FORK_ADAPTER],
                                env=dict(os.environ, PYTHONPATH=FAKE_TORCH))
        self.assertEqual(self.events(f, jid)["done"]["exit_code"], 0)
        return self.result(base)

    def test_warm_up_reaches_the_children(self):
        p, ready = self.start(adapter=FORK_ADAPTER, env=self.torch_env())
        self.assertTrue(ready["hello"]["warm"]["flop_counter"]["ok"], ready)
        r = self.run_fork_job()
        self.assertEqual((r["status"], r["bad_fork"], r["flop_uses"]), ("correct", False, 1), r)
        p.kill()
        p.wait()
        self.assertRegex(p.stderr.read().decode(), r"serving \S+ \(preload [0-9.]+ s, of which warm-up flop_counter "
                                                   r"[0-9.]+ s; torch 0.0-fork-stand-in\)")

    def test_failed_warm_up_recorded_and_served(self):
        _, ready = self.start(adapter=FORK_ADAPTER, env=self.torch_env(FAKE_FLOP_WARM="fail"))
        fc = ready["hello"]["warm"]["flop_counter"]
        self.assertEqual((fc["ok"], fc["error"]), (False, "RuntimeError: stand-in first use failed"), fc)
        r = self.run_fork_job()
        self.assertEqual((r["status"], r["bad_fork"], r["flop_uses"]), ("correct", False, 0), r)

    def test_warm_up_touching_cuda_starts_over_without_it(self):
        # A warm-up that poisons fork or initialises CUDA cannot be undone: the worker execs itself
        # again without it, serves, and its children count cold and get CUDA.
        for how, why in (("cuda", r"warm-up called torch\._C\._cuda_getDeviceCount from \S*flop_counter.py"),
                         ("init", "warm-up initialised CUDA")):
            p, ready = self.start(adapter=FORK_ADAPTER, env=self.torch_env(FAKE_FLOP_WARM=how))
            hello = ready["hello"]
            self.assertEqual(hello["pid"], p.pid)
            self.assertRegex(hello["warm"]["skipped"], why)
            self.assertFalse(hello["fork_probe"]["bad_fork"])
            r = self.run_fork_job()
            self.assertEqual((r["status"], r["bad_fork"], r["flop_uses"]), ("correct", False, 0), r)
            self.stop(p)

    def test_forked_child_gets_cuda(self):
        self.start(adapter=FORK_ADAPTER, env=self.torch_env())
        _, f = self.connect()
        jid, base = self.submit(f, {}, argv=[sys.executable, "-B", FORK_ADAPTER],
                                env=dict(os.environ, PYTHONPATH=FAKE_TORCH))
        self.assertEqual(self.events(f, jid)["done"]["exit_code"], 0)
        r = self.result(base)
        self.assertEqual((r["status"], r["bad_fork"]), ("correct", False), r)

    def test_poisoning_preload_refused_naming_the_caller(self):
        for how in ("device_count", "is_available"):
            _, ready = self.start(adapter=FORK_ADAPTER, env=self.torch_env(FAKE_PRELOAD=how), expect="error")
            self.assertIn("bad fork", ready["error"])
            self.assertIn("Cannot re-initialize CUDA in forked subprocess", ready["error"])
            # who called, not torch.cuda's own frames
            self.assertRegex(ready["error"], r"_cuda_getDeviceCount from \S*fork_adapter.py:\d+ \(preload\)")
            self.assertEqual(ready["fork_probe"]["bad_fork"], True)
            call = ready["cuda_calls"][0]
            self.assertEqual(call["function"], "_cuda_getDeviceCount")
            self.assertIn("in preload", call["stack"])

    def test_nvml_counting_does_not_poison(self):
        # The worker counts devices through NVML (PYTORCH_NVML_BASED_CUDA_CHECK=1): no fork handler.
        _, ready = self.start(adapter=FORK_ADAPTER,
                              env=self.torch_env(FAKE_PRELOAD="is_available", FAKE_TORCH_NVML="1"))
        self.assertFalse(ready["hello"]["fork_probe"]["bad_fork"])
        self.assertEqual(ready["hello"]["cuda_calls"], [])

    def test_initialised_cuda_refused(self):
        _, ready = self.start(adapter=FORK_ADAPTER, env=self.torch_env(FAKE_PRELOAD="init"), expect="error")
        self.assertIn("CUDA was initialised", ready["error"])
        self.assertEqual([c["function"] for c in ready["cuda_calls"]], ["_cuda_init"])


if __name__ == "__main__":
    unittest.main()

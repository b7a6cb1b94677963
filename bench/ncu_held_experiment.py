"""An H200 experiment behind held ncu runs (lib/profile/ncu_run.c): does an ncu started ahead, its program
waiting for its input before CUDA, block other ncu runs or ncu --import, how long from the input to
ncu's exit against a cold run, and three page exports one after another against side by side.
  OUT=dir python3 bench/ncu_held_experiment.py    (on a GPU machine with ncu and torch; about 1 minute)"""
import os, shutil, subprocess, sys, time
out = os.environ.get("OUT", "/tmp/spexp")
os.makedirs(out, exist_ok=True)
ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
here = os.path.dirname(os.path.abspath(__file__))
def cmd(tag):
    return [ncu, "--target-processes", "all", "--clock-control", "none", "--cache-control", "all",
            "--replay-mode", "kernel", "--metrics", "sm__cycles_elapsed.avg,dram__bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed",
            "--nvtx", "--nvtx-include", "kp/", "--launch-count", "1", "--log-file", "%s/%s.log" % (out, tag),
            "--export", "%s/%s" % (out, tag), "--force-overwrite", sys.executable, os.path.join(here, "ncu_held_prog.py"),
            "%s/%s.gate" % (out, tag)]
def gate(tag):
    p = "%s/%s.gate" % (out, tag)
    if os.path.exists(p): os.unlink(p)
    os.mkfifo(p)
    return p
def opengate(tag):
    with open("%s/%s.gate" % (out, tag), "w") as f:
        f.write("go")
for rep in range(2):
    gate("a"); gate("b")
    t0 = time.time()
    a = subprocess.Popen(cmd("a"), stdout=subprocess.PIPE, text=True)
    line = a.stdout.readline()
    ta = time.time()
    print("rep %d spare: launch to waiting %.2f s (%s)" % (rep, ta - t0, line.strip()), flush=True)
    time.sleep(1)
    tb = time.time()
    b = subprocess.Popen(cmd("b"), stdout=subprocess.PIPE, text=True)
    b.stdout.readline()
    opengate("b")
    rb = b.wait(timeout=120)
    tbe = time.time()
    print("rep %d cold ncu while spare idles: %.2f s exit %d" % (rep, tbe - tb, rb), flush=True)
    ti = time.time()
    ri = subprocess.run([ncu, "--import", "%s/b.ncu-rep" % out, "--csv", "--page", "raw"], capture_output=True, timeout=120).returncode
    print("rep %d ncu --import while spare idles: %.2f s exit %d" % (rep, time.time() - ti, ri), flush=True)
    tg = time.time()
    opengate("a")
    ra = a.wait(timeout=120)
    print("rep %d spare: go to exit %.2f s exit %d; rest: %s" % (rep, time.time() - tg, ra, a.stdout.read().strip()), flush=True)
    # three page exports, sequential vs parallel
    pages = [["--page", "raw"], ["--page", "details"], ["--page", "source", "--print-source", "sass"]]
    ts = time.time()
    for pg in pages:
        subprocess.run([ncu, "--import", "%s/a.ncu-rep" % out, "--csv"] + pg, capture_output=True)
    t1 = time.time()
    ps = [subprocess.Popen([ncu, "--import", "%s/a.ncu-rep" % out, "--csv"] + pg, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for pg in pages]
    for p in ps: p.wait()
    print("rep %d three page exports: sequential %.2f s, parallel %.2f s" % (rep, t1 - ts, time.time() - t1), flush=True)
for f in ("a.log", "b.log"):
    print("--- " + f); print(open(os.path.join(out, f)).read()[-1500:])

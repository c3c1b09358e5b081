"""The Python client (python/gpumon) against `gpumon agent` on the simulator.

Run by meson as the test `python-client` (environment GPUMON, SIM_LIB,
SOURCE_ROOT from tests/e2e/meson.build), or by hand from the source root
after a build in build/:

    GPUMON=build/src/gpumon SIM_LIB=build/sim/libnvidia-ml.so.1 \\
        python3 -m unittest discover -s python/tests -v

The agent helpers are tests/e2e/agentlib.py's.
"""
import io
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
ROOT = os.environ.get("SOURCE_ROOT") or os.path.dirname(PYDIR)
sys.path.insert(0, PYDIR)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
os.environ.setdefault("GPUMON", os.path.join(ROOT, "build", "src", "gpumon"))
os.environ.setdefault("SIM_LIB", os.path.join(ROOT, "build", "sim", "libnvidia-ml.so.1"))

import agentlib  # noqa: E402
import gpumon  # noqa: E402
import gpumon.keras  # noqa: E402
import gpumon.lightning  # noqa: E402
from gpumon import client as gclient  # noqa: E402

FRAMEWORKS = ("torch", "lightning", "pytorch_lightning", "keras", "tensorflow")


def cli(args, env=None, cwd=None):
    """python3 -m gpumon ARGS -> (rc, stdout, stderr)."""
    e = dict(env or os.environ, PYTHONPATH=PYDIR)
    p = subprocess.run([sys.executable, "-m", "gpumon"] + args, env=e, capture_output=True,
                       text=True, timeout=30, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


class AgentCase(unittest.TestCase):
    """One agent on the simulator for the class; each test uses its own
    task, and marks() reads that task's marks back from the store."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="gmpy.", dir="/tmp")
        cls.data = os.path.join(cls.dir, "data")
        cls.env = agentlib.sim_env(pinned=300)
        cls.agent = agentlib.Agent(cls.data, cls.env, ["--interval", "1s", "--no-alerts"])
        cls.agent.start()
        cls.sent = 0

    @classmethod
    def tearDownClass(cls):
        cls.agent.cleanup()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def marks(self, task, n):
        """The marks of task in the store, once there are n (the store
        commits in batches); fails after 15 s."""
        deadline = time.time() + 15
        while True:
            got = []
            if os.path.exists(os.path.join(self.data, "gpumon.db")):
                got = [r[0] for r in agentlib.db_query(
                    os.path.join(self.data, "gpumon.db"),
                    "SELECT e.text FROM events e JOIN tasks t ON t.id = e.task"
                    " WHERE e.type = 'mark' AND t.name = ? ORDER BY e.id", (task,))]
            if len(got) >= n or time.time() > deadline:
                return got
            time.sleep(0.1)


class TestProtocol(AgentCase):
    def test_hello(self):
        h = gpumon.Client(data_dir=self.data).hello()
        self.assertEqual(h["version"], gpumon.PROTOCOL_VERSION)
        self.assertIn("STEP", h["requests"])
        self.assertIn("MARK", h["requests"])
        rc, out, err = cli(["hello", "--data-dir", self.data])
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out, "protocol 2: HELLO PING STATUS ALERTS MARK STEP\n")

    def test_agent_refuses_bad_step(self):
        # what the client never sends, the agent refuses too
        c = gpumon.Client(data_dir=self.data)
        many = " ".join(f"v{i}=1" for i in range(33))
        for body, why in (("x", "whole number"), ("1 loss=nan", "not a finite decimal"),
                          ("1 9a=1", "name=value"), ("1 loss=0x10", "not a finite decimal"),
                          ("99999999999999999999", "whole number"),
                          ("9223372036854775808", "whole number"), ("-1", "whole number"),
                          ("1 loss=inf", "not a finite decimal"),
                          ("1 loss=1e999", "not a finite decimal"),
                          ("1 loss=", "not a finite decimal"), ("1 loss= 1", "not a finite decimal"),
                          ("1 loss=1 ", "name=value"), ("1  loss=1", "name=value"),
                          ("1 " + "a" * 65 + "=1", "name=value"), ("1 l\u00f6ss=1", "name=value"),
                          ("1 " + many, "at most 32 values"), ("1 loss=1;rm", "not a finite")):
            reply = c.request(f"STEP {time.time_ns()} - {body}")
            self.assertTrue(reply.startswith("ERR ") and why in reply, (body, reply))
        for req, why in (("STEP 1 .bad 1", "invalid task"), ("STEP x - 1", "malformed STEP"),
                         ("STEP 1", "malformed STEP")):
            reply = c.request(req)
            self.assertTrue(reply.startswith("ERR ") and why in reply, (req, reply))
        # the bounds themselves are taken
        most = " ".join(f"{'v' * 62}{i:02d}=1" for i in range(32))
        for body in ("0", "9223372036854775807", "5 " + most):
            self.assertEqual(c.request(f"STEP {time.time_ns()} step-bounds {body}"), "OK",
                             body[:40])
        self.assertEqual(self.marks("step-bounds", 3)[2], "step 5 " + most)

    def test_status(self):
        self.assertGreaterEqual(gpumon.Client(data_dir=self.data).status()["samples"], 1)


class TestMarksAndSteps(AgentCase):
    def test_cli_mark(self):
        rc, out, err = cli(["mark", "--data-dir", self.data, "--task", "cli-1", "epoch", "3"])
        self.assertEqual((rc, out, err), (0, "", ""))
        rc, out, err = cli(["step", "--data-dir", self.data, "--task", "cli-1", "7", "loss=0.5",
                            "samples_per_s=812.4"])
        self.assertEqual((rc, out, err), (0, "", ""))
        self.assertEqual(self.marks("cli-1", 2), ["epoch 3", "step 7 loss=0.5 samples_per_s=812.4"])

    def test_cli_errors(self):
        rc, out, err = cli(["mark", "--data-dir", self.data, "x" * 4097])
        self.assertEqual((rc, out, err), (2, "", "gpumon: error: the mark is 4097 bytes long; a "
                                                 "mark is at most 4096 bytes\n"))
        rc, out, err = cli(["step", "--data-dir", self.data, "3", "loss"])
        self.assertEqual((rc, err), (2, "gpumon: error: step: 'loss' is not NAME=VALUE\n"))
        rc, out, err = cli(["mark", "--data-dir", self.data, "--task", ".x", "hi"])
        self.assertEqual(rc, 2)
        self.assertIn("invalid task", err)
        nodir = os.path.join(self.dir, "none")
        rc, out, err = cli(["mark", "--data-dir", nodir, "epoch 3"])
        self.assertEqual((rc, out), (1, ""))
        self.assertEqual(err, f"gpumon: error: no gpumon agent is running for data directory "
                              f"{nodir} (start one with 'gpumon agent', or give the data "
                              "directory)\n")

    def test_run_context(self):
        with gpumon.Run(task="train-1", data_dir=self.data) as run:
            self.assertTrue(run.step(1, loss=0.5, samples_per_s=812.4))
            gpumon.mark("eval")             # the current run's
            gpumon.step(2, loss=0.25)
        with self.assertRaises(KeyError):
            with gpumon.Run(task="train-2", data_dir=self.data):
                raise KeyError("x")
        self.assertEqual(self.marks("train-1", 5), ["run start", "step 1 loss=0.5 samples_per_s=812.4",
                                                 "eval", "step 2 loss=0.25", "run end"])
        self.assertEqual(self.marks("train-2", 2), ["run start", "run end: failed (KeyError)"])

    def test_min_interval(self):
        with gpumon.Run(task="train-3", data_dir=self.data, min_interval=60) as run:
            sent = [run.step(i, loss=1.0 / (i + 1)) for i in range(50)]
        self.assertEqual(sent, [True] + [False] * 49)
        self.assertEqual(self.marks("train-3", 3), ["run start", "step 0 loss=1.0", "run end"])

    def test_numbers_exact(self):
        # repr: the shortest text that reads back the same float
        vals = {"a": 0.1, "b": 1e-300, "c": -2.5e300, "d": 3, "e": True, "f": 123456789.123456789}
        with gpumon.Run(task="train-4", data_dir=self.data) as run:
            run.step(2 ** 63 - 1, **vals)
        got = self.marks("train-4", 3)[1]
        self.assertEqual(got, "step 9223372036854775807 a=0.1 b=1e-300 c=-2.5e+300 d=3.0 e=1.0 "
                              "f=123456789.12345679")
        for kv in got.split()[2:]:
            k, v = kv.split("=")
            self.assertEqual(float(v), float(vals[k]))

    def test_report_and_plot(self):
        rc, out, err = cli(["step", "--data-dir", self.data, "--task", "train-5", "42",
                            "loss=0.125"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.marks("train-5", 1), ["step 42 loss=0.125"])
        env = self.env
        p = subprocess.run([os.environ["GPUMON"], "report", "--no-config", "--data-dir",
                            self.data, "--since", "2h", "--format", "json"],
                           env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        texts = [m["text"] for row in json.loads(p.stdout) for m in row["marks"]]
        self.assertIn("step 42 loss=0.125", texts)
        p = subprocess.run([os.environ["GPUMON"], "report", "--no-config", "--data-dir",
                            self.data, "--since", "2h"],
                           env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("step 42 loss=0.125", p.stdout)


class TestPlot(AgentCase):
    """An agent whose only mark is a step: the plot draws its label (labels
    that would overlap an earlier one are left out, docs/plot.md)."""

    def test_plot(self):
        if not shutil.which("pdftotext"):
            self.skipTest("no pdftotext: the plot's text is not checked")
        rc, out, err = cli(["step", "--data-dir", self.data, "42", "loss=0.125"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.marks("default", 1), ["step 42 loss=0.125"])
        env = self.env
        pdf = os.path.join(self.dir, "plot.pdf")
        p = subprocess.run([os.environ["GPUMON"], "plot", "--no-config", "--data-dir", self.data,
                            "--since", "10m", "-o", pdf],
                           env=env, capture_output=True, text=True, timeout=60)
        if p.returncode != 0 and "module" in p.stderr:
            self.skipTest(f"gpumon plot is not built here: {p.stderr.strip()}")
        self.assertEqual(p.returncode, 0, p.stderr)
        t = subprocess.run(["pdftotext", "-raw", pdf, "-"], capture_output=True,
                           text=True).stdout
        # the label's words are drawn one under another
        self.assertIn("step 42 loss=0.125", " ".join(t.split()))


class _FakeLightningCallback:
    """The shape of Lightning's Callback: hooks that do nothing."""
    def __init__(self):
        self.base_init = True


class _FakeKerasCallback:
    def __init__(self):
        self.base_init = True


class _Tensor:
    """A one-element tensor: float() works."""
    def __init__(self, v):
        self.v = v

    def __float__(self):
        return self.v


class _Vector:
    """A tensor of several elements: float() fails as torch's does."""
    def __float__(self):
        raise RuntimeError("a Tensor with 2 elements cannot be converted to Scalar")


class _Trainer:
    def __init__(self):
        self.global_step = 0
        self.current_epoch = 0
        self.callback_metrics = {}


class TestAdapters(AgentCase):
    def test_no_framework_imported(self):
        self.assertEqual([m for m in sys.modules if m.split(".")[0] in FRAMEWORKS], [])

    def test_lightning(self):
        cb = gpumon.lightning.GpumonCallback(task="pl-1", data_dir=self.data, min_interval=0,
                                             base=_FakeLightningCallback)
        self.assertIsInstance(cb, _FakeLightningCallback)
        self.assertTrue(cb.base_init)
        tr = _Trainer()
        cb.on_train_start(tr, None)
        for i in range(2):
            tr.global_step = i + 1
            tr.callback_metrics = {"train/loss": _Tensor(0.5 / (i + 1)), "acc": 0.75,
                                   "hist": _Vector(), "name": "x"}
            cb.on_train_batch_end(tr, None, None, None, i)
        cb.on_train_epoch_end(tr, None)
        cb.on_train_end(tr, None)
        self.assertEqual(self.marks("pl-1", 5), ["train start", "step 1 train_loss=0.5 acc=0.75",
                                              "step 2 train_loss=0.25 acc=0.75", "epoch 0 end",
                                              "train end"])

    def test_numbers_only_when_due(self):
        # with a step sent, the next batches within min_interval do not
        # convert their metrics (float() of a GPU tensor waits for the GPU)
        cb = gpumon.lightning.GpumonCallback(task="pl-2", data_dir=self.data, min_interval=60,
                                             base=_FakeLightningCallback)
        tr = _Trainer()
        converted = []

        class Counting:
            def __float__(self):
                converted.append(1)
                return 0.5
        tr.callback_metrics = {"loss": Counting()}
        for i in range(20):
            tr.global_step = i
            cb.on_train_batch_end(tr, None, None, None, i)
        self.assertEqual(len(converted), 1)
        self.assertEqual(self.marks("pl-2", 1), ["step 0 loss=0.5"])

    def test_keras(self):
        cb = gpumon.keras.GpumonCallback(task="keras-1", data_dir=self.data, min_interval=0,
                                         base=_FakeKerasCallback)
        self.assertIsInstance(cb, _FakeKerasCallback)
        cb.on_train_begin()
        cb.on_train_batch_end(0, {"loss": 0.3, "accuracy": 0.9})
        cb.on_train_batch_end(1, {"loss": 0.2})
        cb.on_epoch_end(0, {"loss": 0.25})
        cb.on_train_end()
        self.assertEqual(self.marks("keras-1", 5), ["train start", "step 1 loss=0.3 accuracy=0.9",
                                                 "step 2 loss=0.2", "epoch 0 end", "train end"])

    def test_missing_framework(self):
        for mod, name in ((gpumon.lightning, "lightning"), (gpumon.keras, "keras")):
            try:
                __import__(name)
                continue  # installed here: nothing to check
            except ImportError:
                pass
            with self.assertRaises(ImportError) as cm:
                mod.GpumonCallback(data_dir=self.data)
            self.assertIn(name, str(cm.exception))


class TestWithoutAgent(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gmpn.", dir="/tmp")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_run_goes_on(self):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with gpumon.Run(data_dir=self.dir) as run:
                self.assertFalse(run.step(1, loss=0.5))
                self.assertFalse(run.step(2, loss=0.5))
        self.assertEqual(run.errors, 4)  # start, two steps, end
        self.assertEqual(len(w), 1)
        self.assertIs(w[0].category, RuntimeWarning)
        self.assertIn("no gpumon agent is running", str(w[0].message))

    def test_required(self):
        with self.assertRaises(gpumon.NoAgentError):
            with gpumon.Run(data_dir=self.dir, required=True):
                pass
        with self.assertRaises(gpumon.NoAgentError):
            gpumon.Client(data_dir=self.dir).mark("x")

    def test_bad_input_raises_before_sending(self):
        run = gpumon.Run(data_dir=self.dir)
        for kw, exc in (({"loss": float("nan")}, ValueError), ({"loss": float("inf")}, ValueError),
                        ({"lo ss": 1.0}, ValueError), ({"1x": 1.0}, ValueError),
                        ({"l\u00f6ss": 1.0}, ValueError), ({"x" * 65: 1.0}, ValueError),
                        ({"loss": "high"}, TypeError), ({"loss": None}, TypeError),
                        ({f"v{i}": 1 for i in range(33)}, ValueError)):
            with self.assertRaises(exc, msg=kw):
                run.step(1, **kw)
        for n, exc in ((-1, ValueError), (1.5, TypeError), (2 ** 63, ValueError),
                       (True, TypeError)):
            with self.assertRaises(exc, msg=n):
                run.step(n)
        self.assertEqual(run.errors, 0)  # nothing was sent
        c = gpumon.Client(data_dir=self.dir)
        for text in ("a\nb", "a\rb", "a\0b", "\u00e9" * 2049, "\udc80"):
            with self.assertRaises(ValueError, msg=repr(text[:8])):
                c.mark(text)
        with self.assertRaises(ValueError):
            gpumon.Client(data_dir=self.dir, task=".hidden")

    def test_old_agent(self):
        # an agent of protocol 1 answers HELLO and STEP "ERR unknown request"
        path = os.path.join(self.dir, "agent.sock")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(4)
        got = []

        def serve():
            for _ in range(3):
                conn, _ = srv.accept()
                with conn:
                    buf = b""
                    while not buf.endswith(b"\n"):
                        buf += conn.recv(4096)
                    got.append(buf.decode())
                    conn.sendall(b"OK\n" if buf.startswith(b"MARK ") else
                                 b"ERR unknown request\n")
        t = threading.Thread(target=serve, daemon=True)
        t.start()
        c = gpumon.Client(data_dir=self.dir)
        self.assertEqual(c.hello()["version"], 1)
        with self.assertRaises(gpumon.RefusedError) as cm:
            c.step(1, loss=0.5)
        self.assertIn("older than the STEP request", str(cm.exception))
        c.mark("epoch 1")
        t.join(5)
        srv.close()
        self.assertEqual(got[2].split(" ", 3)[3], "epoch 1\n")

    def test_default_data_dir(self):
        cfgdir = os.path.join(self.dir, "cfg")
        os.makedirs(os.path.join(cfgdir, "gpumon"))
        env = {"XDG_CONFIG_HOME": cfgdir, "HOME": self.dir, "XDG_STATE_HOME": "",
               "STATE_DIRECTORY": ""}
        old = {k: os.environ.get(k) for k in env}
        try:
            os.environ.update(env)
            if os.geteuid() == 0:
                self.assertEqual(gclient.default_data_dir(), "/var/lib/gpumon")
            else:
                self.assertEqual(gclient.default_data_dir(),
                                 os.path.join(self.dir, ".local", "state", "gpumon"))
            os.environ["STATE_DIRECTORY"] = "/srv/a:/srv/b"
            self.assertEqual(gclient.default_data_dir(), "/srv/a")
            # the config file wins; root reads /etc/gpumon/gpumon.conf instead
            if os.geteuid() != 0:
                with open(os.path.join(cfgdir, "gpumon", "gpumon.conf"), "w") as f:
                    f.write("[exporter]\ndata-dir = /wrong\n[agent]\ndata-dir = /data/gm ; c\n")
                self.assertEqual(gclient.default_data_dir(), "/data/gm")
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


def _builder():
    """A python3 that can build the package offline: this one, else Debian's
    (python3-pip, python3-setuptools, python3-wheel), else None."""
    probe = ("import setuptools, pip, importlib.util as u\n"
             "ok = u.find_spec('wheel') or u.find_spec('setuptools.command.bdist_wheel')\n"
             "raise SystemExit(0 if ok else 1)")
    for py in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(py) and subprocess.run([py, "-c", probe],
                                                 capture_output=True).returncode == 0:
            return py
    return None


def _documented_installs():
    """The pip commands README.md and docs/python.md give for installing from
    the checkout (`pip install ... ./python`), as written."""
    cmds = []
    for doc in ("README.md", os.path.join("docs", "python.md")):
        with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
            for line in f:
                for m in re.finditer(r"\bpip install [^`#\n]*?\./python\b", line):
                    cmds.append((doc, m.group(0)))
    return cmds


class TestPipInstall(unittest.TestCase):
    def test_documented_commands_offline(self):
        """Every install command the docs give works with no network (no
        index: pip's isolated build would fetch setuptools and fail)."""
        py = _builder()
        if not py:
            self.skipTest("no python3 here has pip, setuptools and a bdist_wheel (setuptools "
                          ">= 70.1 or wheel): pip cannot build the package without the network")
        cmds = _documented_installs()
        self.assertTrue(cmds, "README.md and docs/python.md give no pip install ./python")
        for doc, cmd in cmds:
            d = tempfile.mkdtemp(prefix="gmpip.", dir="/tmp")
            try:
                shutil.copytree(PYDIR, os.path.join(d, "python"),
                                ignore=shutil.ignore_patterns("__pycache__", "tests", "build",
                                                              "*.egg-info"))
                argv = shlex.split(cmd)
                self.assertEqual(argv[:2], ["pip", "install"], cmd)
                target = os.path.join(d, "site")
                p = subprocess.run([py, "-m"] + argv + ["--quiet", "--no-deps", "--target", target],
                                   capture_output=True, text=True, timeout=180, cwd=d,
                                   env=dict(os.environ, PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull,
                                            PIP_DISABLE_PIP_VERSION_CHECK="1",
                                            PIP_ROOT_USER_ACTION="ignore"))
                self.assertEqual(p.returncode, 0, f"{doc}: {cmd} offline: {p.stdout}{p.stderr}")
                p = subprocess.run([py, "-c", "import gpumon.client; print(gpumon.__file__)"],
                                   capture_output=True, text=True, cwd=d, timeout=30,
                                   env=dict(os.environ, PYTHONPATH=target))
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertTrue(p.stdout.startswith(target), p.stdout)
            finally:
                shutil.rmtree(d, ignore_errors=True)

    def test_pip_install_from_source_tree(self):
        py = _builder()
        if not py:
            self.skipTest("no python3 here has pip, setuptools and a bdist_wheel (setuptools "
                          ">= 70.1 or wheel): pip cannot build the package without the network")
        d = tempfile.mkdtemp(prefix="gmpip.", dir="/tmp")
        try:
            src = os.path.join(d, "src")
            shutil.copytree(PYDIR, src, ignore=shutil.ignore_patterns("__pycache__", "tests",
                                                                      "build", "*.egg-info"))
            target = os.path.join(d, "site")
            p = subprocess.run([py, "-m", "pip", "install", "--quiet", "--no-index",
                                "--no-build-isolation", "--no-deps", "--target", target, src],
                               capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1",
                                        PIP_ROOT_USER_ACTION="ignore"))
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            for f in ("__init__.py", "__main__.py", "client.py", "lightning.py", "keras.py"):
                self.assertTrue(os.path.exists(os.path.join(target, "gpumon", f)), f)
            p = subprocess.run([py, "-m", "gpumon", "mark", "--data-dir",
                                os.path.join(d, "none"), "x"], capture_output=True, text=True,
                               cwd=d, env=dict(os.environ, PYTHONPATH=target), timeout=30)
            self.assertEqual(p.returncode, 1)
            self.assertIn("no gpumon agent is running", p.stderr)
        finally:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()

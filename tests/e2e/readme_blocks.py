#!/usr/bin/env python3
"""README.md and docs/*.md show what gpumon prints: every console block of
those pages is run on the simulator and its output compared with the page,
the way Rust runs doc tests (issue 26, "The README is tested").  A page that
drifts from the program fails `make check`.

The blocks.  A fenced block (no info string, or `console`) whose first
line starts with `$ ` is a console block: each `$ ` line is a command (a
line ending in `\\` continues on the next), the lines after it up to the
next `$ ` line are its expected output, stdout and stderr together as a
terminal shows them.  Blocks of `sh`, `ini`, `python`, `c`, `cron`, ...
are listings without output: counted, not run.

Markers, HTML comments on the lines just before the opening fence
(GitHub does not show them); several may follow each other:

  <!-- doctest: skip (REASON) -->     not run here (systemd, Kubernetes,
                                      apt, podman, a full-screen view, ...)
  <!-- doctest: pending NAME -->      the page shows the intended output of
                                      work named NAME that is not merged yet;
                                      not run; listed so it can be turned on
  <!-- doctest: setup COMMANDS -->    shell commands run first, hidden
                                      (environment variables, files); their
                                      output is not compared, they must
                                      exit 0 (several setup lines run as
                                      one script); their variables and working
                                      directory (and those of the block's
                                      own commands) hold for this block only;
                                      what they start in the background
                                      (with its output redirected: `cmd
                                      >/dev/null 2>&1 &`) runs until the
                                      block ends, then gets SIGTERM
  <!-- doctest: timeout SECONDS -->   limit per command (default 60)

Placeholders in the expected output, for what differs from run to run:

  [...]     any text within one line (also none)
  ...       a line of only three dots: any number of lines (also none)
  <DATE>    a date: 2026-12-02
  <TIME>    a date and time: 2026-12-02 10:19:03, 2026-12-03T12:52:53.833+00:00,
            2026/12/02 10:19:03.123, with or without an offset
  <HOST>    a host name (no blank)
  <PID>     a process id (digits)
  <USER>    a user name (the simulator's processes are the caller's)
  <PATH>    a path (no blank)
  <N>       a number: 12, -3, 0.97

Trailing blanks of each line and blank lines at the end of the output are
not compared (nvidia-smi's tables pad lines; pages trim them).

How they run.  Each page's blocks run in order, in a fresh temporary
directory holding a copy of scenarios/, tests/fixtures/doctor/ and
docs/run.md (what the pages' commands name), with the built gpumon on PATH as `gpumon` (a symlink
in a temporary bin directory), LC_ALL=C.UTF-8, COLUMNS unset, NO_COLOR=1
and no terminal, TZ=UTC, HOME, TMPDIR and the XDG directories in the
temporary directory, and systemd's STATE_DIRECTORY and CONFIGURATION_DIRECTORY there
too, so that gpumon's default data directory and configuration file are
the temporary ones whoever runs the test (root's would be /var/lib/gpumon
and /etc/gpumon).  No GPUSIM_* or GPUMON_* variable comes from outside;
GPUMON_SIM_LIB is the built simulator (a setup line selects it with
GPUMON_NVML_LIB=$GPUMON_SIM_LIB where a page's command has no --sim).  A command runs in its own
bash; the shell variables and the working directory it leaves are carried
to the next command of the page (`cd "$fx"`, `vis=$(...)`), and a command
that runs past its timeout is killed with its process group and fails.

The output ends with one line per page and a total: blocks passed, failed,
skipped (by reason), pending (by name, with each block's line), and
listings not run.  Before the pages, the matcher and the runner check
themselves on planted pages (a drifted line must fail).

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.  Arguments: pages to
run instead of README.md and docs/*.md (relative to SOURCE_ROOT);
--pending also runs the pending blocks and reports their differences (to
see what is left before a marker is removed; not what make check runs).
"""
import difflib
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.environ.get("SOURCE_ROOT") or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
GPUMON = os.environ.get("GPUMON") or os.path.join(ROOT, "build", "src", "gpumon")
SIM_LIB = os.environ.get("SIM_LIB") or os.path.join(ROOT, "build", "sim", "libnvidia-ml.so.1")
COPIED = ["scenarios", os.path.join("tests", "fixtures", "doctor"), os.path.join("docs", "run.md")]
DEFAULT_TIMEOUT = 60
CONSOLE_INFO = ("", "console")

PLACEHOLDERS = {
    "[...]": r".*?",
    "<DATE>": r"\d{4}-\d\d-\d\d",
    "<TIME>": r"\d{4}[-/]\d\d[-/]\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?: ?(?:[+-]\d\d:?\d\d|Z))?",
    "<HOST>": r"\S+",
    "<PID>": r"\d+",
    "<USER>": r"[A-Za-z0-9_.$-]+",
    "<PATH>": r"\S+",
    "<N>": r"-?\d+(?:\.\d+)?",
}
PLACEHOLDER_RE = re.compile("|".join(re.escape(p) for p in PLACEHOLDERS))
MARKER_RE = re.compile(r"^<!--\s*doctest:\s*(skip|pending|setup|timeout)\b\s*(.*?)\s*-->\s*$")
COMMENT_RE = re.compile(r"^<!--.*-->\s*$")


class Block:
    def __init__(self, page, line, info):
        self.page, self.line, self.info = page, line, info
        self.body = []          # (line number, text)
        self.skip = self.pending = None
        self.setup = []
        self.timeout = DEFAULT_TIMEOUT

    def where(self, line=None):
        return f"{self.page}:{self.line if line is None else line}"

    def commands(self):
        """[(line, command, [expected lines])] of a console block."""
        out, i = [], 0
        while i < len(self.body):
            no, text = self.body[i]
            if not text.startswith("$ "):
                raise ValueError(f"{self.where(no)}: output before the first '$ ' command")
            cmd = text[2:]
            while cmd.endswith("\\") and i + 1 < len(self.body):
                i += 1
                cmd = cmd + "\n" + self.body[i][1]
            i += 1
            expected = []
            while i < len(self.body) and not self.body[i][1].startswith("$ "):
                expected.append(self.body[i][1])
                i += 1
            out.append((no, cmd, expected))
        return out


def parse(page, text):
    """The fenced blocks of a Markdown page with their doctest markers."""
    lines = text.split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = re.match(r"^(`{3,})\s*([\w+-]*)", lines[i])
        if not m:
            i += 1
            continue
        fence, b = m.group(1), Block(page, i + 1, m.group(2))
        j = i - 1
        while j >= 0 and COMMENT_RE.match(lines[j]):
            mk = MARKER_RE.match(lines[j])
            if mk:
                kind, arg = mk.groups()
                if kind == "skip":
                    b.skip = arg.strip("()") or "no reason given"
                elif kind == "pending":
                    b.pending = arg or "no name given"
                elif kind == "setup":
                    b.setup.insert(0, arg)
                else:
                    b.timeout = float(arg)
            elif "doctest" in lines[j]:
                raise ValueError(f"{page}:{j + 1}: unknown doctest marker: {lines[j]}")
            j -= 1
        i += 1
        while i < len(lines) and not lines[i].startswith(fence):
            b.body.append((i + 1, lines[i]))
            i += 1
        i += 1
        blocks.append(b)
    return blocks


def is_console(b):
    first = next((t for _, t in b.body if t.strip()), "")
    return b.info in CONSOLE_INFO and first.startswith("$ ")


def pattern(expected):
    """A regular expression for a block's expected output (placeholders)."""
    parts = []
    for line in expected:
        line = line.rstrip()
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
            continue
        out, pos = [], 0
        for m in PLACEHOLDER_RE.finditer(line):
            out.append(re.escape(line[pos:m.start()]))
            out.append(PLACEHOLDERS[m.group(0)])
            pos = m.end()
        out.append(re.escape(line[pos:]))
        parts.append("".join(out) + r"\n")
    return re.compile("".join(parts))


def normalise(text):
    lines = [ln.rstrip() for ln in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "".join(ln + "\n" for ln in lines)


def matches(expected, actual):
    while expected and not expected[-1].strip():
        expected = expected[:-1]
    return pattern(expected).fullmatch(normalise(actual)) is not None


class Shell:
    """Commands in bash, one process each, carrying variables and cwd."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.cwd = os.path.join(tmp, "work")
        self.state = os.path.join(tmp, "state.sh")
        with open(self.state, "w", encoding="utf-8") as f:
            f.write("")
        home = os.path.join(tmp, "home")
        bindir = os.path.join(tmp, "bin")
        for d in (home, bindir, self.cwd):
            os.makedirs(d, exist_ok=True)
        os.symlink(os.path.abspath(GPUMON), os.path.join(bindir, "gpumon"))
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("GPUSIM_", "GPUMON_", "XDG_", "LC_", "NO_COLOR"))
               and k not in ("COLUMNS", "LINES", "LANG", "LANGUAGE", "TERM", "HOME", "TZ",
                             "PATH", "TMPDIR", "SOURCE_ROOT", "SIM_LIB", "SIM_LIB_LEGACY",
                             "STATE_DIRECTORY", "CONFIGURATION_DIRECTORY", "LOGS_DIRECTORY",
                             "RUNTIME_DIRECTORY", "CACHE_DIRECTORY", "JOURNAL_STREAM",
                             "INVOCATION_ID", "NOTIFY_SOCKET")}
        env.update(PATH=bindir + ":/usr/local/bin:/usr/bin:/bin", LC_ALL="C.UTF-8",
                   NO_COLOR="1", HOME=home, TERM="dumb", TZ="UTC",
                   XDG_CONFIG_HOME=os.path.join(home, ".config"),
                   XDG_STATE_HOME=os.path.join(home, ".local", "state"),
                   XDG_DATA_HOME=os.path.join(home, ".local", "share"),
                   XDG_RUNTIME_DIR=os.path.join(tmp, "run"),
                   TMPDIR=os.path.join(tmp, "tmp"),
                   GPUMON_SIM_LIB=os.path.abspath(SIM_LIB),
                   STATE_DIRECTORY=os.path.join(tmp, "var", "lib", "gpumon"),
                   CONFIGURATION_DIRECTORY=os.path.join(tmp, "etc", "gpumon"))
        os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)
        os.makedirs(env["TMPDIR"], exist_ok=True)
        os.makedirs(env["STATE_DIRECTORY"], mode=0o700, exist_ok=True)
        os.makedirs(env["CONFIGURATION_DIRECTORY"], exist_ok=True)
        for src in COPIED:
            if os.path.isdir(os.path.join(ROOT, src)):
                shutil.copytree(os.path.join(ROOT, src), os.path.join(self.cwd, src),
                                symlinks=True)
            else:
                os.makedirs(os.path.dirname(os.path.join(self.cwd, src)), exist_ok=True)
                shutil.copy2(os.path.join(ROOT, src), os.path.join(self.cwd, src))
        self.env = env
        self.groups = []

    def run(self, cmd, timeout, keep=False):
        """(exit status or None on timeout, output).  With keep, what the
        command leaves running in its process group is left running (the
        caller stops it with stop())."""
        cwdfile = os.path.join(self.tmp, "cwd")
        script = (f". {shq(self.state)}\nset -a\n{cmd}\n__rc=$?\nset +a\n"
                  f"export -p | grep -v -E '^declare -x (__rc|OLDPWD|PWD|SHLVL|_)=' "
                  f"> {shq(self.state)}.new && mv {shq(self.state)}.new {shq(self.state)}\n"
                  f"pwd > {shq(cwdfile)}\nexit $__rc\n")
        p = subprocess.Popen(["bash", "-c", script], cwd=self.cwd, env=self.env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            rc = None
        if keep and rc is not None:
            self.groups.append(p.pid)
        else:
            self.stop([p.pid])  # what it left behind in its group
        try:
            with open(cwdfile, encoding="utf-8") as f:
                self.cwd = f.read().strip() or self.cwd
            os.unlink(cwdfile)
        except FileNotFoundError:
            pass
        return rc, out.decode("utf-8", errors="replace")

    def stop(self, groups=None):
        """SIGTERM, then after 10 s SIGKILL, to the process groups."""
        groups = self.groups if groups is None else groups
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for g in groups:
                try:
                    os.killpg(g, sig)
                except ProcessLookupError:
                    pass
            for _ in range(100):
                if not any(alive(g) for g in groups):
                    break
                time.sleep(0.1)
        del groups[:]

    def save(self):
        with open(self.state, encoding="utf-8") as f:
            return f.read(), self.cwd

    def restore(self, saved):
        with open(self.state, "w", encoding="utf-8") as f:
            f.write(saved[0])
        self.cwd = saved[1]


def alive(group):
    try:
        os.killpg(group, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def shq(s):
    return "'" + s.replace("'", "'\\''") + "'"


def run_page(page, text, log, run_pending=False):
    """Runs one page's blocks; returns (counts, failures, pending list)."""
    counts = {"passed": 0, "failed": 0, "listings": 0}
    skipped, pending, failures = {}, [], []
    blocks = parse(page, text)
    with tempfile.TemporaryDirectory(prefix="gm-readme-") as tmp:
        sh = None
        for b in blocks:
            if not is_console(b):
                if b.skip:
                    skipped[b.skip] = skipped.get(b.skip, 0) + 1
                elif b.pending:
                    pending.append((b.pending, b.where()))
                else:
                    counts["listings"] += 1
                continue
            if b.skip:
                skipped[b.skip] = skipped.get(b.skip, 0) + 1
                continue
            if b.pending:
                pending.append((b.pending, b.where()))
                if not run_pending:
                    continue
            if sh is None:
                sh = Shell(tmp)
            ok = True
            saved = sh.save() if b.setup else None
            if b.setup:
                setup = "\n".join(b.setup)
                rc, out = sh.run(setup, b.timeout, keep=True)
                if rc != 0:
                    failures.append(f"{b.where()}: setup '{setup}' "
                                    + (f"exited {rc}" if rc is not None else
                                       f"ran past {b.timeout:g} s") + f":\n{out}")
                    ok = False
            for no, cmd, expected in (b.commands() if ok else []):
                rc, out = sh.run(cmd, b.timeout)
                if rc is None:
                    failures.append(f"{b.where(no)}: '{cmd}' ran past {b.timeout:g} s "
                                    f"(a doctest: timeout marker, or a bounded command)\n"
                                    + out)
                    ok = False
                    break
                if not matches(expected, out):
                    diff = "".join(difflib.unified_diff(
                        [e.rstrip() + "\n" for e in expected], normalise(out).splitlines(True),
                        f"{b.where(no)} (the page)", f"what '{cmd}' prints (exit {rc})"))
                    failures.append(f"{b.where(no)}: the output of '{cmd}' differs from the "
                                    f"page:\n{diff}")
                    ok = False
            if saved:
                sh.stop()
                sh.restore(saved)
            if b.pending:
                log(f"{'ok  ' if ok else 'FAIL'} {b.where()} (pending {b.pending})")
                continue
            counts["passed" if ok else "failed"] += 1
            log(f"{'ok  ' if ok else 'FAIL'} {b.where()}")
    return counts, skipped, pending, failures


def summary(page, counts, skipped, pending):
    parts = [f"{counts['passed']} passed", f"{counts['failed']} failed"]
    parts.append(f"{sum(skipped.values())} skipped" +
                 (" (" + "; ".join(f"{r}: {n}" for r, n in sorted(skipped.items())) + ")"
                  if skipped else ""))
    parts.append(f"{len(pending)} pending" +
                 (" (" + "; ".join(f"{n}: {w}" for n, w in pending) + ")" if pending else ""))
    parts.append(f"{counts['listings']} listings without output not run")
    return f"{page}: " + ", ".join(parts)


def self_test():
    """The matcher and the runner on planted text: drift must fail."""
    cases = [  # expected lines, actual output, should match
        (["a  b"], "a  b  \n\n", True),
        (["a  b"], "a  c\n", False),
        (["x [...] z"], "x yyy z\n", True),
        (["x [...] z"], "x yyy\nz\n", False),
        (["one", "...", "four"], "one\ntwo\nthree\nfour\n", True),
        (["one", "...", "four"], "one\nfour\n", True),
        (["one", "...", "four"], "one\ntwo\n", False),
        (["at <TIME> on <HOST>"], "at 2026-12-03T12:52:53.833+00:00 on gpu-node-07\n", True),
        (["at <TIME>"], "at yesterday\n", False),
        (["pid <PID> used <N> W"], "pid 4242 used 61.5 W\n", True),
        (["pid <PID>"], "pid 42a\n", False),
        (["a(b)*c"], "a(b)*c\n", True),
        (["a(b)*c"], "abbc\n", False),
        ([], "\n", True),
        ([], "surprise\n", False),
    ]
    for expected, actual, want in cases:
        if matches(expected, actual) != want:
            sys.exit(f"FAIL: self-test: {expected!r} against {actual!r} should "
                     f"{'' if want else 'not '}match")
    page = ("<!-- doctest: setup export WORD=hello -->\n```console\n$ echo $WORD; x=1\nhello\n"
            "$ cd scenarios && echo $x\n1\n```\n```\n$ pwd; echo ${WORD:-unset}\n[...]/work\nunset\n"
            "$ echo drift\nno drift\n```\n<!-- doctest: timeout 1 -->\n```\n$ sleep 30\n```\n"
            "<!-- doctest: pending alive -->\n```\n$ false\n```\n"
            "<!-- doctest: skip (systemd) -->\n```console\n$ systemctl status\n```\n"
            "```sh\nnot run\n```\n")
    counts, skipped, pending, failures = run_page("planted.md", page, lambda s: None)
    want = ({"passed": 1, "failed": 2, "listings": 1}, {"systemd": 1},
            [("alive", "planted.md:20")])
    if (counts, skipped, pending) != want or len(failures) != 2 \
            or "planted.md:12: the output of 'echo drift'" not in failures[0] \
            or "ran past 1 s" not in failures[1]:
        sys.exit(f"FAIL: self-test on a planted page: {counts} {skipped} {pending}\n"
                 + "\n".join(failures))
    print("self-test: the matcher and the runner fail on drift, a timeout and a wrong line")


def main():
    if not os.access(GPUMON, os.X_OK):
        sys.exit(f"FAIL: no gpumon at {GPUMON} (set GPUMON)")
    self_test()
    args = sys.argv[1:]
    run_pending = "--pending" in args
    args = [a for a in args if a != "--pending"]
    pages = args or (["README.md"] + sorted(
        os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))))
    total = {"passed": 0, "failed": 0, "listings": 0}
    all_skipped, all_pending, all_failures = {}, [], []
    for page in pages:
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            text = f.read()
        try:
            counts, skipped, pending, failures = run_page(page, text, print, run_pending)
        except ValueError as e:
            all_failures.append(str(e))
            continue
        if any(counts[k] for k in ("passed", "failed")) or skipped or pending:
            print(summary(page, counts, skipped, pending))
        for k in total:
            total[k] += counts[k]
        for r, n in skipped.items():
            all_skipped[r] = all_skipped.get(r, 0) + n
        all_pending += pending
        all_failures += failures
    for f in all_failures:
        print("\nFAIL: " + f)
    print("\n" + summary(f"total ({len(pages)} pages)", total, all_skipped, all_pending))
    return 1 if all_failures else 0


if __name__ == "__main__":
    sys.exit(main())

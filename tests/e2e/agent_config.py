#!/usr/bin/env python3
"""The agent's configuration errors, as a person sees them.

  check_bad_files:  `gpumon config check FILE` prints exactly `FILE:LINE:
                    reason` on stderr (nothing on stdout) and exits 2 for an
                    unknown key, an unknown section, a bad duration, a value
                    out of range, a duplicate key, a bad column and more; the
                    agent started with such a file exits 2 with the same text
                    and creates nothing.
  check_good_files: a valid file (and contrib/gpumon.conf) exits 0 silently;
                    `config show` applies flags over the file.
  bad_flags:        `gpumon agent --interval 50ms` (and other bad flags) exit
                    2 naming the flag, before anything starts.
  columns_agree:    a column list the agent refuses (a field given twice, only
                    the time) is refused by `config check` too, with FILE:LINE,
                    and as a flag with exit 2 like every other bad value.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os

from agentlib import ROOT, Scratch, check, check_eq, main, run, sim_env

BAD = [
    # name, file text, line, reason
    ("unknown_key", "[agent]\ninterval = 5s\nfoo = 1\n", 3, 'unknown key "foo" in [agent]'),
    ("unknown_section", "# gpumon\n[agnet]\ninterval = 5s\n", 2, "unknown section [agnet]"),
    ("empty_unknown_section", "[agent]\ninterval = 5s\n\n[agent.old]\n", 4,
     "unknown section [agent.old]"),
    ("bad_duration", "[agent]\n\ninterval = 10x\n", 3,
     'invalid duration "10x" (examples: 500ms, 10s, 1m, 14d, 3y)'),
    ("out_of_range", "[agent]\ninterval = 50ms\n", 2,
     'interval "50ms" is out of range (0.1 s to 3600 s)'),
    ("out_of_range_high", "[agent]\ninterval = 2h\n", 2,
     'interval "2h" is out of range (0.1 s to 3600 s)'),
    ("duplicate_key", "[agent]\ninterval = 5s\ntask = a\ninterval = 6s\n", 4,
     'duplicate key "interval" in [agent]'),
    ("bad_column", "[agent]\ncolumns = index,bogus.field\n", 2,
     'unknown column "bogus.field" (see gpumon query --help-query-gpu)'),
    ("process_column", "[agent]\ncolumns = index,pid\n", 2,
     'unknown column "pid" (see gpumon query --help-query-gpu)'),
    ("empty_column", "[agent]\ncolumns = index,,uuid\n", 2,
     'empty or overlong column name in "index,,uuid"'),
    ("bad_boolean", "[agent]\nprocs = maybe\n", 2, 'invalid boolean "maybe" (true or false)'),
    ("bad_enum", "[agent]\nlog-level = loud\n", 2,
     'invalid value "loud" (one of: error|warning|notice|info|debug)'),
    ("bad_number", "[agent]\nqueue-size = 1\n", 2, 'invalid number "1" (2 to 65536)'),
    ("bad_task", "[agent]\ntask = a/b\n", 2,
     "invalid task \"a/b\" (1-63 letters, digits, '.', '_', '-'; it is part of file names)"),
    ("no_section", "interval = 5s\n", 1, 'key "interval" belongs in [agent], not []'),
    ("syntax", "[agent]\ninterval\n", 2, 'syntax error (expected "key = value" or [section])'),
]


def test_check_bad_files():
    env = sim_env(pinned=100)
    with Scratch("cfg") as d:
        for name, text, line, reason in BAD:
            path = os.path.join(d, name + ".conf")
            with open(path, "w") as f:
                f.write(text)
            rc, out, err = run(["config", "check", path], env)
            check_eq((rc, out, err), (2, "", f"{path}:{line}: {reason}\n"),
                     f"config check {name}.conf (status, stdout, stderr)")
            data = os.path.join(d, "data-" + name)
            rc, out, err = run(["agent", "--config", path, "--data-dir", data], env, timeout=10)
            check_eq((rc, err), (2, f"gpumon: error: {path}:{line}: {reason}\n"),
                     f"agent --config {name}.conf (status, stderr)")
            check(not os.path.exists(data), f"agent --config {name}.conf created its data dir")
        rc, out, err = run(["config", "check", os.path.join(d, "missing.conf")], env)
        check_eq(rc, 2, "config check of a missing file", err)
        check("missing.conf: No such file or directory" in err, "names the missing file", err)


def test_check_good_files():
    env = sim_env(pinned=100)
    with Scratch("cfg") as d:
        path = os.path.join(d, "good.conf")
        with open(path, "w") as f:
            f.write("; comment\n[agent]\ninterval = 500ms\ntask = run-1.a_b\ncolumns = index, "
                    "utilization.gpu,memory.used\nprocs = yes\nretention = 0\ncsv-sync = second\n"
                    "log-level = debug\nqueue-size = 2\n")
        for p in (path, os.path.join(ROOT, "contrib", "gpumon.conf")):
            rc, out, err = run(["config", "check", p], env)
            check_eq((rc, out, err), (0, "", ""), f"config check {p} (status, stdout, stderr)")
        rc, out, err = run(["config", "show", "--config", path, "--interval", "2s"], env)
        check_eq(rc, 0, "config show exit status", err)
        lines = out.splitlines()
        for want in ("interval = 2s", "task = run-1.a_b", "procs = true", "retention = 0s",
                     "csv-sync = second", "queue-size = 2"):
            check(want in lines, f"config show has {want!r}", out)


def test_bad_flags():
    env = sim_env(pinned=100)
    with Scratch("flg") as d:
        data = os.path.join(d, "data")
        for args, text in (
                (["--interval", "50ms"],
                 'gpumon: error: --interval: interval "50ms" is out of range (0.1 s to 3600 s)'),
                (["--interval=50ms"],
                 'gpumon: error: --interval: interval "50ms" is out of range (0.1 s to 3600 s)'),
                (["--retention", "10x"], 'gpumon: error: --retention: invalid duration "10x"'),
                (["--bogus"], "gpumon: error: unknown option --bogus"),
                (["--interval"], "gpumon: error: --interval needs a value"),
                (["--task", "a b"], 'gpumon: error: --task: invalid task "a b"'),
                (["--columns", "nope"], 'gpumon: error: --columns: unknown column "nope"')):
            for cmd in ("agent", "record"):
                rc, out, err = run([cmd, "--no-config", "--data-dir", data] + args, env,
                                   timeout=10)
                check_eq(rc, 2, f"gpumon {cmd} {' '.join(args)} exit status", err)
                check(err.startswith(text), f"gpumon {cmd} {' '.join(args)}: message", err)
                check(f"Try 'gpumon {cmd} --help'." in err, "points to --help", err)
                check(not os.path.exists(data), f"gpumon {cmd} {' '.join(args)} created files")


def test_columns_agree():
    env = sim_env(pinned=100)
    with Scratch("col") as d:
        for name, cols, word in (("twice", "index,uuid,index", '"index"'),
                                 ("time_only", "timestamp", "timestamp")):
            path = os.path.join(d, name + ".conf")
            with open(path, "w") as f:
                f.write(f"[agent]\ncolumns = {cols}\n")
            data = os.path.join(d, "data-" + name)
            rc_rec, _, err_rec = run(["record", "--once", "--config", path, "--data-dir", data],
                                     env, timeout=10)
            rc, out, err = run(["config", "check", path], env)
            if rc_rec == 0:  # the agent takes the list: so must config check
                check_eq((rc, err), (0, ""), f"config check of columns = {cols}")
                continue
            # the agent refuses the list: config check must say so, with the place
            check(rc == 2 and err.startswith(f"{path}:2: ") and word in err,
                  f"config check of columns = {cols}, which the agent refuses ({err_rec.strip()}"
                  f", exit {rc_rec}): want exit 2 and '{path}:2: ...{word}...', got exit {rc} "
                  f"and {err!r}")
            check(rc_rec == 2 and f"{path}:2: " in err_rec,
                  f"record --once --config with columns = {cols}: want exit 2 naming {path}:2, "
                  f"got exit {rc_rec} and {err_rec!r}")
            rc, out, err = run(["record", "--once", "--no-config", "--data-dir", data,
                                "--columns", cols], env, timeout=10)
            check(rc == 2 and "--columns" in err,
                  f"record --once --columns {cols}: want exit 2 naming --columns, got exit {rc} "
                  f"and {err!r}")


if __name__ == "__main__":
    main([test_check_bad_files, test_check_good_files, test_bad_flags, test_columns_agree])

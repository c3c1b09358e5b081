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
  long_lines:       a comment whose 200th character starts "interval = 1h"
                    (or "enabled = false" in a default rule's section), and a
                    300-character comment ending in one, change nothing;
                    a 280-character column list and a 400-character rule
                    summary are read whole (`config show`); a value too
                    long for its setting, a 1000-character key or section
                    name (shown cut at 64) and a NUL byte are FILE:LINE
                    errors, a file over 1 MiB a FILE one.
  syntax_kept:      the INI syntax of before (a BOM, CRLF, "key: value",
                    ";" and "#" comments, an inline "; comment", a ';' inside
                    a value, an indented key, a continuation line refused as
                    a duplicate) reads as it did.
  not_regular_files: `config check /dev/stdin` and `config show --config
                    /dev/stdin` read what is piped in (its error with
                    /dev/stdin:LINE, its settings); a FIFO reads the same;
                    a directory is "DIR: Is a directory", exit 2, for
                    `config check` and `agent --config`; an unreadable file
                    is "FILE: Permission denied" (not as root).
  columns_agree:    a column list the agent refuses (a field given twice, only
                    the time) is refused by `config check` too, with FILE:LINE,
                    and as a flag with exit 2 like every other bad value.
  show_reads_back:  what `config show` prints is a valid file that shows the
                    same again: also with a webhook without header or
                    ca-file, a default rule's keep-firing-for set to 0 or
                    scope changed, durations finer than 1 ms and values that
                    start with ';' (each once printed so that it read back
                    differently or not at all; found by tests/fuzz/fuzz_config).
  default_unreadable: with HOME not the caller's (uid 65534 through setpriv,
                    HOME a directory of root's, mode 0700), the default
                    config cannot be read: `run -- CMD` runs CMD (exit 0)
                    and `mark --data-dir D` reaches the agent (exit 0), each
                    with a warning naming the file; `--config` naming that
                    file stays an error (run 125, mark 2).  As root, else
                    skipped.  Before, run exited 125 without running CMD
                    and mark exited 2.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import shutil
import signal
import subprocess
import threading
import time

from agentlib import (GPUMON, ROOT, Scratch, Skip, check, check_eq, main, quiet_args, run,
                      sim_env)

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
    # the fleet's host list, checked by the fleet's own rules where it is read
    ("fleet_credentials", "[fleet]\nfleet = gpu01, u:secret@gpu02\n", 2,
     "host 'gpu02': credentials before '@' in a host (give them apart: gpumon fleet's --user "
     "and --password-file, the agent's fleet-user and fleet-password-file)"),
    ("fleet_path", "[fleet]\n\nfleet = gpu01/metrics\n", 3, "host 'gpu01/metrics': not a host[:port]"),
    ("fleet_port", "[fleet]\nfleet = gpu01:99999\n", 2, "host 'gpu01:99999': port not 1-65535"),
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
        # a setting that needs another: no line to name, the section and both keys
        path = os.path.join(d, "fleet_user.conf")
        with open(path, "w") as f:
            f.write("[fleet]\nfleet = gpu01\nfleet-user = u\n")
        rc, out, err = run(["config", "check", path], env)
        check_eq((rc, out, err), (2, "", "[fleet]: fleet-user and fleet-password-file go together\n"),
                 "config check of fleet-user without fleet-password-file")
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


def show(args, env, input=None):
    """`gpumon config show ARGS` -> its lines (exit status 0 checked)."""
    rc, out, err = run(["config", "show"] + args, env, input=input)
    check_eq(rc, 0, f"config show {' '.join(args)} exit status", err)
    return out.splitlines()


def rule_block(lines, name):
    """The lines of [alert.NAME] in `config show`'s output."""
    i = lines.index(f"[alert.{name}]")
    j = lines.index("", i) if "" in lines[i:] else len(lines)
    return lines[i:j]


LONG_COLUMNS = ("index, uuid, name, serial, pci.bus_id, vbios_version, pstate, fan.speed, "
                "temperature.gpu, temperature.memory, power.draw, power.limit, "
                "enforced.power.limit, utilization.gpu, utilization.memory, utilization.encoder, "
                "utilization.decoder, memory.total, memory.used, memory.free, "
                "clocks.current.graphics")


def test_long_lines():
    env = sim_env(pinned=100)
    with Scratch("long") as d:
        path = os.path.join(d, "long.conf")
        # comments whose 200th character starts a setting (a 200-byte line
        # reader took the rest for a line of its own), and a 300-character one
        c199 = "# " + "x" * 197
        c300 = "; " + "y" * (300 - 2 - len(" interval = 1h")) + " interval = 1h"
        text = (f"[agent]\n{c199}interval = 1h\n{c300}\ntask = t1\n\n"
                f"[alert.gpu-temperature-high]\n{c199}enabled = false\n")
        with open(path, "w") as f:
            f.write(text)
        rc, out, err = run(["config", "check", path], env)
        check_eq((rc, out, err), (0, "", ""), "config check of long comments")
        lines = show(["--config", path], env)
        check("interval = 10s" in lines, "a long comment set interval", lines[:5])
        check("task = t1" in lines, "the key after the long comments", lines[:5])
        check("enabled = false" not in rule_block(lines, "gpu-temperature-high"),
              "a long comment turned a default rule off", rule_block(lines, "gpu-temperature-high"))

        # long values are read whole
        summary = "GPU {{gpu}} is hot: " + "z" * 380
        with open(path, "w") as f:
            f.write(f"[agent]\ncolumns = {LONG_COLUMNS}\n\n[alert.gpu-temperature-high]\n"
                    f"summary = {summary}\n")
        rc, out, err = run(["config", "check", path], env)
        check_eq((rc, out, err), (0, "", ""), "config check of long values")
        lines = show(["--config", path], env)
        check(f"columns = {LONG_COLUMNS}" in lines, f"columns ({len(LONG_COLUMNS)} characters) "
              "not read whole", [x for x in lines if x.startswith("columns")])
        check(f"summary = {summary}" in rule_block(lines, "gpu-temperature-high"),
              "a 400-character summary not read whole", rule_block(lines, "gpu-temperature-high"))

        # too long for its setting, a NUL byte, a file over 1 MiB: FILE:LINE or FILE
        for name, data, want in (
                ("too_long", b"[agent]\ndata-dir = /" + b"d" * 5000 + b"\n",
                 f"{d}/too_long.conf:2: value too long (at most 4095 bytes)"),
                ("long_key", b"[agent]\n" + b"k" * 1000 + b" = 1\n",
                 f'{d}/long_key.conf:2: unknown key "' + "k" * 64 + '..." in [agent]'),
                ("long_section", b"[agent]\ninterval = 5s\n[" + b"s" * 1000 + b"]\n",
                 f'{d}/long_section.conf:3: unknown section [' + "s" * 64 + '...]'),
                ("nul", b"[agent]\ninterval = 5s\x00\n",
                 f"{d}/nul.conf:2: a NUL byte: not a text file"),
                ("huge", b"[agent]\n" + b"# padding\n" * 110000,
                 f"{d}/huge.conf: larger than 1048576 bytes; not a gpumon config")):
            p = os.path.join(d, name + ".conf")
            with open(p, "wb") as f:
                f.write(data)
            rc, out, err = run(["config", "check", p], env)
            check_eq((rc, out, err), (2, "", want + "\n"),
                     f"config check {name}.conf (status, stdout, stderr)")


def test_syntax_kept():
    """The INI syntax the file had before the reader was replaced."""
    env = sim_env(pinned=100)
    with Scratch("syn") as d:
        path = os.path.join(d, "syntax.conf")
        with open(path, "wb") as f:
            f.write("\ufeff; a comment\r\n[agent]\r\n  interval: 5s ; inline comment\r\n"
                    "# another\r\ntask=a_b\r\n\r\n[alert.gpu-temperature-high]\r\n"
                    "summary = hot;really ; not this\r\n".encode())
        rc, out, err = run(["config", "check", path], env)
        check_eq((rc, out, err), (0, "", ""), "config check of the old syntax")
        lines = show(["--config", path], env)
        for want in ("interval = 5s", "task = a_b"):
            check(want in lines, f"config show has {want!r}", lines[:5])
        check("summary = hot;really" in rule_block(lines, "gpu-temperature-high"),
              "an inline comment after a value", rule_block(lines, "gpu-temperature-high"))
        # an indented line after a key continues it: a duplicate here
        with open(path, "w") as f:
            f.write("[agent]\ninterval = 5s\n  6s\n")
        rc, out, err = run(["config", "check", path], env)
        check_eq((rc, out, err), (2, "", f'{path}:3: duplicate key "interval" in [agent]\n'),
                 "a continuation line")


def test_not_regular_files():
    env = sim_env(pinned=100)
    bad, reason = "[agent]\ninterval = 50ms\n", 'interval "50ms" is out of range (0.1 s to 3600 s)'
    with Scratch("pipe") as d:
        # a pipe (stdin), read once: its errors and its settings count
        rc, out, err = run(["config", "check", "/dev/stdin"], env, input=bad)
        check_eq((rc, out, err), (2, "", f"/dev/stdin:2: {reason}\n"),
                 "config check /dev/stdin with a bad file piped in")
        lines = show(["--config", "/dev/stdin"], env, input="[agent]\ninterval = 5s\n")
        check("interval = 5s" in lines, "config show --config /dev/stdin", lines[:5])

        # a FIFO
        fifo = os.path.join(d, "fifo.conf")
        os.mkfifo(fifo)

        def writer():
            with open(fifo, "w") as f:
                f.write(bad)
        t = threading.Thread(target=writer)
        t.start()
        rc, out, err = run(["config", "check", fifo], env, timeout=20)
        t.join(10)
        check_eq((rc, out, err), (2, "", f"{fifo}:2: {reason}\n"), "config check of a FIFO")

        # a directory: an error, for config check and the agent
        rc, out, err = run(["config", "check", d], env)
        check_eq((rc, out, err), (2, "", f"{d}: Is a directory\n"), "config check DIR")
        data = os.path.join(d, "data")
        rc, out, err = run(["agent", "--config", d, "--data-dir", data], env, timeout=10)
        check_eq((rc, err), (2, f"gpumon: error: {d}: Is a directory\n"), "agent --config DIR")
        check(not os.path.exists(data), "agent --config DIR created its data dir")

        # unreadable (root reads everything: only as another user)
        p = os.path.join(d, "secret.conf")
        with open(p, "w") as f:
            f.write("[agent]\n")
        os.chmod(p, 0)
        if os.geteuid() != 0:
            rc, out, err = run(["config", "check", p], env)
            check_eq((rc, out, err), (2, "", f"{p}: Permission denied\n"),
                     "config check of an unreadable file")
        else:
            print("  (running as root: the unreadable-file case is skipped)")


SHOW_CASES = [
    ("notify", "[notify.hook]\ntype = webhook\nurl = http://127.0.0.1:9/x\n"
               "[notify.am]\ntype = alertmanager\nurl = http://127.0.0.1:9\n"),
    ("default_rule_keys", "[alert.gpu-ecc-uncorrectable]\nkeep-firing-for = 0\n"
                          "[alert.driver-lost]\nscope = gpu\n"),
    ("fine_durations", "[agent]\ninterval = 100500us\n[alert.gpu-lost]\nfor = 1us\n"
                       "[notify.x]\ntype = exec\ncommand = /bin/true\ntimeout = 1500.5ms\n"),
    ("semicolon_values", "[agent]\ntask = t\nnvml-lib =;lib.so\n"
                         "[alert.gpu-lost]\nsummary =;) {{gpu}}\n"
                         "[notify.w]\ntype = webhook\nurl = http://127.0.0.1:9/\nbody =;\n"),
]


def test_show_reads_back():
    env = sim_env(pinned=100)
    with Scratch("show") as d:
        for name, text in SHOW_CASES:
            src, shown = os.path.join(d, name + ".conf"), os.path.join(d, name + ".shown")
            with open(src, "w") as f:
                f.write(text)
            first = show(["--config", src], env)
            with open(shown, "w") as f:
                f.write("\n".join(first) + "\n")
            rc, out, err = run(["config", "check", shown], env)
            check_eq((rc, out, err), (0, "", ""), f"{name}: config check of config show's output")
            again = show(["--config", shown], env)
            check_eq(again, first, f"{name}: config show of config show's output")
        # scope = host after a per-GPU clear: refused (it could never resolve)
        path = os.path.join(d, "scope.conf")
        with open(path, "w") as f:
            f.write("[alert.x]\nwhen = driver.lost\nclear = temperature.gpu < 5\nscope = host\n")
        rc, out, err = run(["config", "check", path], env)
        check_eq((rc, out), (2, ""), "config check of scope = host after a per-GPU clear")
        check(err.startswith(f"{path}:4: scope = host does not fit clear"), "its message", err)


def test_default_unreadable():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        raise Skip("needs root and setpriv (the commands as uid 65534)")
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    with Scratch("defu") as d:
        os.chmod(d, 0o755)
        home = os.path.join(d, "home")  # root's, like /root under `sudo -u`
        os.makedirs(os.path.join(home, ".config", "gpumon"))
        conf = os.path.join(home, ".config", "gpumon", "gpumon.conf")
        with open(conf, "w") as f:
            f.write("[agent]\ninterval = 5s\n")
        os.chmod(home, 0o700)
        data = os.path.join(d, "data")
        os.makedirs(data)
        os.chown(data, 65534, 65534)
        env = sim_env(pinned=100, HOME=home)
        env.pop("CONFIGURATION_DIRECTORY", None)

        def as_nobody(args, timeout=60):
            p = subprocess.run(nobody + [GPUMON] + args, env=env, capture_output=True, text=True,
                               timeout=timeout)
            return p.returncode, p.stderr

        warning = f"warning: cannot read the default configuration ({conf}: Permission denied)"
        ran = os.path.join(data, "ran")
        rc, err = as_nobody(["run", "--data-dir", data, "--", "sh", "-c", f"echo ran > {ran}"])
        check_eq(rc, 0, "run -- CMD with an unreadable default config", err)
        check(os.path.exists(ran), "CMD ran", err)
        check(warning in err, "run warns, naming the file", err)
        rc, err = as_nobody(["run", "--config", conf, "--data-dir", data, "--", "true"])
        check_eq(rc, 125, "run --config with that file: still an error", err)
        check(f"error: {conf}: Permission denied" in err, "the error names the file", err)

        agent = subprocess.Popen(nobody + [GPUMON, "agent", "--no-config", "--data-dir", data]
                                 + quiet_args(), env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 30
            while not os.path.exists(os.path.join(data, "agent.sock")):
                check(agent.poll() is None, "the agent (as uid 65534) died",
                      agent.stderr.read().decode(errors="replace") if agent.poll() else "")
                check(time.monotonic() < deadline, "no agent.sock within 30 s")
                time.sleep(0.05)
            rc, err = as_nobody(["mark", "--data-dir", data, "hello"])
            check_eq(rc, 0, "mark --data-dir with an unreadable default config", err)
            check(warning in err, "mark warns, naming the file", err)
            rc, err = as_nobody(["mark", "--config", conf, "--data-dir", data, "hello"])
            check_eq(rc, 2, "mark --config with that file: still an error", err)
            check(f"{conf}: Permission denied" in err, "the error names the file", err)
        finally:
            agent.send_signal(signal.SIGTERM)
            try:
                agent.wait(30)
            except subprocess.TimeoutExpired:
                agent.kill()
                agent.wait()


if __name__ == "__main__":
    main([test_check_bad_files, test_check_good_files, test_bad_flags, test_columns_agree,
          test_long_lines, test_syntax_kept, test_not_regular_files, test_show_reads_back,
          test_default_unreadable])

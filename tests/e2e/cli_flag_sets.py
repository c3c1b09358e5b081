#!/usr/bin/env python3
"""One option table per command, three outputs (issue 24): for every command
of `gpumon --help`, and for gpumon's own options, the flags its --help names
(the synopsis and the option lines), the flags its bash completion offers and
the flags its manual page names (SYNOPSIS and the OPTIONS entries) are the
same set.  All three are made from the command's table (src/cli/opt.h), so a
row that one of them leaves out, or a flag one of them invents, makes the
sets differ and the test fail, naming the command, the output and the flags.

The words are read as a person reads them, not by gpumon's own reader
(src/cli/cmdspec.c): a flag is a word that starts with '-' or '--' at the
start of a line's flags, after a blank, '[', '|' or ',' ("-i IDS, -l SEC",
"[--by hour|day]", "-lgip|-lgipp"); in a synopsis, only after the command's
name ("gpumon --sim S alerts test": not --sim).  Prose is not read.

Environment: GPUMON (the built binary).
"""
import os
import re
import subprocess
import sys
import tempfile

GPUMON = os.environ.get("GPUMON", "build/src/gpumon")

FLAG = re.compile(r"(?:^|(?<=[\s\[|,(]))(--?[A-Za-z0-9][A-Za-z0-9-]*)")


def run(args):
    p = subprocess.run([GPUMON] + args, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit("FAIL: gpumon %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def synopsis_flags(line, name):
    """The flags of one synopsis line after the command's name."""
    m = re.search(r"(?:^|\s)gpumon(?:\s+\S+)*?\s+%s(?=\s|$)" % re.escape(name), line) \
        if name != "gpumon" else None
    return set(FLAG.findall(line[m.end():] if m else line))


def left_column(line):
    """An option line's flags and argument names: up to two blanks."""
    s = line.strip()
    return re.split(r"\s{2,}", s, maxsplit=1)[0]


def help_flags(text, name):
    flags = set()
    in_usage = False
    for line in text.split("\n"):
        if line.startswith("usage: "):
            in_usage = True
            flags |= synopsis_flags(line[7:], name)
            continue
        if in_usage and line.startswith("       ") and line.strip():
            flags |= synopsis_flags(line, name)
            continue
        in_usage = False
        ind = len(line) - len(line.lstrip(" "))
        if 1 <= ind <= 8 and line[ind:ind + 1] == "-" and re.match(r"--?[A-Za-z0-9]", line[ind:]):
            flags |= set(FLAG.findall(left_column(line)))
    return flags


def completion_flags(script):
    """_gpumon_spec's case: the command ('' for gpumon) -> its _gpumon_flags."""
    out, cur = {}, None
    for line in script.split("\n"):
        m = re.match(r"^    (''|[a-z][a-z-]*)\)$", line)
        if m:
            cur = "gpumon" if m.group(1) == "''" else m.group(1)
            continue
        m = re.match(r"^        _gpumon_flags=\((.*)\)$", line)
        if m and cur:
            out[cur] = set(m.group(1).split())
            cur = None
    return out


def unroff(s):
    s = re.sub(r"\\f[BIRP]", "", s)
    return s.replace("\\-", "-").replace("\\(bv", "|").replace("\\e", "\\")


def man_flags(page, name):
    flags = set()
    sec, after_tp = None, False
    for raw in page.split("\n"):
        if raw.startswith(".SH "):
            sec = raw[4:].strip()
            continue
        if raw.startswith(".TP"):
            after_tp = True
            continue
        if raw.startswith("."):
            continue
        line = unroff(raw)
        if sec == "SYNOPSIS":
            flags |= synopsis_flags(line, name)
        elif sec == "OPTIONS" and after_tp:
            flags |= set(FLAG.findall(line))
        after_tp = False
    return flags


def main():
    top = run(["--help"])
    cmds = []
    in_cmds = False
    for line in top.split("\n"):
        if line == "Commands:":
            in_cmds = True
        elif in_cmds and not line.strip():
            break
        elif in_cmds:
            cmds.append(line.split()[0])
    if len(cmds) < 20:
        sys.exit("FAIL: only %d commands in gpumon --help" % len(cmds))
    comp = completion_flags(run(["completion", "bash"]))
    fails = []
    checked = 0

    def compare(name, sets):
        nonlocal checked
        union = set().union(*sets.values())
        if not union:
            fails.append("%s: no flag in any output" % name)
        for what, s in sets.items():
            missing = sorted(union - s)
            if missing:
                fails.append("%s: %s lacks %s" % (name, what, " ".join(missing)))
        checked += 1

    with tempfile.TemporaryDirectory() as d:
        run(["manpage", "--write", d])
        for c in cmds:
            with open(os.path.join(d, "man1", "gpumon-%s.1" % c), encoding="utf-8") as f:
                page = f.read()
            compare(c, {"--help": help_flags(run([c, "--help"]), c),
                        "completion": comp.get(c, set()),
                        "man page": man_flags(page, c)})
    # gpumon's own options: its --help's option lines and synopsis, and the
    # completion after 'gpumon' (its page, docs/gpumon.1, is hand-written)
    compare("gpumon", {"--help": help_flags(top, "gpumon"), "completion": comp.get("gpumon", set())})
    for f in fails:
        print("FAIL:", f)
    print("%d commands checked, %d differences" % (checked, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""No shipped text tells people to run a gpumon command that does not exist
(hardening point 17): every `gpumon WORD` written as a command in src/,
contrib/, docs/ and README.md names a command of `gpumon --help`.

A mention counts as a command where it is written as one: in backquotes or
single quotes (`gpumon doctor`, 'gpumon mark'), after "see", "run", "try"
or "use" (see gpumon doctor), at the start of a line of a Markdown code
block ($ gpumon ...), or after the man page's .B / \\fB.  Prose that names
the program ("gpumon on n1 cannot use NVML", "gpumon writes", "run gpumon
in the host's PID namespace") is not a command and is not checked.

A planned command may be named where the same line says it is planned (the
README's "A `gpumon doctor` command ... is planned and not yet built"): that
is the documentation of its absence, not an instruction.

Environment from meson: GPUMON, SOURCE_ROOT.
"""
import os
import re
import subprocess
import sys

ROOT = os.environ.get("SOURCE_ROOT") or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
GPUMON = os.environ.get("GPUMON") or os.path.join(ROOT, "build", "src", "gpumon")

WORD = r"([a-z][a-z0-9-]*)"
PATTERNS = [
    re.compile(r"[`']gpumon\s+" + WORD),                           # `gpumon x`, 'gpumon x'
    re.compile(r"\b(?:see|run|try|use)\s+gpumon\s+" + WORD, re.I),  # see gpumon x
    re.compile(r"(?:^\.BR?\s+|\\fB)gpumon\s+" + WORD),              # man page
]
# A line of a Markdown code block ($ gpumon x, or gpumon x).
CODE_LINE = re.compile(r"^\s*(?:\$\s+)?gpumon\s+" + WORD)
# English after "run gpumon" ("run gpumon in the host's PID namespace"):
# never a command name.
STOP = {"a", "and", "as", "at", "by", "for", "from", "in", "is", "of", "on", "or", "the", "to",
        "under", "with"}
SCANNED = ["src", "contrib", "docs", "README.md"]
TEXT_EXT = (".c", ".h", ".md", ".1", ".yml", ".yaml", ".json", ".conf", ".service", ".txt",
            ".ini", ".py", ".sh")


def commands():
    p = subprocess.run([GPUMON, "--help"], capture_output=True, text=True,
                       env=dict(os.environ, LC_ALL="C"))
    if p.returncode != 0:
        sys.exit(f"FAIL: gpumon --help exited {p.returncode}: {p.stderr}")
    text = p.stdout.split("Commands:", 1)
    if len(text) != 2:
        sys.exit("FAIL: gpumon --help has no 'Commands:' section\n" + p.stdout)
    body = text[1].split("\n\n", 1)[0]
    cmds = {m.group(1) for m in re.finditer(r"^  ([a-z][a-z0-9-]*)\s", body, re.M)}
    if len(cmds) < 5:
        sys.exit(f"FAIL: found only {sorted(cmds)} in gpumon --help\n" + p.stdout)
    return cmds


def files():
    for top in SCANNED:
        path = os.path.join(ROOT, top)
        if os.path.isfile(path):
            yield path
            continue
        for d, _, names in os.walk(path):
            for n in sorted(names):
                if n.endswith(TEXT_EXT) or n in ("gpumon.1",):
                    yield os.path.join(d, n)


def main():
    cmds = commands()
    bad, planned, seen = [], [], 0
    for path in files():
        rel = os.path.relpath(path, ROOT)
        fence = False
        with open(path, encoding="utf-8", errors="replace") as f:
            for no, line in enumerate(f, 1):
                if path.endswith(".md") and line.lstrip().startswith("```"):
                    fence = not fence
                    continue
                pats = PATTERNS + ([CODE_LINE] if fence else [])
                for pat in pats:
                    for m in pat.finditer(line):
                        word = m.group(1)
                        if word in STOP:
                            continue
                        seen += 1
                        if word in cmds:
                            continue
                        where = f"{rel}:{no}: gpumon {word}: {line.strip()}"
                        if "planned" in line:
                            planned.append(where)
                        else:
                            bad.append(where)
    if seen < 50:
        sys.exit(f"FAIL: only {seen} command mentions found: is the scan broken?")
    for p in sorted(set(planned)):
        print(f"allowed (documented as planned) {p}")
    if bad:
        print(f"FAIL: shipped text names commands that gpumon --help does not list "
              f"({', '.join(sorted(cmds))}):")
        for b in sorted(set(bad)):
            print("  " + b)
        sys.exit(1)
    print(f"ok: {seen} mentions of gpumon commands, all of them commands of gpumon --help")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""derive_smi_fields.py -- derive smi_query_gpu_fields.txt, the --query-gpu
fields of real nvidia-smi 570-595, from captured `nvidia-smi --help-query-gpu`
outputs.  Not run by the tests (they need no network): run it by hand when
the captures change and commit its output.

The captures are utkuozdemir/nvidia_gpu_exporter's internal/captures/*.txt:
each file holds the raw output of one machine's nvidia-smi, one section per
command, the driver version at the end of the file name
(`<os>-<arch>__<model>__<driver>.txt`).  Of the `--help-query-gpu` section
each property line (`"name"` or `"name" or "alias"`) counts; the example
values of the compute-mode description (`"0: Default"` ...) are not fields.

Usage: derive_smi_fields.py REPO_GIT_DIR [COMMIT] > smi_query_gpu_fields.txt
       (REPO_GIT_DIR: a clone or bare mirror of the repository above)
"""
import re
import subprocess
import sys

FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")
LO, HI = 570, 595


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo] + list(args), check=True,
                          capture_output=True, text=True).stdout


def main():
    repo = sys.argv[1]
    commit = sys.argv[2] if len(sys.argv) > 2 else git(repo, "rev-parse", "HEAD").strip()
    files = [f for f in git(repo, "ls-tree", "--name-only", commit, "internal/captures/").split()
             if f.endswith(".txt")]
    fields = {}  # canonical name -> (aliases, drivers)
    used = []
    for f in sorted(files):
        driver = f.rsplit("__", 1)[1][:-4]
        if not LO <= int(driver.split(".")[0]) <= HI:
            continue
        text = git(repo, "show", "%s:%s" % (commit, f))
        m = re.search(r"# \$ nvidia-smi --help-query-gpu\n#+\n(.*?)\n#{20,}", text, re.S)
        if not m:
            continue
        used.append(f.rsplit("/", 1)[1])
        for line in m.group(1).splitlines():
            if not line.startswith('"'):
                continue
            names = [n for n in re.findall(r'"([^"]+)"', line) if FIELD.match(n)]
            if not names:
                continue
            aliases, drivers = fields.setdefault(names[0], (set(), set()))
            aliases.update(names[1:])
            drivers.add(driver)
    print("# smi_query_gpu_fields.txt -- every --query-gpu field of real nvidia-smi %d-%d"
          % (LO, HI))
    print("# (its --help-query-gpu), derived by derive_smi_fields.py from")
    print("# utkuozdemir/nvidia_gpu_exporter internal/captures/ at commit %s:" % commit)
    for u in used:
        print("#   %s" % u)
    print("# No capture of a 570-585 driver is there; the range is what the issue asked.")
    print("# One line a field: the name, then its aliases.  tests/compat/smi_fields.py")
    print("# checks that gpumon implements each one or docs/compat.md lists it as absent.")
    for name, (aliases, _) in fields.items():
        print(" ".join([name] + sorted(aliases)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""gpumon top at 80x24 with the training scenario's 8 GPUs (one line per
GPU): every GPU's problem is told in a sentence of its own line under the
panels, cut with an ellipsis where the line ends (the panels' one-line
form had room for "!thermal" only), and the process table that cannot
show all 9 processes says "+3 more processes" on its last row, the 30 GiB
orphan reachable by scrolling.  Nothing at the right edge is cut in a
word: the header drops whole pieces ("every 1s"), the first chart's title
its span.

The ranks are real processes (GPUSIM_PID_RANK0..7), so that the one dead
PID is the scenario's orphan on GPU 7 (4194304); its finding comes from
top's own diagnosis after its first 30 s of samples, so the wait is
generous.
"""
import re
import sys

from top_lib import Top, fail, skip_without_tmux, spawn


def problem_lines(s):
    return [l for l in s.split("\n") if re.match(r"GPU \d ⚠ ", l)]


def test_80x24_problems():
    ranks = spawn(8)
    env = {f"GPUSIM_PID_RANK{i}": str(p.pid) for i, p in enumerate(ranks)}
    t = Top("h100x8-training.ini", 80, 24, env=env)
    try:
        s = t.wait_for(("GPU 5 ⚠ thermal slowdown: 89°C at its 89°C slowdown threshold",
                        "GPU 7 ⚠ memory-orphaned: "), timeout=120,
                       what="the problem lines of GPU 5 and GPU 7")
        lines = s.rstrip("\n").split("\n")
        if len(lines) > 24:
            fail("more than 24 lines", s)
        # nothing cut in a word at the edge: the header's pieces are whole
        # or left out, the chart title drops its span rather than end in "(-5m."
        if not re.search(r"(  \d+ GPUs|  every \d+s)$", lines[0].rstrip()):
            fail(f"header line cut in a piece: {lines[0]!r}", s)
        if "GPU 0 utilisation %" not in s or "(-5m." in s:
            fail("utilisation chart title cut", s)
        probs = problem_lines(s)
        if [l[:5] for l in probs] != ["GPU 5", "GPU 7"]:
            fail(f"problem lines {probs!r}: want GPU 5 then GPU 7", s)
        for l in probs:
            if len(l) > 80 or not l.endswith("…"):
                fail(f"problem line not abbreviated to 80 columns: {l!r}", s)
        # they sit between the panels (lines 1-4) and the charts
        at = lines.index(probs[0])
        if at != 5 or not lines[at + 2].startswith("GPU 0 utilisation"):
            fail("problem lines not right under the panels, before the charts", s)
        # 9 processes, 6 rows: the last says how many are not shown
        if not re.search(r"^ \+3 more processes \(Up/Down scroll\)", s, re.M):
            fail("no '+3 more processes' line", s)
        if "4194304" in s:
            fail("the orphan is on screen before scrolling (test assumes it is the 9th)", s)
        t.keys("End")
        s = t.wait_for("4194304", what="the orphan after End")
        if not re.search(r"^ \+3 more processes", s, re.M):
            fail("'+3 more processes' after scrolling to the end", s)
        t.keys("q")
        code, stty = t.wait_exit()
        t.check_restored(code, stty)
    finally:
        t.close()
        for p in ranks:
            p.kill()
    print("ok 80x24 problems and +N more processes")


def test_compact_no_repeat():
    """120x30: compact panels, whose second line already says GPU 5's
    thermal sentence: no problem line repeats it, and the charts keep
    their room."""
    t = Top("h100x8-training.ini", 120, 30)
    try:
        s = t.wait_for(("COMMAND", "⚠ thermal slowdown"), what="compact panels")
        if not re.search(r"^ 5 H100 80GB HBM3 ", s, re.M):
            fail("not the compact panels this test is about", s)
        if problem_lines(s):
            fail(f"a problem line repeats a compact panel: {problem_lines(s)!r}", s)
        if "GPU 0 utilisation %" not in s:
            fail("the charts are gone", s)
        t.keys("q")
        code, stty = t.wait_exit()
        t.check_restored(code, stty)
    finally:
        t.close()
    print("ok 120x30 compact panels, no repeated sentence")


if __name__ == "__main__":
    skip_without_tmux()
    test_compact_no_repeat()
    test_80x24_problems()
    sys.exit(0)

#!/usr/bin/env python3
"""Texts that once said something the code no longer does (issue 23, point 16).

  notify_limits: docs/alerts.md states the `body` limit that `gpumon config
      --markdown` (docs/config.md, generated from src/alert/notify_conf.c,
      where it is sizeof(body) - 1) states, and neither says a config line
      holds at most 199 characters (inih's buffer: lines have been of any
      length since our own INI reader); a config whose `body` line is that
      long is accepted, one byte more is refused naming the key's limit.
  unit_file: contrib/gpumon.service says the agent serves /metrics and what
      its IP address families are for, not that the exporter is "a later
      version" (the agent has served /metrics on 127.0.0.1:9842 by default
      since it was written).

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import re

from agentlib import Scratch, check, check_eq, main, run, sim_env

SRC = os.environ.get("SOURCE_ROOT", ".")


def read(rel):
    with open(os.path.join(SRC, rel), encoding="utf-8") as f:
        return f.read()


def one_line(text):
    return " ".join(text.split())


def notify_limits():
    rc, md, err = run(["config", "--markdown"], sim_env(), timeout=60)
    check_eq(rc, 0, "gpumon config --markdown: exit status", err)
    m = re.search(r"`body` (\d+)", md)
    check(m, "config --markdown does not state the body limit", md[-3000:])
    limit = int(m.group(1))
    alerts = one_line(read("docs/alerts.md"))
    for doc, text in (("docs/alerts.md", alerts), ("config --markdown", one_line(md))):
        check("at most 199 characters" not in text, f"{doc} still says 199 characters")
    check(f"a `body` holds at most {limit} bytes" in alerts,
          f"docs/alerts.md does not say a body holds at most {limit} bytes")
    with Scratch("stale") as d:
        for n, ok in ((limit, True), (limit + 1, False)):
            path = os.path.join(d, f"body{n}.conf")
            with open(path, "w", encoding="utf-8") as f:
                f.write("[notify.hook]\ntype = webhook\nurl = http://127.0.0.1:9/\n"
                        f"body = {'x' * n}\n")
            rc, out, err = run(["config", "check", path], sim_env(), timeout=60)
            if ok:
                check_eq(rc, 0, f"a {n}-byte body line: exit status", err)
            else:
                check(rc != 0 and f"at most {limit} bytes" in err and "body" in err,
                      f"a {n}-byte body line: refused naming the limit", rc, err)


def unit_file():
    unit = read("contrib/gpumon.service")
    comments = one_line(" ".join(line[1:] for line in unit.splitlines() if line.startswith("#")))
    check("later version" not in comments, "the unit file calls something 'a later version'")
    check("/metrics" in comments, "the unit file's comment does not say the agent serves /metrics")
    check(re.search(r"^RestrictAddressFamilies=.*AF_INET", unit, re.M),
          "the unit file does not allow IP for the exporter")


if __name__ == "__main__":
    main([notify_limits, unit_file])

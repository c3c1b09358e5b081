#!/usr/bin/env python3
"""The shipped Prometheus files, contrib/prometheus/, checked by promtool.

  check_rules: `promtool check rules gpumon-rules.yml` succeeds.
  test_rules: `promtool test rules gpumon-rules.test.yml` succeeds (it runs
      every recording rule and every alert on synthetic series).
  every_rule_tested: the test file has, for every alert of the rule file, a
      case where it fires and one where it does not, and an expression test
      for every recording rule.
  rule_names_emitted: every series the rules read is one gpumon's exporter
      emits (or Prometheus's own `up` and `ALERTS`, or a rule's record), with
      labels it sets -- a renamed metric cannot silently disable an alert.
  check_config: `promtool check config prometheus.yml` (the example scrape
      configuration, which loads the rule file) succeeds.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import os
import re
import subprocess

from agentlib import ROOT, check, main
from exporter_lib import emitted_names, need, promql_names

DIR = os.path.join(ROOT, "contrib", "prometheus")
RULES = os.path.join(DIR, "gpumon-rules.yml")
TESTS = os.path.join(DIR, "gpumon-rules.test.yml")


def promtool(*args):
    (p,) = need("promtool")
    r = subprocess.run([p] + list(args), cwd=DIR, capture_output=True, timeout=120)
    return r.returncode, (r.stdout + r.stderr).decode(errors="replace")


def rules():
    """[(kind, name, expr)] from the rule file (its own simple layout:
    `- record:`/`- alert:` then `expr:` as one line or a folded block)."""
    out = []
    lines = open(RULES, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*- (record|alert): (\S+)\s*$", lines[i])
        i += 1
        if not m:
            continue
        while not re.match(r"^\s*expr:", lines[i]):
            i += 1
        e = lines[i].split("expr:", 1)[1].strip()
        indent = len(lines[i]) - len(lines[i].lstrip())
        i += 1
        if e in (">", ">-", "|", "|-"):
            e = ""
            while i < len(lines) and (not lines[i].strip() or
                                      len(lines[i]) - len(lines[i].lstrip()) > indent):
                e += " " + lines[i].strip()
                i += 1
        out.append((m.group(1), m.group(2), e.strip()))
    check(len(out) >= 15, f"only {len(out)} rules parsed from {RULES}")
    return out


def test_check_rules():
    rc, out = promtool("check", "rules", RULES)
    check(rc == 0 and "SUCCESS" in out, f"promtool check rules: exit {rc}", out)
    n = int(re.search(r"SUCCESS: (\d+) rules found", out).group(1))
    check(n == len(rules()), f"promtool found {n} rules, this test parsed {len(rules())}")


def test_test_rules():
    rc, out = promtool("test", "rules", TESTS)
    check(rc == 0 and "SUCCESS" in out and "FAILED" not in out,
          f"promtool test rules: exit {rc}", out[-6000:])


def test_every_rule_tested():
    text = open(TESTS, encoding="utf-8").read()
    # alert_rule_test entries: alertname, eval_time, then exp_alerts (empty or a list)
    cases = re.findall(r"- alertname: (\S+)\s*\n\s*eval_time: \S+\s*\n\s*exp_alerts:(.*)", text)
    fires = {a for a, rest in cases if rest.strip() != "[]"}
    quiet = {a for a, rest in cases if rest.strip() == "[]"}
    exprs = set(re.findall(r"- expr: (\S+)", text))
    for kind, name, _ in rules():
        if kind == "alert":
            check(name in fires, f"alert {name}: no test case where it fires")
            check(name in quiet, f"alert {name}: no test case where it stays quiet")
        else:
            check(name in exprs, f"recording rule {name}: no promql_expr_test")


def test_rule_names_emitted():
    names, labels = emitted_names()
    records = {n for k, n, _ in rules() if k == "record"}
    for kind, name, expr in rules():
        used, used_labels = promql_names(expr)
        # up and ALERTS (an alert reading its own state: hysteresis) are
        # Prometheus's own series
        unknown = used - names - records - {"up", "ALERTS"}
        check(not unknown, f"{kind} {name}: series gpumon does not emit", sorted(unknown), expr)
        check(used_labels <= labels | {"reason", "state", "pid", "process", "user", "xid",
                                       "alertname", "alertstate", "severity"},
              f"{kind} {name}: labels gpumon does not set", sorted(used_labels - labels), expr)


def test_check_config():
    rc, out = promtool("check", "config", os.path.join(DIR, "prometheus.yml"))
    check(rc == 0 and "is valid prometheus config file" in out,
          f"promtool check config: exit {rc}", out)


if __name__ == "__main__":
    main([test_check_rules, test_test_rules, test_every_rule_tested, test_rule_names_emitted,
          test_check_config])

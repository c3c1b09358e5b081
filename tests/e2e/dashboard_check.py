#!/usr/bin/env python3
"""Structure of the shipped Grafana dashboard, contrib/grafana/gpumon-dashboard.json
(or the file named by $DASHBOARD).

  structure: valid JSON; a modern schema (schemaVersion >= 36); a uid and a
      title; unique numeric panel ids (rows' nested panels included); no two
      panels with the same title; only timeseries/stat/state-timeline/
      table/gauge/bargauge panels and rows; every panel inside the 24-column
      grid and not overlapping another.
  datasources: one datasource template variable (query "prometheus"); every
      panel, every target and every query variable refers to it as
      {"type": "prometheus", "uid": "${<that variable>}"}.
  templating: variables instance and gpu, from label_values() of a series
      gpumon emits, with labels it emits; every $variable used in a query is
      defined (or one of Grafana's $__ built-ins).
  queries: every panel has targets with unique refIds and a non-empty expr;
      every metric name in them is one the exporter really emits (names and
      labels from `gpumon serve --print` on h100x8-training.ini and
      workstation.ini, plus docs/metrics.md / docs/exporter.md for series
      those scenarios lack); every label is one gpumon or Prometheus sets;
      every query filters on $instance.
  coverage: utilisation, memory used/total, power vs limit, temperature vs
      slowdown threshold, SM clock vs max, throttle reasons in a state
      timeline or table, energy rate (rate() of the energy counter),
      ECC/remapped rows, gpumon_gpu_up.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import json
import os
import re

from agentlib import ROOT, check, check_eq, main
from exporter_lib import emitted_names, promql_names

PATH = os.environ.get("DASHBOARD") or os.path.join(ROOT, "contrib", "grafana",
                                                   "gpumon-dashboard.json")
PANEL_TYPES = {"timeseries", "stat", "state-timeline", "table", "gauge", "bargauge", "row"}
BUILTIN_VARS = {"__rate_interval", "__interval", "__interval_ms", "__range", "__range_s",
                "__range_ms", "__dashboard", "__from", "__to"}

_cache = {}


def dashboard():
    if "d" not in _cache:
        with open(PATH, encoding="utf-8") as f:
            text = f.read()
        try:
            _cache["d"] = json.loads(text)
        except ValueError as e:
            check(False, f"{PATH}: not valid JSON: {e}")
    return _cache["d"]


def all_panels(d):
    out = []
    for p in d.get("panels", []):
        out.append(p)
        out.extend(p.get("panels", []) if p.get("type") == "row" else [])
    return out


def data_panels(d):
    return [p for p in all_panels(d) if p.get("type") != "row"]


def ds_var(d):
    v = [t for t in d["templating"]["list"] if t.get("type") == "datasource"]
    check_eq(len(v), 1, "datasource template variables")
    check_eq(v[0].get("query"), "prometheus", "the datasource variable's plugin")
    return v[0]["name"]


def test_structure():
    d = dashboard()
    check(isinstance(d.get("schemaVersion"), int) and d["schemaVersion"] >= 36,
          "schemaVersion >= 36 (timeseries/stat panels era)", d.get("schemaVersion"))
    check(d.get("uid") and d.get("title"), "the dashboard has a uid and a title")
    check(d.get("id") is None, "no instance-specific id (it is assigned at import)", d.get("id"))
    panels = all_panels(d)
    check(len(data_panels(d)) >= 9, "fewer than 9 panels", len(data_panels(d)))
    ids = [p.get("id") for p in panels]
    check(all(isinstance(i, int) for i in ids), "every panel has a numeric id", ids)
    check_eq(len(ids), len(set(ids)), "panel ids are unique")
    titles = [p.get("title", "") for p in panels]
    check(all(titles), "every panel has a title")
    dup = sorted({t for t in titles if titles.count(t) > 1})
    check(not dup, "duplicate panel titles", dup)
    cells = {}
    for p in panels:
        check(p.get("type") in PANEL_TYPES, f"panel {p.get('title')!r}: type {p.get('type')!r}")
        g = p.get("gridPos", {})
        check(all(isinstance(g.get(k), int) for k in "hwxy"), f"panel {p['title']!r}: gridPos", g)
        check(g["x"] >= 0 and g["w"] > 0 and g["x"] + g["w"] <= 24 and g["h"] > 0 and g["y"] >= 0,
              f"panel {p['title']!r}: outside the 24-column grid", g)
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                check((x, y) not in cells, f"panels {cells.get((x, y))!r} and {p['title']!r} "
                      "overlap", g)
                cells[(x, y)] = p["title"]


def test_datasources():
    d = dashboard()
    want = {"type": "prometheus", "uid": "${%s}" % ds_var(d)}
    for p in data_panels(d):
        check_eq(p.get("datasource"), want, f"panel {p['title']!r}: datasource")
        for t in p.get("targets", []):
            check_eq(t.get("datasource", want), want,
                     f"panel {p['title']!r} target {t.get('refId')}: datasource")
    for v in d["templating"]["list"]:
        if v.get("type") == "query":
            check_eq(v.get("datasource"), want, f"variable {v['name']}: datasource")


def variable_query(v):
    q = v.get("query")
    return q.get("query") if isinstance(q, dict) else q


def test_templating():
    d = dashboard()
    names, labels = emitted_names()
    vars_ = {v["name"]: v for v in d["templating"]["list"]}
    for want in ("instance", "gpu"):
        check(want in vars_, f"no template variable {want!r}", sorted(vars_))
        v = vars_[want]
        check_eq(v.get("type"), "query", f"variable {want}: type")
        q = variable_query(v)
        m = re.match(r"^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$", q or "")
        check(m is not None, f"variable {want}: not a label_values(series, label) query", q)
        check_eq(m.group(2), want, f"variable {want}: the label it lists")
        used, used_labels = promql_names(m.group(1))
        check(used and used <= names, f"variable {want}: series gpumon does not emit",
              sorted(used - names))
        check(used_labels <= labels, f"variable {want}: unknown labels",
              sorted(used_labels - labels))
        check(v.get("multi") and v.get("includeAll"), f"variable {want}: multi-value with All")
    defined = set(vars_) | BUILTIN_VARS
    for p in data_panels(d):
        for t in p.get("targets", []):
            for var in re.findall(r"\$\{?([a-zA-Z_][a-zA-Z0-9_]*)", t.get("expr", "")):
                check(var in defined, f"panel {p['title']!r}: undefined variable ${var}",
                      t["expr"])


def test_queries():
    d = dashboard()
    names, labels = emitted_names()
    for p in data_panels(d):
        targets = p.get("targets") or []
        check(targets, f"panel {p['title']!r} has no targets")
        refs = [t.get("refId") for t in targets]
        check(all(refs) and len(refs) == len(set(refs)), f"panel {p['title']!r}: refIds", refs)
        for t in targets:
            expr = t.get("expr", "")
            check(expr.strip(), f"panel {p['title']!r} target {t.get('refId')}: empty expr")
            used, used_labels = promql_names(expr)
            check(used, f"panel {p['title']!r}: a query without a series", expr)
            check(used <= names, f"panel {p['title']!r}: series gpumon does not emit",
                  sorted(used - names), expr)
            check(used_labels <= labels, f"panel {p['title']!r}: labels gpumon does not set",
                  sorted(used_labels - labels), expr)
            check("$instance" in expr or "${instance}" in expr,
                  f"panel {p['title']!r}: the query ignores the instance variable", expr)


def test_coverage():
    d = dashboard()
    by_panel = []
    for p in data_panels(d):
        exprs = [t.get("expr", "") for t in p.get("targets", [])]
        used = set()
        for e in exprs:
            used |= promql_names(e)[0]
        by_panel.append((p, used, " ".join(exprs)))

    def has(*metrics, types=None, expr_re=None):
        for p, used, exprs in by_panel:
            if set(metrics) <= used and (types is None or p["type"] in types) and \
                    (expr_re is None or re.search(expr_re, exprs)):
                return True
        return False
    for what, ok in (
        ("utilisation", has("gpumon_gpu_utilization_ratio", types={"timeseries"})),
        ("memory used/total", has("gpumon_memory_used_bytes", "gpumon_memory_total_bytes")),
        ("power vs limit", has("gpumon_power_draw_watts", "gpumon_power_limit_enforced_watts")),
        ("temperature vs slowdown threshold",
         has("gpumon_gpu_temperature_celsius",
             "gpumon_gpu_temperature_slowdown_threshold_celsius")),
        ("SM clock vs max", has("gpumon_sm_clock_hertz", "gpumon_sm_clock_max_hertz")),
        ("throttle reasons", has("gpumon_clock_event_reason_active",
                                 types={"state-timeline", "table"})),
        ("energy rate",
         has("gpumon_energy_consumed_joules_total",
             expr_re=r"\b(rate|irate|increase)\(gpumon_energy_consumed_joules_total")),
        ("ECC errors", has("gpumon_ecc_uncorrected_volatile_errors_total")),
        ("remapped rows", has("gpumon_remapped_rows_uncorrectable_total")),
        ("gpu_up", has("gpumon_gpu_up")),
    ):
        check(ok, f"no panel shows {what}")


if __name__ == "__main__":
    main([test_structure, test_datasources, test_templating, test_queries, test_coverage])

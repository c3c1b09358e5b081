// gpumon's fleet page (served at /static/fleet.js with /fleet; docs/fleet.md).
//
// Every 2 s: /api/v1/fleet (the page server's last round over the nodes,
// `gpumon fleet --json`'s document with its round and age) redraws the node
// grid (a cell per GPU, coloured by its state: busy, idle, problem, stale,
// unreachable) and the problem list (most severe first).  The server asks
// the nodes in its own rounds; this page never reaches a node itself.
// Text from the nodes (host names, GPU names, reasons, problems) goes in
// with textContent only, cleaned of control and bidi characters as the live
// page does, and nothing is inline: the page's Content-Security-Policy
// allows only this file.  The grid is built in a DocumentFragment and
// swapped in once per round, so 1000 GPUs are one layout.
"use strict";
(function () {
  const PERIOD_MS = 2000;

  // As live.js: each control character and bidi control becomes U+FFFD.
  function clean(s) {
    return String(s).replace(
      /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "\ufffd");
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = clean(text);
    return e;
  }

  function pct(v) { return v === null || v === undefined ? "N/A" : Math.round(v) + " %"; }

  // A cell's state: the node's when it is not read, else the GPU's.
  function cellState(node, gpu) {
    if (node.state === "unreachable" || node.state === "invalid") return "unreachable";
    if (node.state === "stale") return "stale";
    if (node.state === "driver" || gpu.severity > 0 || gpu.status !== "ok") return "problem";
    return gpu.busy ? "busy" : "idle";
  }

  // Severity of a node that is not read: above every GPU's (4: lost).
  const NODE_SEV = { unreachable: 5, invalid: 5, driver: 4, stale: 1 };

  function drawGrid(doc) {
    const frag = document.createDocumentFragment();
    const counts = { busy: 0, idle: 0, problem: 0, stale: 0, unreachable: 0 };
    doc.nodes.forEach(function (node, i) {
      const box = el("div", "node " + node.state);
      box.dataset.node = String(i);
      const head = el("div", "nh");
      head.appendChild(el("span", "host", node.host));
      head.appendChild(el("span", "state", node.state));
      if (node.reason) head.appendChild(el("span", "reason", node.reason));
      else if (node.hostname) head.appendChild(el("span", "hostname", node.hostname));
      box.appendChild(head);
      const cells = el("div", "cells");
      if (!node.gpus.length) {
        const st = node.state === "ok" ? "idle" : cellState(node, {});
        const c = el("span", "cell none " + st);
        c.title = clean(node.host + ": no GPU read" + (node.reason ? " (" + node.reason + ")" : ""));
        cells.appendChild(c);
        if (st !== "idle") counts[st]++;
      }
      node.gpus.forEach(function (g) {
        const st = cellState(node, g);
        counts[st]++;
        const c = el("span", "cell " + st);
        c.dataset.gpu = String(g.index);
        c.title = clean(node.host + " gpu" + g.index + " " + (g.name || "N/A") + ": " + st +
                        ", util " + pct(g.utilization_gpu_percent) +
                        (g.problem ? ", " + g.problem : ""));
        cells.appendChild(c);
      });
      box.appendChild(cells);
      frag.appendChild(box);
    });
    const grid = document.getElementById("grid");
    grid.replaceChildren(frag);
    return counts;
  }

  function drawProblems(doc) {
    const rows = [];
    doc.nodes.forEach(function (node, i) {
      if (node.state !== "ok")
        rows.push({ sev: NODE_SEV[node.state] || 1, node: i, gpu: -1, host: node.host,
                    what: "node " + node.state, why: node.reason || "" });
      node.gpus.forEach(function (g) {
        if (g.severity > 0)
          rows.push({ sev: g.severity, node: i, gpu: g.index, host: node.host,
                      what: "gpu" + g.index + " " + (g.name || "N/A"), why: g.problem || "" });
      });
    });
    rows.sort(function (a, b) {
      return b.sev - a.sev || a.node - b.node || a.gpu - b.gpu;
    });
    const body = document.createDocumentFragment();
    rows.forEach(function (r) {
      const tr = el("tr", "sev" + r.sev);
      tr.appendChild(el("td", "sev", String(r.sev)));
      tr.appendChild(el("td", "host", r.host));
      tr.appendChild(el("td", "what", r.what));
      tr.appendChild(el("td", "why", r.why));
      body.appendChild(tr);
    });
    document.querySelector("#problems tbody").replaceChildren(body);
    document.getElementById("no-problems").hidden = rows.length > 0;
    return rows.length;
  }

  function draw(doc) {
    const counts = drawGrid(doc);
    const nprob = drawProblems(doc);
    let ngpu = 0;
    doc.nodes.forEach(function (n) { ngpu += n.gpus.length; });
    document.getElementById("summary").textContent =
      doc.nodes.length + " nodes, " + ngpu + " GPUs: " + counts.busy + " busy, " + counts.idle +
      " idle, " + counts.problem + " problem, " + counts.stale + " stale, " + counts.unreachable +
      " unreachable; " + nprob + " problems";
    document.getElementById("fleet-state").textContent =
      "(round " + doc.round + ", " + doc.age_seconds.toFixed(1) + " s old" +
      (doc.round_error ? "; the rounds since failed: " + clean(doc.round_error) : "") + ")";
  }

  function tick() {
    fetch("/api/v1/fleet", { cache: "no-store", credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok) throw new Error("/api/v1/fleet: HTTP " + r.status);
        return r.json();
      })
      .then(draw)
      .catch(function (e) {
        document.getElementById("fleet-state").textContent = "(" + clean(e.message) + ")";
      })
      .finally(function () { setTimeout(tick, PERIOD_MS); });
  }
  tick();
})();

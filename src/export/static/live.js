// gpumon's live page (served at /static/live.js by the agent's exporter).
//
// Every 5 s: /api/v1/status updates the cards' numbers and diagnosis,
// /api/v1/alerts the alert list and the cards it marks, and /api/v1/history (the whole hour once, then only the
// samples after the last one seen, by sequence number) the charts, drawn as
// hand-written SVG.  A step of the agent's wall clock moves the times it has
// by the change of clock_shift_ns; a driver outage (state no_driver) is
// drawn as a shaded gap.
// Text goes in with textContent only (names come from outside), and nothing
// is inline: the page's Content-Security-Policy allows only this file.
// Elements that hold outside text are isolated for bidi in live.css.
// The axes' ticks are src/core/nice.c's rule (niceTicks below, line for
// line); tests/e2e/live_page.py runs it on that file's table of cases.
"use strict";
(function () {
  const PERIOD_MS = 5000;
  const WINDOW_NS = 3600e9;
  const SVGNS = "http://www.w3.org/2000/svg";
  const W = 600, H = 170, L = 44, R = 8, T = 8, B = 20;
  const charts = Array.from(document.querySelectorAll("figure.chart"));
  const metrics = charts.map(function (f) { return f.dataset.metric; });
  const series = new Map(); // GPU index -> {t: [], st: [], v: {metric: []}}
  let lastNs = null, lastSeq = null, shift = 0;

  // The page's number format (the same rule as the server's, docs/api.md).
  function fmt(key, v) {
    if (v === null || v === undefined) return "N/A";
    if (key.endsWith("_bytes")) return Math.floor(v / 1048576) + " MiB";
    if (key.endsWith("_watts")) return v.toFixed(2) + " W";
    if (key.endsWith("_percent")) return Math.round(v) + " %";
    if (key.endsWith("_celsius")) return Math.round(v) + " \u00b0C";
    if (key.endsWith("_mhz")) return Math.round(v) + " MHz";
    return String(v);
  }

  // Text from outside shows as the server writes it (gm_text_line): each
  // control character and each bidi control (U+202E would show a name
  // reversed) becomes U+FFFD.  The JSON keeps them; the page does not.
  function clean(s) {
    return String(s).replace(
      /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "\ufffd");
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = clean(text);
    return e;
  }

  function svg(tag, attrs) {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }

  function getJSON(path) {
    return fetch(path, { cache: "no-store", credentials: "same-origin" }).then(function (r) {
      if (!r.ok) throw new Error(path + ": HTTP " + r.status);
      return r.json();
    });
  }

  // ---------------------------------------------------------- cards

  function updateCards(st) {
    const t = document.getElementById("sample-time");
    if (t) {
      t.textContent = st.time;
      t.dataset.v = String(st.time_unix_ns);
    }
    for (const g of st.gpus) {
      const card = document.getElementById("gpu-" + g.index);
      if (!card) continue;
      for (const e of card.querySelectorAll("[data-k]")) {
        const k = e.dataset.k;
        if (e.closest("table")) continue;
        if (k === "clocks_event_reasons_active_names") {
          const n = g[k];
          e.textContent = n === null ? "N/A" : (n.length ? n.join(", ") : "none");
        } else if (k === "status") {
          e.textContent = g.status;
          e.dataset.v = g.status;
        } else if (k === "diagnosis") {
          const d = g.diagnosis;
          e.textContent = d === null || d === undefined ? "not running"
            : (d.length ? d.map(clean).join(", ") : "none");
        } else if (k in g) {
          e.dataset.v = g[k] === null ? "null" : String(g[k]);
          e.textContent = fmt(k, g[k]);
        }
      }
      const tb = card.querySelector("table.procs tbody");
      if (!tb) continue;
      const rows = [];
      for (const p of g.processes) {
        // the dead process's marker, as the server writes it (live.c)
        const mark = p.host_state === "gone" || p.host_state === "zombie" ? p.host_state : "";
        const tr = el("tr", mark);
        const pid = el("td", "", String(p.pid));
        pid.dataset.k = "pid";
        const user = el("td", "", p.user === null ? "N/A" : p.user);
        user.dataset.k = "user";
        const name = el("td", "", (mark ? "[" + mark + "] " : "") +
          (p.name ? p.name : (p.comm ? p.comm : "N/A")));
        name.dataset.k = "name";
        const mem = el("td", "", fmt("used_memory_bytes", p.used_memory_bytes));
        mem.dataset.k = "used_memory_bytes";
        mem.dataset.v = p.used_memory_bytes === null ? "null" : String(p.used_memory_bytes);
        tr.append(pid, user, name, mem);
        rows.push(tr);
      }
      if (!rows.length) {
        const tr = el("tr", "none");
        const td = el("td", "", g.unavailable && g.unavailable.processes
          ? "processes not known" : "no processes");
        td.colSpan = 4;
        tr.append(td);
        rows.push(tr);
      }
      tb.replaceChildren.apply(tb, rows);
    }
  }

  // --------------------------------------------------------- alerts

  // " (read 7.5s ago)" for a value a slow read group held (ECC, PCIe link,
  // settings: read every 10 s), as the page's first rendering says it (live.c)
  function ageText(a) {
    const age = a.value_age_seconds;
    if (!a.value || typeof age !== "number" || age <= 0) return "";
    const t = Math.ceil(Math.round(age * 1000) / 100);
    return " (read " + (t % 10 ? (t / 10).toFixed(1) : String(t / 10)) + "s ago)";
  }

  function updateAlerts(doc) {
    const ul = document.getElementById("alert-list");
    const none = document.getElementById("alert-none");
    const sec = document.getElementById("alerts");
    if (!ul || !none || !sec) return;
    const items = doc.alerts.map(function (a) {
      const li = el("li", "alert " + a.state + " " + a.severity);
      li.append(el("span", "state", a.state), " ", el("span", "sev", a.severity), " ",
        el("span", "rule", a.rule));
      if (a.gpu !== null) li.append(" ", el("span", "agpu", "GPU " + a.gpu));
      li.append(" ", el("span", "value", a.value + ageText(a)), " ",
        el("span", "since", "since " + (a.firing_since || a.active_since || "?")));
      return li;
    });
    ul.replaceChildren.apply(ul, items);
    // each card: its alerts, and marked by the worst (firing over pending)
    for (const card of document.querySelectorAll("article.gpu")) {
      const idx = Number(card.dataset.index);
      const mine = doc.alerts.filter(function (a) { return a.gpu === idx; });
      card.dataset.alert = mine.some(function (a) { return a.state === "firing"; }) ? "firing"
        : (mine.length ? "pending" : "");
      const cl = card.querySelector("ul.card-alerts");
      if (cl) {
        cl.replaceChildren.apply(cl, mine.map(function (a) {
          const li = el("li", a.state + " " + a.severity);
          li.append(a.state + " ", el("span", "rule", a.rule));
          return li;
        }));
      }
    }
    none.textContent = doc.enabled ? "No alert is pending or firing." : "Alerts are off in this agent.";
    none.hidden = doc.count > 0;
    sec.dataset.count = String(doc.count);
  }

  // --------------------------------------------------------- charts

  // Whether doc no longer continues what the page has: the agent restarted
  // (its sequence numbers went back) or the samples after the page's last
  // one left its ring (the GPU count changed, or the page slept an hour).
  function stale(doc) {
    return lastSeq !== null && doc.latest_seq !== null &&
      (doc.latest_seq < lastSeq || doc.oldest_seq > lastSeq);
  }

  function merge(doc) {
    // the agent's clock stepped: the times already here move as its did
    const d = doc.clock_shift_ns - shift;
    if (d) {
      for (const s of series.values()) for (let i = 0; i < s.t.length; i++) s.t[i] += d;
      if (lastNs !== null) lastNs += d;
    }
    shift = doc.clock_shift_ns;
    for (const g of doc.gpus) {
      let s = series.get(g.index);
      if (!s) {
        s = { t: [], st: [], v: {} };
        for (const m of metrics) s.v[m] = [];
        series.set(g.index, s);
      }
      for (let i = 0; i < g.time_unix_ns.length; i++) {
        s.t.push(g.time_unix_ns[i]);
        s.st.push(g.state[i]);
        for (const m of metrics) s.v[m].push(g.values[m] ? g.values[m][i] : null);
      }
    }
    if (doc.latest_unix_ns !== null) lastNs = doc.latest_unix_ns;
    if (doc.latest_seq !== null) lastSeq = doc.latest_seq;
    if (lastNs === null) return;
    for (const s of series.values()) {
      let cut = 0;
      while (cut < s.t.length && s.t[cut] < lastNs - WINDOW_NS) cut++;
      if (cut) {
        s.t.splice(0, cut);
        s.st.splice(0, cut);
        for (const m of metrics) s.v[m].splice(0, cut);
      }
    }
  }

  function scale(m, v) {
    return v === null ? null : (m.endsWith("_bytes") ? v / 1073741824 : v);
  }

  // ---- nice ticks: src/core/nice.c's gm_nice_ticks, line for line ----
  // v rounded to the step's decimals
  function snap(v, step) {
    let q = Math.round(v / step) * step;
    const dec = step >= 1 ? 0 : Math.ceil(-Math.log10(step) - 1e-9);
    const p = Math.pow(10, dec);
    q = Math.round(q * p) / p;
    return q === 0 ? 0 : q;
  }

  // The ticks of an axis showing [min, max] in at most maxSteps steps of
  // 1, 2 or 5 times a power of ten: {lo, hi, step, n}.
  function niceTicks(min, max, maxSteps) {
    if (maxSteps < 1) maxSteps = 1;
    if (!isFinite(min) || !isFinite(max)) { min = 0; max = 1; }
    if (max < min) { const x = min; min = max; max = x; }
    if (max === min) {
      const a = Math.abs(min);
      if (a === 0) max = 1; else { min -= a / 10; max += a / 10; }
    }
    const range = max - min;
    let e = Math.floor(Math.log10(range / maxSteps)) - 1;
    for (;; e++) {
      for (const f of [1, 2, 5]) {
        const step = f * Math.pow(10, e);
        const lo = Math.floor(min / step + 1e-9);
        let hi = Math.ceil(max / step - 1e-9);
        if (hi - lo <= maxSteps) {
          if (hi === lo) hi = lo + 1;
          return { lo: snap(lo * step, step), hi: snap(hi * step, step), step: snap(step, step),
            n: hi - lo + 1 };
        }
      }
    }
  }

  function niceTick(t, k) { return snap(t.lo + k * t.step, t.step); }
  // a tick's label, shortest form ("0.5", "1", never "-0")
  function niceLabel(t, v) { return String(snap(v, t.step)); }

  // for tests/e2e/live_page.py, which compares these with the C table
  window.gpumonNice = Object.freeze({ ticks: niceTicks, tick: niceTick, label: niceLabel });

  function draw(fig) {
    const m = fig.dataset.metric;
    let lo = Infinity, hi = -Infinity;
    for (const s of series.values())
      for (const v of s.v[m]) {
        const x = scale(m, v);
        if (x === null) continue;
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      }
    // from 0 (temperatures: from a little under the lowest) to a tick
    // above the highest, by 1, 2 or 5 times a power of ten
    const tk = m.endsWith("_percent") ? niceTicks(0, 100, 5)
      : m.endsWith("_celsius") && lo !== Infinity ? niceTicks(Math.max(0, lo - 5), hi + 5, 5)
        : niceTicks(0, hi === -Infinity ? 1 : Math.max(hi, 1e-9), 5);
    const y0 = tk.lo, y1 = tk.hi;
    const root = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img" });
    // the hour, or less while the agent has not been up that long (at
    // least a minute): the lines fill the chart from the first sample
    let first = Infinity;
    for (const s of series.values()) if (s.t.length && s.t[0] < first) first = s.t[0];
    const t1 = lastNs === null ? 0 : lastNs;
    const span = Math.max(60e9, Math.min(WINDOW_NS, first === Infinity ? WINDOW_NS : t1 - first));
    const t0 = t1 - span;
    const X = function (t) { return L + (W - L - R) * (t - t0) / span; };
    const Y = function (v) { return T + (H - T - B) * (1 - (v - y0) / (y1 - y0 || 1)); };
    for (let k = 0; k < tk.n; k++) {
      const v = niceTick(tk, k);
      root.append(svg("line", { class: "grid", x1: L, x2: W - R, y1: Y(v), y2: Y(v) }));
      const lab = svg("text", { class: "yt", x: L - 4, y: Y(v) + 4, "text-anchor": "end" });
      lab.textContent = niceLabel(tk, v);
      root.append(lab);
    }
    // the time axis: "now" and whole 1-2-5 steps back from it (s or min)
    const unit = span >= 120e9 ? 60 : 1;
    const back = span / 1e9 / unit;
    const tt = niceTicks(0, back, 3);
    for (let k = 0; k < tt.n; k++) {
      const v = niceTick(tt, k);
      if (v > back + 1e-9) continue;
      const x = X(t1 - v * unit * 1e9);
      const lab = svg("text", { x: x, y: H - 4,
        "text-anchor": v === 0 ? "end" : x - L < 20 ? "start" : "middle" });
      lab.textContent = v === 0 ? "now" : "-" + niceLabel(tt, v) + (unit === 60 ? " min" : " s");
      root.append(lab);
    }
    // driver outages: a shaded band from the first sample without the
    // driver to the next one with it (one GPU's states say it for all)
    let gaps = 0;
    const s0 = series.values().next().value;
    for (let i = 0; s0 && i < s0.t.length; i++) {
      if (s0.st[i] !== "no_driver") continue;
      let k = i;
      while (k + 1 < s0.t.length && s0.st[k + 1] === "no_driver") k++;
      const a = Math.max(X(s0.t[i > 0 ? i - 1 : i]), L);
      const b = X(s0.t[k + 1 < s0.t.length ? k + 1 : k]);
      const r = svg("rect", { class: "gap", x: a.toFixed(1), y: T, width: Math.max(b - a, 1).toFixed(1),
        height: H - T - B });
      const tip = svg("title", {});
      tip.textContent = "no driver: no GPU could be read";
      r.append(tip);
      root.append(r);
      gaps++;
      i = k;
    }
    fig.dataset.gaps = String(gaps);
    let lines = 0;
    for (const [idx, s] of series) {
      // a gap (the agent down, a value not real) breaks the line
      const steps = [];
      for (let i = 1; i < s.t.length; i++) steps.push(s.t[i] - s.t[i - 1]);
      steps.sort(function (a, b) { return a - b; });
      const gap = steps.length ? 3 * steps[steps.length >> 1] : Infinity;
      let pts = [];
      const flush = function () {
        if (pts.length > 1) {
          const pl = svg("polyline", { class: "s" + (idx % 8), points: pts.join(" ") });
          pl.dataset.gpu = String(idx);
          root.append(pl);
          lines++;
        }
        pts = [];
      };
      for (let i = 0; i < s.t.length; i++) {
        const v = scale(m, s.v[m][i]);
        if (v === null || (i > 0 && s.t[i] - s.t[i - 1] > gap)) flush();
        if (v !== null) pts.push(X(s.t[i]).toFixed(1) + "," + Y(v).toFixed(1));
      }
      flush();
    }
    const old = fig.querySelector("svg");
    if (old) old.replaceWith(root); else fig.append(root);
    fig.dataset.lines = String(lines);
  }

  function legend() {
    const p = document.getElementById("legend");
    if (!p || p.childElementCount === series.size) return;
    const items = [];
    for (const idx of series.keys()) {
      const span = el("span");
      const sw = svg("svg", { viewBox: "0 0 28 10" });
      sw.append(svg("polyline", { class: "s" + (idx % 8), points: "0,5 28,5" }));
      span.append(sw, "GPU " + idx);
      items.push(span);
    }
    p.replaceChildren.apply(p, items);
  }

  // ----------------------------------------------------------- loop

  // The hour, or what came after the page's last sample; from the start
  // again when the agent's answer does not continue it.
  function history(again) {
    const q = "/api/v1/history?metric=" + metrics.join(",") +
      (lastSeq === null ? "&since=1h" : "&after=" + lastSeq);
    return getJSON(q).then(function (doc) {
      if (stale(doc) && !again) {
        series.clear();
        lastNs = lastSeq = null;
        shift = 0;
        return history(true);
      }
      merge(doc);
      charts.forEach(draw);
      legend();
    });
  }

  function tick() {
    const state = document.getElementById("live-state");
    Promise.all([
      getJSON("/api/v1/status").then(updateCards),
      getJSON("/api/v1/alerts").then(updateAlerts),
      history(false),
    ]).then(function () {
      if (state) state.textContent = "(live: every " + PERIOD_MS / 1000 + " s)";
    }, function (e) {
      if (state) state.textContent = "(not updated: " + e.message + "; retrying)";
    }).finally(function () {
      setTimeout(tick, PERIOD_MS);
    });
  }

  tick();
})();

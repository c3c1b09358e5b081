#!/usr/bin/python3
"""k8s.py -- structural check of contrib/kubernetes/ against the image.

Every manifest parses; each object has its required fields; the DaemonSet
runs in the host PID namespace on GPU nodes, non-root with a read-only root
filesystem and resource limits; its image is localhost/gpumon:<meson.build's
version>, its command, user, port and NVIDIA environment are the
Containerfile's; the Service and the ServiceMonitor select what exists; the
PrometheusRule is what scripts/gen-k8s-rules.py generates from
contrib/prometheus/gpumon-rules.yml; the ConfigMap's gpumon.conf passes
`gpumon config check` (when a gpumon binary is given).

    tests/pkg/k8s.py [GPUMON]

Exit 0 passed, 1 failed (every finding printed), 77 skipped (no
python3-yaml)."""
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    print("k8s.py: SKIP: python3-yaml is not installed")
    sys.exit(77)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KDIR = os.path.join(ROOT, "contrib", "kubernetes")
CONTAINERFILE = os.path.join(ROOT, "contrib", "container", "Containerfile")
NAME_LABEL = "app.kubernetes.io/name"
NAMESPACE = "gpumon"

errors = []


def check(cond, what):
    if not cond:
        errors.append(what)
    return cond


def get(obj, path, where):
    """obj's field at the dotted path, or None with an error naming it."""
    cur = obj
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            errors.append("%s: missing %s" % (where, path))
            return None
        cur = cur[part]
    return cur


def containerfile():
    """USER, EXPOSE, ENV and CMD of the Containerfile."""
    text = open(CONTAINERFILE, encoding="utf-8").read()
    # join continuation lines
    text = re.sub(r"\\\n", " ", text)
    out = {"env": {}}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        if word == "USER":
            out["user"] = rest
        elif word == "EXPOSE":
            out["expose"] = rest
        elif word == "CMD":
            out["cmd"] = json.loads(rest)
        elif word == "ENV":
            for m in re.finditer(r"(\w+)=(\S+)", rest):
                out["env"][m.group(1)] = m.group(2)
    for k in ("user", "expose", "cmd"):
        check(k in out, "Containerfile: no %s" % k.upper())
    return out


def meson_version():
    text = open(os.path.join(ROOT, "meson.build"), encoding="utf-8").read()
    m = re.search(r"^\s*version\s*:\s*'([^']+)'", text, re.M)
    check(m, "meson.build: no version")
    return m.group(1) if m else "?"


def load_manifests():
    docs = {}
    files = sorted(f for f in os.listdir(KDIR) if f.endswith(".yaml"))
    check(files, "contrib/kubernetes: no manifests")
    for f in files:
        path = os.path.join(KDIR, f)
        try:
            with open(path, encoding="utf-8") as fh:
                objs = [o for o in yaml.safe_load_all(fh) if o is not None]
        except yaml.YAMLError as e:
            errors.append("%s: does not parse: %s" % (f, e))
            continue
        for o in objs:
            where = "%s (%s)" % (f, o.get("kind", "?") if isinstance(o, dict) else "?")
            if not check(isinstance(o, dict), "%s: not a mapping" % f):
                continue
            for field in ("apiVersion", "kind", "metadata.name"):
                get(o, field, where)
            labels = (o.get("metadata") or {}).get("labels") or {}
            check(labels.get(NAME_LABEL) == "gpumon", "%s: no label %s: gpumon" % (where, NAME_LABEL))
            if o.get("kind") != "Namespace":
                check((o.get("metadata") or {}).get("namespace") == NAMESPACE,
                      "%s: namespace is not %s" % (where, NAMESPACE))
            check(o.get("kind") not in docs, "%s: a second %s" % (where, o.get("kind")))
            docs[o.get("kind")] = o
    for kind in ("Namespace", "ConfigMap", "DaemonSet", "Service", "ServiceMonitor",
                 "PrometheusRule"):
        check(kind in docs, "contrib/kubernetes: no %s" % kind)
    return docs


def check_daemonset(ds, cf, version, cm):
    w = "daemonset.yaml"
    check(ds.get("apiVersion") == "apps/v1", w + ": apiVersion is not apps/v1")
    sel = get(ds, "spec.selector.matchLabels", w) or {}
    pod_labels = get(ds, "spec.template.metadata.labels", w) or {}
    check(sel and all(pod_labels.get(k) == v for k, v in sel.items()),
          w + ": the selector does not match the pod's labels")
    spec = get(ds, "spec.template.spec", w) or {}
    check(spec.get("hostPID") is True, w + ": hostPID is not true (process attribution)")
    containers = spec.get("containers") or []
    if not check(len(containers) == 1, w + ": want exactly one container"):
        return pod_labels, None
    c = containers[0]
    gpu_req = ((c.get("resources") or {}).get("limits") or {}).get("nvidia.com/gpu")
    check(spec.get("nodeSelector") or gpu_req, w + ": neither a nodeSelector nor nvidia.com/gpu")
    check(c.get("image") == "localhost/gpumon:" + version,
          "%s: image %r, the build makes localhost/gpumon:%s" % (w, c.get("image"), version))
    check(c.get("args") == cf.get("cmd"),
          "%s: args %r are not the Containerfile's CMD %r" % (w, c.get("args"), cf.get("cmd")))
    ports = c.get("ports") or []
    port = str(cf.get("expose", "")).split("/")[0]
    check(any(str(p.get("containerPort")) == port for p in ports),
          "%s: no containerPort %s (Containerfile EXPOSE)" % (w, port))
    check("0.0.0.0:" + port in (c.get("args") or []), w + ": the agent does not listen on 0.0.0.0:" + port)
    env = {e.get("name"): e.get("value") for e in c.get("env") or []}
    for k, v in cf.get("env", {}).items():
        if k.startswith("NVIDIA_"):
            check(env.get(k) == v, "%s: env %s is %r, the image's is %r" % (w, k, env.get(k), v))
    res = c.get("resources") or {}
    for kind in ("requests", "limits"):
        for r in ("cpu", "memory"):
            check((res.get(kind) or {}).get(r), "%s: no resources.%s.%s" % (w, kind, r))
    psc = spec.get("securityContext") or {}
    csc = c.get("securityContext") or {}
    uid = str(cf.get("user", "")).split(":")[0]
    check(csc.get("readOnlyRootFilesystem") is True, w + ": readOnlyRootFilesystem is not true")
    check(csc.get("allowPrivilegeEscalation") is False, w + ": allowPrivilegeEscalation is not false")
    check(psc.get("runAsNonRoot") is True or csc.get("runAsNonRoot") is True, w + ": runAsNonRoot")
    check(str(csc.get("runAsUser", psc.get("runAsUser"))) == uid,
          "%s: runAsUser is not the image's USER %s" % (w, uid))
    check("ALL" in ((csc.get("capabilities") or {}).get("drop") or []), w + ": capabilities not dropped")
    # every mount has a volume; the config and data mounts are the CMD's paths
    vols = {v.get("name"): v for v in spec.get("volumes") or []}
    mounts = {m.get("mountPath"): m.get("name") for m in c.get("volumeMounts") or []}
    for path, name in mounts.items():
        check(name in vols, "%s: mount %s: no volume %s" % (w, path, name))
    args = c.get("args") or []

    def arg(flag):
        return args[args.index(flag) + 1] if flag in args and args.index(flag) + 1 < len(args) else None

    conf = arg("--config")
    data = arg("--data-dir")
    if check(conf, w + ": no --config"):
        vol = vols.get(mounts.get(os.path.dirname(conf)), {})
        check((vol.get("configMap") or {}).get("name") == cm["metadata"]["name"],
              "%s: %s is not mounted from the ConfigMap" % (w, os.path.dirname(conf)))
        check(os.path.basename(conf) in (cm.get("data") or {}),
              "%s: the ConfigMap has no %s" % (w, os.path.basename(conf)))
    if check(data, w + ": no --data-dir"):
        check(data in mounts, "%s: the data directory %s is not a volume (read-only root)" % (w, data))
    names = {p.get("name") for p in ports}
    for probe in ("readinessProbe", "livenessProbe"):
        hp = (c.get(probe) or {}).get("httpGet") or {}
        check(hp.get("port") in names or str(hp.get("port")) == port,
              "%s: %s port %r is not a container port" % (w, probe, hp.get("port")))
    # liveness must not restart the agent when the driver is lost (/healthz
    # answers 503 then, when a restart cannot help): it asks /livez
    live = ((c.get("livenessProbe") or {}).get("httpGet") or {}).get("path")
    ready = ((c.get("readinessProbe") or {}).get("httpGet") or {}).get("path")
    check(live == "/livez", "%s: livenessProbe path %r, want /livez (\"is the process "
          "serving\"; /healthz is 503 on driver loss)" % (w, live))
    check(ready == "/healthz", "%s: readinessProbe path %r, want /healthz (the driver state)"
          % (w, ready))
    return pod_labels, ports


def check_service(svc, pod_labels, ports):
    w = "service.yaml"
    sel = get(svc, "spec.selector", w) or {}
    check(sel and all(pod_labels.get(k) == v for k, v in sel.items()),
          w + ": the selector does not match the DaemonSet's pods")
    names = {p.get("name"): p for p in ports or []}
    sports = get(svc, "spec.ports", w) or []
    for p in sports:
        tp = p.get("targetPort")
        check(tp in names or any(str(q.get("containerPort")) == str(tp) for q in ports or []),
              "%s: targetPort %r is no container port" % (w, tp))
    return sports


def check_servicemonitor(sm, svc, sports):
    w = "servicemonitor.yaml"
    check(sm.get("apiVersion") == "monitoring.coreos.com/v1", w + ": apiVersion")
    sel = get(sm, "spec.selector.matchLabels", w) or {}
    labels = svc["metadata"].get("labels") or {}
    check(sel and all(labels.get(k) == v for k, v in sel.items()),
          w + ": the selector does not match the Service's labels")
    ns = ((sm.get("spec") or {}).get("namespaceSelector") or {}).get("matchNames") or []
    check(NAMESPACE in ns, w + ": namespaceSelector does not name " + NAMESPACE)
    eps = get(sm, "spec.endpoints", w) or []
    check(eps, w + ": no endpoints")
    pnames = {p.get("name") for p in sports}
    for e in eps:
        check(e.get("port") in pnames, "%s: endpoint port %r is not a Service port" % (w, e.get("port")))
        check(e.get("path", "/metrics") == "/metrics", w + ": path is not /metrics")


def check_rule(pr):
    w = "prometheusrule.yaml"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-k8s-rules.py"), "--check"],
                       capture_output=True, text=True)
    check(r.returncode == 0, w + ": " + (r.stderr.strip() or "gen-k8s-rules.py --check failed"))
    with open(os.path.join(ROOT, "contrib", "prometheus", "gpumon-rules.yml"), encoding="utf-8") as f:
        rules = yaml.safe_load(f)
    check((pr.get("spec") or {}).get("groups") == rules.get("groups"),
          w + ": spec.groups differ from contrib/prometheus/gpumon-rules.yml")
    n = sum(len(g.get("rules") or []) for g in rules.get("groups") or [])
    check(n > 0, "gpumon-rules.yml: no rules")


def check_config(cm, gpumon):
    conf = (cm.get("data") or {}).get("gpumon.conf")
    if not check(conf, "configmap.yaml: no gpumon.conf"):
        return
    if not gpumon:
        return
    with tempfile.NamedTemporaryFile("w", suffix=".conf") as f:
        f.write(conf)
        f.flush()
        r = subprocess.run([gpumon, "config", "check", f.name], capture_output=True, text=True)
        check(r.returncode == 0, "configmap.yaml: gpumon config check: " + r.stderr.strip())


def main(argv):
    gpumon = argv[1] if len(argv) > 1 else None
    cf = containerfile()
    version = meson_version()
    docs = load_manifests()
    if all(k in docs for k in ("ConfigMap", "DaemonSet", "Service", "ServiceMonitor", "PrometheusRule")):
        pod_labels, ports = check_daemonset(docs["DaemonSet"], cf, version, docs["ConfigMap"])
        sports = check_service(docs["Service"], pod_labels, ports)
        check_servicemonitor(docs["ServiceMonitor"], docs["Service"], sports)
        check_rule(docs["PrometheusRule"])
        check_config(docs["ConfigMap"], gpumon)
    for e in errors:
        print("k8s.py: FAIL: " + e, file=sys.stderr)
    if errors:
        return 1
    print("k8s.py: ok: %d manifests, image localhost/gpumon:%s, port %s, user %s"
          % (len(docs), version, cf.get("expose"), cf.get("user")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""python3 -m gpumon: the client's command line (docs/python.md).

    python3 -m gpumon mark [--task T] [--data-dir DIR] TEXT...
    python3 -m gpumon step [--task T] [--data-dir DIR] N [NAME=VALUE...]
    python3 -m gpumon hello [--data-dir DIR]

Exit status: 0 done, 1 the agent is not running or refused, 2 bad usage
(as `gpumon mark`).
"""
import argparse
import sys

from .client import Client, GpumonError, MARK_MAX


def _error(msg, code):
    print(f"gpumon: error: {msg}", file=sys.stderr)
    return code


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m gpumon",
                                description="Marks and training steps on the running gpumon "
                                            "agent's timeline.")
    sub = p.add_subparsers(dest="cmd", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", help="the agent's data directory (default: as gpumon "
                                           "mark finds it)")
    common.add_argument("--task", help="the mark's task (default: the agent's)")
    m = sub.add_parser("mark", parents=[common],
                       help=f"put a mark on the timeline (words joined by one space; at most "
                            f"{MARK_MAX} bytes)")
    m.add_argument("text", nargs="+")
    s = sub.add_parser("step", parents=[common],
                       help="put a training step and numbers (NAME=VALUE) on the timeline")
    s.add_argument("n", type=int)
    s.add_argument("values", nargs="*", metavar="NAME=VALUE")
    sub.add_parser("hello", parents=[common], help="print the agent's protocol version")
    a = p.parse_args(argv)
    try:
        c = Client(data_dir=a.data_dir, task=a.task)
    except (ValueError, GpumonError) as e:
        return _error(str(e), 2 if isinstance(e, ValueError) else 1)
    try:
        if a.cmd == "mark":
            text = " ".join(w.replace("\r", " ").replace("\n", " ") for w in a.text)
            c.mark(text)
        elif a.cmd == "step":
            values = {}
            for kv in a.values:
                name, eq, val = kv.partition("=")
                if not eq:
                    return _error(f"step: {kv!r} is not NAME=VALUE", 2)
                try:
                    values[name] = float(val)
                except ValueError:
                    return _error(f"step: value {name}: {val!r} is not a number", 2)
            c.step(a.n, **values)
        else:
            h = c.hello()
            print(f"protocol {h['version']}: {' '.join(h['requests'])}")
    except (ValueError, TypeError) as e:
        return _error(str(e), 2)
    except GpumonError as e:
        return _error(str(e), 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

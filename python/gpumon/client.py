"""The agent's control socket, from Python (docs/control.md).

One request line per connection on <data-dir>/agent.sock, one reply line,
then the agent closes.  This module speaks protocol version 2 (HELLO, PING,
STATUS, MARK, STEP); an agent of version 1 (before HELLO and STEP) still
takes marks, and a step sent to it fails with a message saying so.

Standard library only; nothing here prints.  Errors are GpumonError and its
subclasses, each with a message that says what was wrong and where.
"""
import json
import math
import os
import re
import socket
import time

PROTOCOL_VERSION = 2
MARK_MAX = 4096          # bytes of a mark's text (UTF-8)
REQUEST_MAX = 8192       # bytes of a request, its newline included
REPLY_MAX = 1 << 20      # bytes of a reply this client reads at most
STEP_NAME_MAX = 64       # bytes of a step value's name
STEP_VALUES_MAX = 32     # values per step
TASK_MAX = 63
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TASK = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*\Z")


class GpumonError(Exception):
    """A request that failed; str() is the reason."""


class NoAgentError(GpumonError):
    """No gpumon agent runs for the data directory."""


class RefusedError(GpumonError):
    """The agent answered with an error (its reason is the message)."""


# ------------------------------------------------------------ data directory

def _config_path():
    if os.geteuid() == 0:
        return "/etc/gpumon/gpumon.conf"
    x = os.environ.get("XDG_CONFIG_HOME")
    if x:
        return os.path.join(x, "gpumon", "gpumon.conf")
    return os.path.join(os.environ.get("HOME", "."), ".config", "gpumon", "gpumon.conf")


def _strip_comment(value):
    """The value without an inline comment (';' after whitespace, as gpumon's
    config reader)."""
    for i in range(1, len(value)):
        if value[i] == ";" and value[i - 1] in " \t":
            return value[:i].rstrip()
    return value


def _config_data_dir(path):
    """data-dir of [agent] in the config file at path, or None (no file, no
    key).  A file that cannot be read is an error naming it."""
    try:
        with open(path, "rb") as f:
            raw = f.read(1024 * 1024 + 1)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise GpumonError(f"{path}: {e.strerror}") from None
    text = raw.decode("utf-8", errors="replace").lstrip("\ufeff")
    section = None
    found = None
    for line in text.splitlines():
        s = line.strip()
        if not s or s[0] in ";#":
            continue
        if s.startswith("["):
            section = s[1:s.find("]")].strip() if "]" in s else None
            continue
        m = re.match(r"([^=:]+?)\s*[=:]\s*(.*)\Z", s)
        if m and section == "agent" and m.group(1) == "data-dir":
            found = _strip_comment(m.group(2))
    return found or None


def default_data_dir():
    """The agent's data directory as `gpumon mark` finds it without flags:
    data-dir in the default config file, else $STATE_DIRECTORY (its first
    entry), /var/lib/gpumon for root, $XDG_STATE_HOME/gpumon or
    ~/.local/state/gpumon."""
    d = _config_data_dir(_config_path())
    if d:
        return d
    sd = os.environ.get("STATE_DIRECTORY")
    if sd:
        return sd.split(":")[0]
    if os.geteuid() == 0:
        return "/var/lib/gpumon"
    x = os.environ.get("XDG_STATE_HOME")
    if x:
        return os.path.join(x, "gpumon")
    return os.path.join(os.environ.get("HOME", "."), ".local", "state", "gpumon")


# ------------------------------------------------------------------ checks

def check_task(task):
    """task, if it is a task name (1-63 letters, digits, '.', '_', '-', not
    starting with '.'); ValueError otherwise.  None stays None."""
    if task is None:
        return None
    if not isinstance(task, str) or len(task) > TASK_MAX or not _TASK.match(task) \
            or not task.isascii():
        raise ValueError(f"invalid task {task!r} (1-{TASK_MAX} letters, digits, '.', '_', '-'; "
                         "not starting with '.')")
    return task


def check_mark(text):
    """text as the bytes of a mark: one line, no NUL, at most MARK_MAX bytes
    of UTF-8; ValueError otherwise."""
    if not isinstance(text, str):
        raise TypeError(f"a mark is text, not {type(text).__name__}")
    if "\n" in text or "\r" in text:
        raise ValueError("a mark is one line (the text has a line break)")
    if "\0" in text:
        raise ValueError("a mark cannot hold a NUL character")
    try:
        b = text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"the mark is not valid text: {e}") from None
    if len(b) > MARK_MAX:
        raise ValueError(f"the mark is {len(b)} bytes long; a mark is at most {MARK_MAX} bytes")
    return b


def format_step(n, metrics):
    """'<n> name=value ...' of a STEP request; ValueError/TypeError for a
    step that is not a whole number >= 0, a name that is not one, a value
    that is not a finite number, or too many values."""
    if isinstance(n, bool):
        raise TypeError("the step is a whole number, not bool")
    if not isinstance(n, int):
        try:
            n = n.__index__()  # numpy and torch integers
        except AttributeError:
            raise TypeError(f"the step is a whole number, not {type(n).__name__}") from None
    if n < 0 or n > 2 ** 63 - 1:
        raise ValueError(f"step {n}: a step is 0 to 2^63-1")
    if len(metrics) > STEP_VALUES_MAX:
        raise ValueError(f"{len(metrics)} values; a step carries at most {STEP_VALUES_MAX}")
    parts = [str(n)]
    for name, value in metrics.items():
        if not _NAME.match(name) or not name.isascii() or len(name) > STEP_NAME_MAX:
            raise ValueError(f"value name {name!r}: 1-{STEP_NAME_MAX} ASCII letters, digits, '_' "
                             "(not starting with a digit)")
        if isinstance(value, bool):
            value = int(value)
        try:
            v = float(value)  # ints, floats, numpy scalars, one-element tensors
        except (TypeError, ValueError):
            raise TypeError(f"value {name}: a number, not {type(value).__name__}") from None
        if not math.isfinite(v):
            raise ValueError(f"value {name}: {v} is not a finite number")
        parts.append(f"{name}={v!r}")
    return " ".join(parts)


def _printable(text):
    """text with every character that is not printable as U+FFFD: what a
    listener on the socket said, shown to a person (it may not be our
    agent)."""
    return "".join(c if c.isprintable() else "\ufffd" for c in text)


# ------------------------------------------------------------------ client

class Client:
    """Requests to the agent of data_dir (None: default_data_dir()) under
    task (None: the agent's own task).  Each request is one connection;
    timeout bounds each whole, in seconds (connect, send and every read
    together), and a reply is read up to REPLY_MAX bytes: whatever listens
    on the socket cannot hold the caller longer or fill its memory."""

    def __init__(self, data_dir=None, task=None, timeout=5.0):
        self.data_dir = data_dir if data_dir is not None else default_data_dir()
        if not self.data_dir:
            raise ValueError("data_dir is empty")
        self.task = check_task(task)
        self.timeout = timeout

    @property
    def socket_path(self):
        return os.path.join(self.data_dir, "agent.sock")

    def request(self, line):
        """Sends one request line (bytes or str, without its newline) and
        returns the reply line without its newline (str; undecodable bytes
        replaced; not made printable).  NoAgentError when no agent listens;
        GpumonError when the agent does not answer within the timeout
        (the whole exchange), answers more than REPLY_MAX bytes, or closes
        without answering."""
        if isinstance(line, str):
            line = line.encode("utf-8")
        if len(line) + 1 > REQUEST_MAX:
            raise ValueError(f"the request is {len(line) + 1} bytes long; it takes at most "
                             f"{REQUEST_MAX}")
        path = self.socket_path
        deadline = time.monotonic() + self.timeout

        def left():
            """What remains of the timeout (socket.timeout when nothing)."""
            t = deadline - time.monotonic()
            if t <= 0:
                raise socket.timeout()
            return t

        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        try:
            try:
                s.connect(path)
            except (FileNotFoundError, ConnectionRefusedError):
                raise NoAgentError(f"no gpumon agent is running for data directory "
                                   f"{self.data_dir} (start one with 'gpumon agent', or give "
                                   "the data directory)") from None
            except OSError as e:
                raise GpumonError(f"cannot connect to {path}: {e.strerror or e}") from None
            try:
                s.settimeout(left())
                s.sendall(line + b"\n")
                s.shutdown(socket.SHUT_WR)
                chunks = []
                got = 0
                while True:
                    s.settimeout(left())
                    b = s.recv(min(65536, REPLY_MAX + 1 - got))
                    if not b:
                        break
                    chunks.append(b)
                    got += len(b)
                    if got > REPLY_MAX:
                        raise GpumonError(f"the agent's answer at {path} is longer than "
                                          f"{REPLY_MAX} bytes")
            except socket.timeout:
                raise GpumonError(f"the agent at {path} did not answer within "
                                  f"{self.timeout:g} s") from None
            except OSError as e:
                raise GpumonError(f"the agent at {path} closed the connection without "
                                  f"answering ({e.strerror or e})") from None
        finally:
            s.close()
        reply = b"".join(chunks)
        if not reply.endswith(b"\n"):
            raise GpumonError(f"the agent at {path} closed the connection without answering")
        return reply[:-1].decode("utf-8", errors="replace")

    def _ok(self, line, what):
        reply = self.request(line)
        if reply != "OK":
            why = _printable(reply[4:] if reply.startswith("ERR ") else reply)
            raise RefusedError(f"the agent refused the {what}: {why}")

    def hello(self):
        """The agent's protocol: {"version": int, "requests": [names]}.  An
        agent from before HELLO is version 1."""
        reply = self.request("HELLO")
        if reply == "ERR unknown request":
            return {"version": 1, "requests": ["PING", "STATUS", "ALERTS", "MARK"]}
        # the names are letters, digits, '_' (later versions may add fields
        # after them); anything else is no agent's answer
        m = re.match(r"OK version=(\d+) requests=(\w+(?:,\w+)*)(?: |\Z)", reply, re.ASCII)
        if not m:
            raise GpumonError(f"unexpected answer to HELLO: {reply[:80]!r}")
        return {"version": int(m.group(1)), "requests": m.group(2).split(",")}

    def status(self):
        """The agent's counters (the JSON of `gpumon agent --status`)."""
        reply = self.request("STATUS")
        if reply.startswith("ERR"):
            raise RefusedError(f"the agent refused STATUS: {_printable(reply[4:])}")
        try:
            return json.loads(reply)
        except ValueError:
            raise GpumonError(f"the answer to STATUS is not JSON: "
                              f"{_printable(reply[:80])!r}") from None

    def mark(self, text):
        """Puts the mark text (one line, at most 4096 bytes of UTF-8) on the
        timeline, timed now."""
        b = check_mark(text)
        head = f"MARK {time.time_ns()} {self.task or '-'} ".encode()
        self._ok(head + b, "mark")

    def step(self, n, **metrics):
        """Puts training step n and the numbers given (loss=0.53,
        samples_per_s=812.4) on the timeline, as the mark
        "step n name=value ...".  An agent of protocol 1 cannot take it."""
        body = format_step(n, metrics)
        line = f"STEP {time.time_ns()} {self.task or '-'} {body}"
        try:
            self._ok(line, "step")
        except RefusedError as e:
            if str(e).endswith("unknown request"):
                raise RefusedError("the agent is older than the STEP request (protocol 1); "
                                   "upgrade gpumon, or use mark()") from None
            raise

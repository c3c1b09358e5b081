"""gpumon's Python client: marks and training steps on the running gpumon
agent's timeline, beside the GPU history that `gpumon report` and `gpumon
plot` show (docs/python.md).  Standard library only.

    import gpumon
    gpumon.mark("epoch 3")                       # raises if no agent runs
    with gpumon.Run(task="resnet50") as run:    # "run start" ... "run end"
        run.step(120, loss=0.53, samples_per_s=812.4)

Inside a `with Run(...)`, gpumon.mark() and gpumon.step() go to that run.
The adapters gpumon.lightning and gpumon.keras import their frameworks only
when used.
"""
import threading
import time
import warnings

from .client import (Client, GpumonError, NoAgentError, RefusedError, PROTOCOL_VERSION,
                     default_data_dir, format_step)

__all__ = ["Client", "GpumonError", "NoAgentError", "RefusedError", "Run", "mark", "step",
           "default_data_dir", "PROTOCOL_VERSION"]
__version__ = "0.1.0"

_current = threading.local()


class Run:
    """A training run on the timeline: the mark "run start" on entry and
    "run end" (or "run end: failed (ExceptionName)") on exit, under task
    (None: the agent's own task).

    step(n, **numbers) sends at most one step per min_interval seconds (0:
    every call) and returns whether it sent this one, so a loop may call it
    every iteration.  With required=False (the default) a run whose agent is
    not running, or stops, does not stop the training: the first failure is
    a RuntimeWarning, later ones are silent, and run.errors counts them;
    required=True raises instead."""

    def __init__(self, task=None, data_dir=None, min_interval=0.0, required=False,
                 timeout=5.0):
        self.client = Client(data_dir=data_dir, task=task, timeout=timeout)
        self.min_interval = float(min_interval)
        self.required = required
        self.errors = 0
        self.steps_sent = 0
        self._last = None
        self._outer = None

    def _send(self, fn, *args, **kw):
        try:
            fn(*args, **kw)
            return True
        except (GpumonError, OSError) as e:
            if self.required:
                raise
            if self.errors == 0:
                warnings.warn(f"gpumon: {e}; the run goes on without marks", RuntimeWarning,
                              stacklevel=3)
            self.errors += 1
            return False

    def mark(self, text):
        """A mark on the run's timeline; whether it was taken."""
        return self._send(self.client.mark, text)

    def due(self, now=None):
        """Whether a step sent now would go out (min_interval has passed
        since the last one): a loop whose numbers cost something to get
        (float() of a GPU tensor waits for the GPU) asks first."""
        now = time.monotonic() if now is None else now
        return self._last is None or now - self._last >= self.min_interval

    def step(self, n, **metrics):
        """Step n and the caller's numbers; whether it was sent (False: the
        interval since the last one is shorter than min_interval, or the
        agent failed with required=False).  Bad names or values raise
        ValueError/TypeError whatever `required` says."""
        now = time.monotonic()
        if not self.due(now):
            return False
        # checked here so that a caller's mistake is never a silent warning
        format_step(n, metrics)
        self._last = now
        sent = self._send(self.client.step, n, **metrics)
        self.steps_sent += sent
        return sent

    def __enter__(self):
        self.mark("run start")
        self._outer = getattr(_current, "run", None)
        _current.run = self
        return self

    def __exit__(self, et, ev, tb):
        _current.run = self._outer
        self.mark("run end" if et is None else f"run end: failed ({et.__name__})")
        return False


def _target():
    run = getattr(_current, "run", None)
    return run if run is not None else Client()


def mark(text):
    """Puts the mark text on the timeline: the current Run's (see Run), else
    the default agent's (default_data_dir(), the agent's task).  Raises
    NoAgentError when no agent runs (outside a Run)."""
    t = _target()
    if isinstance(t, Run):
        return t.mark(text)
    t.mark(text)
    return True


def step(n, **metrics):
    """Puts training step n and the numbers given on the timeline, like
    mark(); the agent keeps it as the mark "step n name=value ..."."""
    t = _target()
    if isinstance(t, Run):
        return t.step(n, **metrics)
    t.step(n, **metrics)
    return True

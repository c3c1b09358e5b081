"""A PyTorch Lightning callback that puts the training on gpumon's timeline
(docs/python.md).  Importing this module imports nothing of Lightning;
GpumonCallback() does, the first time it is called, unless given `base`.

    from gpumon.lightning import GpumonCallback
    trainer = Trainer(callbacks=[GpumonCallback(task="resnet50", min_interval=10)])

Marks "train start", "epoch N end" and "train end"; after each training
batch, at most one step per min_interval seconds: trainer.global_step and the
numbers of trainer.callback_metrics (what the module logged: loss, ...) that
are single numbers.
"""
from . import Run

__all__ = ["GpumonCallback"]


def _lightning_callback_base():
    try:
        from lightning.pytorch.callbacks import Callback
    except ImportError:
        try:
            from pytorch_lightning.callbacks import Callback
        except ImportError:
            raise ImportError("gpumon.lightning needs PyTorch Lightning (the package lightning "
                              "or pytorch_lightning)") from None
    return Callback


def _numbers(metrics):
    """The entries of a metrics mapping that are single finite numbers, with
    names a step takes ('/' and '-' as '_')."""
    out = {}
    for k, v in dict(metrics or {}).items():
        try:
            x = float(v)  # a number or a one-element tensor
        except (TypeError, ValueError, RuntimeError):
            continue
        if x == x and x not in (float("inf"), float("-inf")):
            name = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in str(k))
            if name and not name[0].isdigit():
                out[name[:64]] = x
    return dict(list(out.items())[:32])


def GpumonCallback(task=None, data_dir=None, min_interval=10.0, required=False, base=None):
    """A Lightning Callback (an instance of a subclass of `base`, by default
    Lightning's Callback) that reports to gpumon through a Run."""
    base = base or _lightning_callback_base()

    class _GpumonCallback(base):
        def __init__(self):
            super().__init__()
            self.run = Run(task=task, data_dir=data_dir, min_interval=min_interval,
                           required=required)

        def on_train_start(self, trainer, pl_module):
            self.run.mark("train start")

        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, *rest):
            # numbers only when due: float() of a GPU tensor waits for the GPU
            if self.run.due():
                self.run.step(int(trainer.global_step), **_numbers(trainer.callback_metrics))

        def on_train_epoch_end(self, trainer, pl_module, *rest):
            self.run.mark(f"epoch {int(trainer.current_epoch)} end")

        def on_train_end(self, trainer, pl_module):
            self.run.mark("train end")

    _GpumonCallback.__name__ = _GpumonCallback.__qualname__ = "GpumonCallback"
    return _GpumonCallback()

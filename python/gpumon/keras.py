"""A Keras callback that puts the training on gpumon's timeline
(docs/python.md).  Importing this module imports nothing of Keras;
GpumonCallback() does, the first time it is called, unless given `base`.

    from gpumon.keras import GpumonCallback
    model.fit(x, y, callbacks=[GpumonCallback(task="bert", min_interval=10)])

Marks "train start", "epoch N end" and "train end"; after each training
batch, at most one step per min_interval seconds: the batches seen since
training began, and the numbers Keras passes in `logs` (loss, accuracy, ...).
"""
from . import Run
from .lightning import _numbers

__all__ = ["GpumonCallback"]


def _keras_callback_base():
    try:
        from keras.callbacks import Callback
    except ImportError:
        try:
            from tensorflow.keras.callbacks import Callback
        except ImportError:
            raise ImportError("gpumon.keras needs Keras (the package keras or "
                              "tensorflow)") from None
    return Callback


def GpumonCallback(task=None, data_dir=None, min_interval=10.0, required=False, base=None):
    """A Keras Callback (an instance of a subclass of `base`, by default
    Keras's Callback) that reports to gpumon through a Run."""
    base = base or _keras_callback_base()

    class _GpumonCallback(base):
        def __init__(self):
            super().__init__()
            self.run = Run(task=task, data_dir=data_dir, min_interval=min_interval,
                           required=required)
            self.seen = 0

        def on_train_begin(self, logs=None):
            self.run.mark("train start")

        def on_train_batch_end(self, batch, logs=None):
            self.seen += 1
            if self.run.due():
                self.run.step(self.seen, **_numbers(logs))

        def on_epoch_end(self, epoch, logs=None):
            self.run.mark(f"epoch {int(epoch)} end")

        def on_train_end(self, logs=None):
            self.run.mark("train end")

    _GpumonCallback.__name__ = _GpumonCallback.__qualname__ = "GpumonCallback"
    return _GpumonCallback()

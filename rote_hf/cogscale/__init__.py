"""CogScale: the 14 scalable synthetic sequence tasks, byte-compatible with the reference.

>>> from rote_hf.cogscale import build_task, TASKS
>>> data = build_task("simple_copy", "small", seed=0)
>>> data["X_train"].shape, data["Y_train"].shape, data["T_train"].shape, data["category"]
((100, 50, 4), (100, 50, 3), (100, 22), 'classification')
"""

from .build import build_task, check_seed, get_task, iter_chunks, layout, resolve_params
from .presets import DIFFICULTIES, PRESETS
from .registry import CATEGORIES, Layout, SampleTask, SeriesTask
from .stream import stream_samples
from .tasks import TASKS

__all__ = [
    "CATEGORIES", "DIFFICULTIES", "PRESETS", "TASKS", "Layout", "SampleTask", "SeriesTask",
    "build_task", "check_seed", "get_task", "iter_chunks", "layout", "resolve_params", "stream_samples",
]

"""Facts about this machine and this process that a run is worthless without:
Python, OS, CPU, cores, the thread environment and the thread pools of the
frameworks this process has imported. A leaf: imports no framework.

>>> sorted(machine_facts())[:3]
['cores', 'cores_usable', 'cpu']
>>> isinstance(thread_facts(), dict)
True
"""

from __future__ import annotations

import os
import platform
import sys
from typing import Any

THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS",
    "XLA_FLAGS",
    "CUDA_VISIBLE_DEVICES",
)
"""Environment variables that change how many threads (or which devices) a framework uses."""


def cpu_model() -> str:
    """The CPU's marketing name where the OS says it, else ``platform.processor()``.

    >>> isinstance(cpu_model(), str)
    True
    """
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_facts() -> dict[str, Any]:
    """Python, OS, CPU, cores and the thread environment variables that are set.

    >>> sorted(machine_facts())[:3]
    ['cores', 'cores_usable', 'cpu']
    """
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "executable": sys.executable,
        "platform": platform.platform(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": usable,
        "thread_env": {name: os.environ[name] for name in THREAD_VARIABLES if name in os.environ},
    }


def thread_facts() -> dict[str, dict[str, Any]]:
    """Thread settings of the frameworks this process has imported (nothing is
    imported to find out).

    >>> isinstance(thread_facts(), dict)
    True
    """
    facts: dict[str, dict[str, Any]] = {}
    torch = sys.modules.get("torch")
    if torch is not None:
        facts["torch"] = {
            "num_threads": torch.get_num_threads(),
            "num_interop_threads": torch.get_num_interop_threads(),
        }
    tf = sys.modules.get("tensorflow")
    if tf is not None and hasattr(tf, "config"):
        threading = tf.config.threading
        facts["tensorflow"] = {
            "intra_op_parallelism_threads": threading.get_intra_op_parallelism_threads(),
            "inter_op_parallelism_threads": threading.get_inter_op_parallelism_threads(),
        }
    ort = sys.modules.get("onnxruntime")
    if ort is not None and hasattr(ort, "SessionOptions"):
        options = ort.SessionOptions()
        facts["onnxruntime"] = {
            "intra_op_num_threads": options.intra_op_num_threads,
            "inter_op_num_threads": options.inter_op_num_threads,
        }
    return facts

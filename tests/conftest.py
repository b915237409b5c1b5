"""Hypothesis profiles: "ci" (loaded when the CI environment variable is set)
and "dev" are both derandomized, so every run checks the same examples.

Paddle is imported first where it is installed: tests build every oracle in one
process, and libpaddle.so dies loading into a process that has loaded TensorFlow
(the other order is fine; see ``oracles.paddle_oracle.PaddleAfterTensorFlow``)."""

import importlib.util
import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))

if importlib.util.find_spec("paddle") is not None:
    from oracles import paddle_oracle

    paddle_oracle.oracles_here()  # its prelude imports paddle, quietly

"""Hypothesis profiles: "ci" (loaded when the CI environment variable is set)
and "dev" are both derandomized, so every run checks the same examples.

Paddle is imported first where it is installed: tests build every oracle in one
process, and libpaddle.so dies loading into a process that has loaded TensorFlow
(the other order is fine; see ``oracles.paddle_oracle.PaddleAfterTensorFlow``).

No compiled artefact is kept across runs while testing (``GATHER_CONFORMANCE_NO_COMPILED_CACHE``, inherited by every
worker): the tests' campaigns compile shapes no later run asks for, so keeping them is only cost;
``tests/test_artefact_cache.py`` turns the cache on for itself."""

import importlib.util
import os

from hypothesis import HealthCheck, settings

os.environ.setdefault("GATHER_CONFORMANCE_NO_COMPILED_CACHE", "1")

settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))

if importlib.util.find_spec("paddle") is not None:
    from oracles import paddle_oracle

    paddle_oracle.oracles_here()  # its prelude imports paddle, quietly

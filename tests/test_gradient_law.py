"""The consistency law of issue 41 (point 3), apart from the docs: a gather's gradient is its cotangent added onto
the positions its own forward read (``spec/transforms.py``: ``positions_read``, ``gradient_departures``). Checked
here both ways on constructed answers, then on each framework's real forward and gradient (each skipped, saying
so, where its framework is not installed): the forward run on the data's positions counted from 1 and from 2, the
gradient pulled back with the deterministic cotangent (``cotangent``), never all ones."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from conformance.spec.reference import reference
from conformance.spec.transforms import (
    NOTHING,
    cotangent,
    gradient_departures,
    positions_read,
    read_positions,
    scattered,
    vjp,
)

X = np.arange(5, dtype=np.float64)
"""Five data elements: counted from 1 they are 1..5, from 2 they are 2..6."""


def test_a_gradient_that_follows_its_forward_has_no_departure_whatever_the_forward_did() -> None:
    seed = cotangent((3,))
    for positions in ([4, 0, 0], [0, NOTHING, 4], [2, 2, 2]):  # clamped, filled, duplicated: all fine if followed
        positions = np.array(positions)
        assert gradient_departures(positions, scattered(positions, seed, (5,)), seed) == []


def test_a_gradient_that_drops_or_moves_what_its_forward_read_departs_where_it_does() -> None:
    seed, positions = cotangent((2,)), np.array([0, 1])  # the forward read 0 (a clamped -1) and 1
    dropped = gradient_departures(positions, np.array([0.0, 2.0, 0, 0, 0]), seed)
    assert [(d.position, d.outputs, d.expected, d.got) for d in dropped] == [(0, (0,), 1.0, 0.0)]
    moved = gradient_departures(positions, np.array([0.0, 2.0, 0, 0, 1.0]), seed)  # sent to 4 (wrapped) instead
    assert [(d.position, d.outputs) for d in moved] == [(0, (0,)), (4, ())]
    assert "for no output element, yet the gradient there is 1" in moved[1].words()


def test_the_references_own_vjp_follows_its_own_forward_for_every_policy() -> None:
    indices = np.array([-1, 7, 2, 2])
    for policy in ("clip", "wrap", "fill"):
        kw = {"mode": policy}
        counted = np.arange(5, dtype=np.float64)
        positions = positions_read(
            reference("jax.numpy.take", counted + 1, indices, **kw),
            reference("jax.numpy.take", counted + 2, indices, **kw),
        )
        assert positions.tolist() == read_positions("jax.numpy.take", (5,), indices, **kw).tolist()
        seed = cotangent((4,))
        assert gradient_departures(positions, vjp("jax.numpy.take", X, indices, seed, **kw), seed) == []


# -- each framework's own forward and gradient, by the law ----------------------------------------------------


def _installed(name: str):
    return pytest.mark.skipif(importlib.util.find_spec(name) is None, reason=f"{name} is not installed")


@_installed("jax")
@pytest.mark.parametrize("mode", ["clip", "wrap", "fill"])
def test_jax_take_follows_its_forward_under_every_mode_out_of_range_and_duplicated(mode) -> None:
    import jax
    import jax.numpy as jnp

    indices = jnp.array([-1, 7, 2, 2])

    def f(x):
        return jnp.take(x, indices, mode=mode, fill_value=0.0) if mode == "fill" else jnp.take(x, indices, mode=mode)

    with jax.enable_x64(True):
        counted = jnp.arange(5, dtype=jnp.float64)
        positions = positions_read(np.asarray(f(counted + 1)), np.asarray(f(counted + 2)))
        seed = cotangent((4,))
        _, pull = jax.vjp(f, jnp.asarray(X))
        (gradient,) = pull(jnp.asarray(seed))
    assert gradient_departures(positions, np.asarray(gradient), seed) == [], (positions.tolist(), gradient.tolist())


@_installed("torch")
def test_torch_take_along_dim_follows_its_forward_out_of_range_and_duplicated() -> None:
    """torch 2.13 on the CPU wraps 7 and -6 into 5 elements (a known finding against its docs) and its gradient goes
    where the forward read: consistent, whatever the docs say of the forward."""
    import torch

    indices = torch.tensor([4, 0, 2, 2, 7, -6])
    counted = torch.arange(5, dtype=torch.float64)
    positions = positions_read(
        torch.take_along_dim(counted + 1, indices, dim=0).numpy(),
        torch.take_along_dim(counted + 2, indices, dim=0).numpy(),
    )
    x = torch.tensor(X, requires_grad=True)
    assert positions.tolist() == [4, 0, 2, 2, 2, 4]
    seed = cotangent((6,))
    torch.take_along_dim(x, indices, dim=0).backward(torch.tensor(seed))
    assert gradient_departures(positions, x.grad.numpy(), seed) == []


@_installed("tensorflow")
def test_tensorflow_under_xla_reads_a_clamped_element_its_gradient_never_reaches() -> None:
    """The issue's hand-found departure, by the law: TF 2.21 under XLA, ``tf.gather(x, [-1, 1])``: the forward clamps
    -1 and reads element 0; the gradient (``tf.GradientTape``, XLA) sends element 0 nothing. Eager TF refuses -1 on the
    CPU (its docs: an error), so there is no forward to follow there. This test fails once TF's gradient follows."""
    import tensorflow as tf

    indices = tf.constant([-1, 1])

    @tf.function(jit_compile=True)
    def forward(x):
        return tf.gather(x, indices)

    @tf.function(jit_compile=True)
    def pulled(x, seed):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.gather(x, indices)
        return tf.convert_to_tensor(tape.gradient(y, x, output_gradients=seed))

    with tf.device("/CPU:0"):
        counted = tf.range(5, dtype=tf.float64)
        positions = positions_read(forward(counted + 1).numpy(), forward(counted + 2).numpy())
        seed = cotangent((2,))
        gradient = pulled(tf.constant(X), tf.constant(seed)).numpy()
    assert positions.tolist() == [0, 1]
    departures = gradient_departures(positions, gradient, seed)
    assert [(d.position, d.outputs, d.expected, d.got) for d in departures] == [(0, (0,), 1.0, 0.0)]

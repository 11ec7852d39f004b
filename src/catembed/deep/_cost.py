"""The deep clusterers' memory and time, estimated before training (issue 52 item 8).

:class:`~catembed.deep.AttentionClusterer` on 30 rows x 20,000 columns ran 511 s, then torch
asked for 96 GB: every row is 20,000 tokens, and one step's attention scores alone are
``batch x heads x tokens^2`` floats. :func:`check_deep_cost` estimates a fit from the
table's shape and the network's parameters and refuses it through the limits every other
fit reads (``CATEMBED_MAX_MEMORY``, ``CATEMBED_MAX_SECONDS``,
:func:`catembed._utils._limits.check_limits`), warning above two minutes. It runs twice:
from the columns alone before the table is read (a lower bound from its shape: every
column numeric, no values), and with the exact columns and values once encoded.

Memory (float32): the parameters with their gradients, Adam's two moments, the frozen copy of
IDEC's target and one network per restart; the activations one mini-batch keeps for the
backward pass; the activations of one inference chunk (:data:`~catembed.deep._data.CHUNK`
rows), whichever is larger. Time: the multiply-adds of the training steps (three times a
forward pass), of the passes over every row (k-means, the target updates, the final
objective), Adam's update of every parameter a step, and a fixed overhead a step.
Calibrated on 2 shared cores under load (``n_threads=1``, load average 5-8; 7 December
2026): training took 0.6-2.1 times the estimate on IDEC (2,000 x 10 and 30 x 3,000
columns), AutoencoderKMeans (2,000 x 10) and AttentionClusterer (300 x 20, 30 x 500); the
guard's reference partition after training is not counted. :class:`~catembed.deep.VAEWD`
and :class:`~catembed.deep.BiGANWD` (``max_steps`` steps of two networks) are estimated as
twice such a network, not calibrated.
"""

from __future__ import annotations

from typing import Any

from .._utils._limits import check_limits
from ._data import CHUNK
from ._training import stage_steps

__all__ = ["check_deep_cost", "check_thesis_cost", "deep_cost", "thesis_cost"]

#: multiply-adds a second of a CPU thread on these small, overhead-bound matrices
FLOP_RATE = 1e9
#: seconds a step spends beyond its multiply-adds (autograd, the optimiser's loop, Python)
STEP_SECONDS = 1.5e-2
#: seconds Adam spends on one parameter a step
ADAM_SECONDS = 3e-9
#: the thesis' networks (wider, fused Adam): multiply-adds a second and seconds a step, from
#: ThesisClusterer fits of 300-1,000 rows x 10-200 columns (ae, attention, transformer;
#: n_threads=1, load average 8; 7 December 2026)
THESIS_FLOP_RATE, THESIS_STEP_SECONDS = 1e10, 3e-3


def _pairs(widths: list[int]) -> float:
    return float(sum(a * b for a, b in zip(widths[:-1], widths[1:], strict=True)))


def deep_cost(est: Any, n_rows: int, m_cat: int, m_num: int, n_values: int
              ) -> tuple[float, float]:
    """``(bytes, seconds)`` of fitting ``est`` on ``n_rows`` rows of ``m_cat`` categorical
    columns of ``n_values`` values in all and ``m_num`` numeric columns."""
    d, k = int(est.embedding_dim), int(est.n_components)
    hidden = [int(h) for h in est.hidden_sizes]
    tokens = m_cat + m_num
    outputs = float(m_num + n_values)
    batch = min(int(est.batch_size), n_rows)
    chunk = min(CHUNK, n_rows)
    params = float(n_values + m_cat) * d  # the value embeddings (one unseen row a column)
    dec = _pairs([k, *reversed(hidden)]) + (hidden[0] if hidden else k) * outputs
    if hasattr(est, "n_heads"):  # the attention encoder: one token a column
        heads, layers = int(est.n_heads), int(est.n_layers)
        params += tokens * d + 2.0 * m_num * d + layers * (8.0 * d * d + 10 * d) + d * (d + k)
        keep = layers * (3.0 * heads * tokens * tokens + 14.0 * tokens * d) + 3.0 * tokens * d
        look = layers * (2.0 * heads * tokens * tokens + 6.0 * tokens * d)
        flops = layers * (16.0 * tokens * d * d + 4.0 * tokens * tokens * d) + 2.0 * d * k
    else:
        widths = [m_cat * d + m_num, *hidden, k]
        params += _pairs(widths)
        keep = 2.0 * sum(widths)
        look = float(max(widths))
        flops = 2.0 * _pairs(widths)
    params += dec
    keep += 3.0 * outputs + 2.0 * sum(hidden)
    look += outputs
    flops += 2.0 * dec
    if hasattr(est, "max_steps"):  # VAEWD / BiGANWD: the wide part, a second network
        params = 2.0 * params + float(n_values + m_cat) * k
        keep, flops = 2.0 * keep, 2.0 * flops
        restarts, steps, passes = 1, int(est.max_steps), 1.0
    else:
        pre, clu = (stage_steps(est, n_rows) if hasattr(est, "max_epochs")
                    else (int(est.pretrain_steps), int(est.cluster_steps)))
        restarts, steps, passes = int(est.n_init), pre, 3.0
        if est._objective_name() == "idec":
            steps += clu
            passes += clu / max(int(est.update_interval), 1)
    train = 4.0 * ((5.0 + restarts) * params + 2.0 * batch * keep)
    infer = 4.0 * ((1.0 + restarts) * params + chunk * look)
    need = max(train, infer)
    seconds = restarts * (steps * (3.0 * flops * batch / FLOP_RATE + params * ADAM_SECONDS
                                   + STEP_SECONDS)
                          + passes * n_rows * flops / FLOP_RATE)
    return need, seconds


def check_deep_cost(est: Any, n_rows: int, m_cat: int, m_num: int, n_values: int, *,
                    exact: bool = True) -> None:
    """Refuse (:class:`~catembed.CatEmbedError`) a fit whose :func:`deep_cost` exceeds
    ``CATEMBED_MAX_MEMORY`` or ``CATEMBED_MAX_SECONDS``; warn above two minutes (only for
    the ``exact`` estimate, not the first one from a lower bound of the values)."""
    need, seconds = deep_cost(est, n_rows, m_cat, m_num, n_values)
    what = f"{type(est).__name__} on {n_rows} rows x {m_cat + m_num} columns"
    if exact:
        what += f" ({n_values} distinct values)"
    steps = "max_steps" if hasattr(est, "max_steps") else "pretrain_steps / cluster_steps, n_init"
    hint = f"drop identifier-like columns, pool rare values, or lower {steps} or batch_size"
    if hasattr(est, "n_heads"):
        hint = ("every column is a token of every row, so memory grows with batch_size x "
                "columns^2: keep fewer columns, lower batch_size, or use IDEC / "
                "AutoencoderKMeans (one vector a row)")
    check_limits(what, need, seconds, hint, warn=exact)


def thesis_cost(est: Any, n_rows: int, sizes: list[int], m_num: int) -> tuple[float, float]:
    """``(bytes, seconds)`` of fitting :class:`~catembed.deep.ThesisClusterer` ``est`` on
    ``n_rows`` rows of categorical columns of ``sizes`` values and ``m_num`` numbers: the
    front end (column embeddings, or 32-wide column tokens through attention or ``n_blocks``
    Transformer blocks), the encoder / decoder of
    :func:`~catembed.deep._thesis_nets.layer_widths`, ``epochs`` of pretraining and each
    clustering stage of its protocol, ``n_init`` times; counted as :func:`deep_cost` counts
    (its own rates, :data:`THESIS_FLOP_RATE`)."""
    from ._thesis_nets import SHARED_DIM, TOKEN_DIM, embedding_width, layer_widths
    from ._thesis_stages import THESIS_CHAIN, stage_epochs

    d, network = TOKEN_DIM, str(est.network)
    params = flops = keep = 0.0
    if network == "ae":
        widths = [embedding_width(s) for s in sizes]
        width = sum(widths) + m_num
        params = float(sum((s + 1) * w for s, w in zip(sizes, widths, strict=True)))
        keep = 2.0 * width
    else:
        tokens = len(sizes) + (m_num if network == "ft-transformer" else 0)
        width = tokens * d + (0 if network == "ft-transformer" else m_num)
        params = float(sum(s + 1 for s in sizes)) * (d - SHARED_DIM) + tokens * SHARED_DIM
        if network == "attention":  # one head, queries / keys / values, no output map
            params += 3.0 * d * d
            flops = 3.0 * tokens * d * d + 2.0 * tokens * tokens * d
            keep = 3.0 * tokens * tokens + 5.0 * tokens * d
        else:
            blocks, heads = int(est.n_blocks), int(est.n_heads)
            params += blocks * (12.0 * d * d + 13.0 * d)
            flops = blocks * (12.0 * tokens * d * d + 2.0 * tokens * tokens * d)
            keep = blocks * (3.0 * heads * tokens * tokens + 16.0 * tokens * d)
    layers = layer_widths(width, width)
    mlp = 2.0 * _pairs(layers)  # the encoder and the mirrored decoder
    params += mlp + int(est.n_clusters) * layers[-1]
    flops += mlp
    keep += 4.0 * sum(layers) + 2.0 * width
    batch = min(int(est.batch_size), n_rows)
    steps = -(-n_rows // batch)
    stages = 0
    if est.clustering != "kmeans":
        chain = (THESIS_CHAIN[est.clustering] if est.cluster_protocol == "thesis"
                 else (est.clustering,))
        stages = len(chain) * stage_epochs(est)
    epochs = int(est.epochs) + stages
    restarts = int(est.n_init)
    need = 4.0 * (5.0 * params + 2.0 * batch * keep + min(4096, n_rows) * keep)
    rate = THESIS_FLOP_RATE
    seconds = restarts * (epochs * steps * (3.0 * flops * batch / rate
                                            + params * ADAM_SECONDS + THESIS_STEP_SECONDS)
                          + (2.0 + stages) * n_rows * flops / rate)
    return need, seconds


def check_thesis_cost(est: Any, n_rows: int, sizes: list[int], m_num: int) -> None:
    """Refuse or warn about a :class:`~catembed.deep.ThesisClusterer` fit as
    :func:`check_deep_cost` does for the other deep clusterers."""
    need, seconds = thesis_cost(est, n_rows, sizes, m_num)
    what = (f"ThesisClusterer(network={est.network!r}) on {n_rows} rows x "
            f"{len(sizes) + m_num} columns ({int(sum(sizes))} distinct values)")
    hint = "drop identifier-like columns, pool rare values, or lower epochs or n_init"
    if est.network != "ae":
        hint = ("every column is a token of every row, so memory grows with batch_size x "
                "columns^2: keep fewer columns, lower batch_size, or use network='ae'")
    check_limits(what, need, seconds, hint)

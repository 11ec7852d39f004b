"""Deep mixed-type clustering and UNTIE's deep baselines (issue 13; PyTorch, optional).

* :class:`AutoencoderKMeans`: a mixed-type autoencoder (numeric columns standardised,
  categorical columns as learned value embeddings; MSE + per-column cross-entropy) followed
  by k-means in the latent space.
* :class:`IDEC`: the same network trained jointly with the DEC/IDEC clustering loss
  (Student-t soft assignment, KL to the sharpened target, reconstruction kept).
* :class:`AttentionClusterer`: each column a token, a small transformer encoder across the
  columns, attention pooling to the latent vector, the same objectives; the pooling
  attention per cluster is the fitted ``cluster_attention_``.
* :class:`ThesisClusterer`: the finished Fehling thesis' four networks (AE with categorical
  embeddings, AE with attention, Transformer, FT-Transformer) times its four clustering
  stages (k-means, DEC, IDEC, DCN), as the thesis describes them.
* :class:`VAEWD`, :class:`BiGANWD`: the VAE and BiGAN baselines of UNTIE (Zhu, Cao, Yin,
  TPAMI) Table IV on a wide-and-deep encoder, as embedders.

PyTorch is imported only when a model is fitted (``pip install -e ".[deep]"``); importing
this package does not need it.
"""

from __future__ import annotations

from .._utils._lazy import lazy_exports

__all__ = ["AttentionClusterer", "AutoencoderKMeans", "BiGANWD", "IDEC", "ThesisClusterer",
           "VAEWD"]

_WHERE = {
    "AttentionClusterer": "clustering",
    "AutoencoderKMeans": "clustering",
    "IDEC": "clustering",
    "ThesisClusterer": "thesis",
    "BiGANWD": "wide_deep",
    "VAEWD": "wide_deep",
}

__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

"""The deep methods in the evaluation registry (one place; imported by
``catembed.evaluation.methods``). Targets are ``"module:attribute"`` strings, so this module
imports neither torch nor the models: without torch the methods report an error when run.
"""

from __future__ import annotations

from ..evaluation.methods import register_method

_CLU = "catembed.deep.clustering"

register_method("deep-ae-kmeans", labels=f"{_CLU}:autoencoder_kmeans_labels", random=True,
                description="mixed-type autoencoder (value embeddings) + k-means on its codes")
register_method("deep-idec", labels=f"{_CLU}:idec_labels", random=True,
                description="IDEC (Guo et al. 2017) on the mixed-type autoencoder")
register_method("deep-attention", labels=f"{_CLU}:attention_labels", random=True,
                description="column tokens + transformer encoder + attention pooling, IDEC loss")
register_method("deep-attention-cde", labels=f"{_CLU}:attention_labels", random=True,
                params={"value_init": "cde"},
                description="deep-attention with value embeddings started from CDE vectors")
register_method("deep-idec-cde", labels=f"{_CLU}:idec_labels", random=True,
                params={"value_init": "cde"},
                description="deep-idec with value embeddings started from CDE vectors")
# UNTIE Table IV's deep baselines: fitted once (seed of the first run), k-means repeated
register_method("vae-wd", embedding="catembed.deep.wide_deep:VAEWD",
                description="VAE_WD: VAE on a wide-and-deep encoder (UNTIE Table IV)")
register_method("bigan-wd", embedding="catembed.deep.wide_deep:BiGANWD",
                description="BiGAN_WD: BiGAN on a wide-and-deep encoder (UNTIE Table IV)")

"""The transform path (``docs/design.md``, "The flow"): the output projection, the
lookup of each row's value vectors (one fused kernel), the output names, fits from
chunks and Dask frames, and files streamed through a fitted or saved model
(:mod:`catembed.transform.streaming`)."""

"""Layer 0 of the flow: checks, errors, parameters, threads, progress and text helpers
every other step uses (``docs/design.md``, "Layers"). Nothing here is public API:
the errors are ``catembed.CatEmbedError`` and friends."""

"""The shared sufficient statistics of every value-coupling method.

Every method in catembed (CDE, CDE++, UNTIE, the similarity baselines) is a function of
two things computed in a single pass over the rows (method spec, section 0):

* the value counts ``cnt(v)`` for each of the ``l`` values of all attributes, and
* the ``l x l`` co-occurrence count matrix ``C = O^T O`` (``O`` the ``n x l`` one-hot matrix):
  ``C[u, v]`` is the number of rows holding both ``u`` and ``v``, ``C[v, v] = cnt(v)``, and 0
  for two values of one attribute.

Both are integer sums over rows, so the statistics of two chunks of a table add up exactly:
:meth:`ValueStatistics.merge` re-indexes both onto the union of their values and adds. A file
read chunk by chunk, or a table split into partitions on a cluster, gives bit for bit the
statistics of the whole table (:func:`compute_statistics` accepts an iterable of chunks).

Entropies, mutual information and the normalised mutual information (symmetric uncertainty)
between attributes are derived from the blocks of ``C``.

Storage of ``C``: a dense ``int64`` array while ``l <= dense_limit`` (default 4096 values,
i.e. at most 128 MiB); above that a ``scipy.sparse`` CSR array holding only the value pairs
that occur (about 12 bytes per co-occurring pair, at most ``n m (m-1)`` of them). When those
pairs would not fit the memory limit (a few rows of tens of thousands of columns), ``C`` is
kept as its factor, the one-hot rows ``O`` (``n m`` ones; :mod:`catembed.stats._gram`): the
statistics still count, merge, pool and save exactly, products with ``C`` and its rows come
from ``O``, and a method that needs the whole ``l x l`` matrix is refused with the memory it
would take. An identifier column (as many values as rows) makes ``l`` explode; drop it.

This package is the public entry (:func:`compute_statistics`: one table, chunks, or a Dask
DataFrame's partitions, merged exactly) and re-exports the pieces, each in its own module:
value encoding in :mod:`catembed.stats._encoding` (:func:`factorize`, :func:`encode`,
:data:`INFREQUENT`), counting a code matrix in :mod:`catembed.stats._counting`, and the container
with its derived quantities in :mod:`catembed.stats._value_statistics` (:class:`ValueStatistics`).
"""

from __future__ import annotations

from .._utils._lazy import lazy_exports

#: public name -> the module of this package that defines it (imported on first use, so that
#: the transform path, which needs only the value encoding, does not import SciPy)
_WHERE = {
    "DENSE_LIMIT": "_counting",
    "INFREQUENT": "_encoding",
    "ValueStatistics": "_value_statistics",
    "compute_statistics": "_compute",
    "count_chunks": "_compute",
    "count_table": "_value_statistics",
    "encode": "_encoding",
    "encode_column": "_encoding",
    "encode_frame": "_encoding",
    "factorize": "_encoding",
    "factorize_frame": "_encoding",
    "statistics_from_iterable": "_compute",
}

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

"""Reading inputs: TREC text, tables (Parquet, CSV/TSV, Arrow, Polars, pandas), preference files.

Every reader ends in the canonical LazyFrames (``query_id, doc_id, relevance`` and
``query_id, doc_id, score``) with the columns mapped, never assumed. The first layer above
:mod:`rankframe._errors`: it knows nothing of measures or plans.
"""

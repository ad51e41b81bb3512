"""``ranx.metrics.ndcg``."""

from rankframe.compat.ranx.metrics._functions import dcg, dcg_burges, ndcg, ndcg_burges

__all__ = ["dcg", "dcg_burges", "ndcg", "ndcg_burges"]

"""``ranx.fusion.condorcet``: placeholders until ``rankframe.fuse`` is merged (issue 41)."""

from __future__ import annotations

from rankframe.compat.ranx._pending import pending

condorcet = pending("condorcet")
get_candidates = pending("fusion.condorcet.get_candidates")
get_results = pending("fusion.condorcet.get_results")

"""``ranx.fusion.bayesfuse``: placeholders until ``rankframe.fuse`` is merged (issue 41)."""

from __future__ import annotations

from rankframe.compat.ranx._pending import pending

bayesfuse = pending("bayesfuse")
bayesfuse_train = pending("bayesfuse_train")
_estimate_log_odds = pending("fusion.bayesfuse._estimate_log_odds")

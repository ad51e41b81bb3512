"""Rank fusion: several runs combined into one (ranx's methods and normalisations).

Imported on first use of :func:`rankframe.fuse`. Above the engine: it reads runs with the
engine's readers and returns a run frame for :func:`rankframe.evaluate`.

* :mod:`.inputs` reads and stacks the runs; :mod:`.norms` normalises each run's scores;
* :mod:`.methods` holds the untrained methods, :mod:`.condorcet` the pairwise ones;
* :mod:`.fuse` plans them: :func:`~rankframe._fusion.fuse.fuse`.
"""

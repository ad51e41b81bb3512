"""Inline measures (``rankframe.expr``): the aggregation-only form against the planner's list form.

Some measure families built their value in two ways: in the planner from per-query partials
(sorted lists imploded once per query, then list arithmetic after the group_by over every query
at once, :meth:`Ctx.partial` / :meth:`Ctx.derived`), and, inline in a user's own
``group_by(...).agg(rfx.measure(...))``, as one aggregation of plain expressions. Inline the
partials and derived values are the expressions themselves, so the list form can serve there
too: ``.implode()`` and the ``list.*`` steps then run inside the aggregation, query by query.

For each measure this times, in one process, medians of ``--rounds`` interleaved runs:

* ``inline``: ``df.lazy().group_by("qid").agg(rfx.measure(name, ...)).collect()``, whatever
  form ``rankframe.expr`` builds today;
* ``lists``: the same aggregation built from the planner's list form (a context whose
  ``partials`` is set, so that every ``ctx.partials`` branch takes the planner's side, but
  whose :meth:`Ctx.partial` and :meth:`Ctx.derived` return the expression itself, as inline).

It checks that both give the same per-query values (``bits``: the queries whose values differ
in any bit). ``ratio`` is lists / inline of the median wall times, ``min`` of the fastest runs,
``cpu`` of the median CPU times (every thread; steadier on a shared machine). Where a family
keeps one path for both, both columns time the same expression (a ratio near 1.0); where it
keeps two, the ratio is the inline cost of the list form, quoted at its branch.

Measured with both paths in place (1M rows, 2 threads, Polars 2.1.0, medians of 7-11, the
ratios steady to ~0.1 over three runs; every value the same bits in both forms)::

    measure        inline s  lists s  ratio   decision
    Bpref             0.44     0.49   1.13x   one path (list form)
    Rprec             0.071    0.111  1.55x   two paths
    RprecMult@0.5     0.075    0.106  1.45x   two paths
    nDCG              0.41     0.79   1.90x   two paths (the hits plan's lists: 1.6x)
    nDCG@10           0.58     0.79   1.36x   two paths
    nDCG_rel          1.31     1.44   1.10x   one path (dcg_lists)
    RnDCG             1.16     1.20   1.04x   one path (dcg_lists)
    infAP             1.06     3.17   3.00x   two paths
    binG              0.40     0.21   0.53x   one path (list form)
    IPrec@0.5         0.31     0.31   1.00x   one path (list form)
    RBP               0.29     0.61   2.07x   two paths
    RBP(rel=2)        0.11     0.11   0.98x   (RBP's branch)
    AP                0.20     0.48   2.44x   two paths
    AP@10             0.28     0.48   1.69x   two paths

Generated data: ``--queries`` queries of ``--docs`` documents (default 10,000 x 100 = 1M rows),
grades 0-3 with ~10% of the documents relevant (grade >= 1), ~20% unjudged (null label, for
Bpref and infAP), ~5% of the scores tied with the document before. Polars only.

    python benchmarks/experiments/inline_paths.py
    python benchmarks/experiments/inline_paths.py --measures Bpref AP --rounds 7
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import time

import polars as pl

from rankframe import expr as rfx
from rankframe._measures import Ctx
from rankframe._measures._names import parse_measure

MEASURES = [
    "Bpref", "Rprec", "RprecMult@0.5", "nDCG", "nDCG@10", "nDCG_rel", "RnDCG", "infAP", "binG",
    "IPrec@0.5", "RBP", "RBP(rel=2)", "AP", "AP@10",
]
# IPrecAvg reads IPrec's curve (the same branch as IPrec@0.5); inline its walk over the recall
# levels is written out (O(levels^3) nodes: ~12 ms per query in either form), so it is left out
# of the default list


@dataclasses.dataclass(frozen=True)
class ListsInline(Ctx):
    """A context that takes the planner's side of every ``ctx.partials`` branch, inline.

    ``partials`` is set (so the branches test true), but partials and derived values are
    returned as they are, not registered: the whole measure stays one aggregation.
    """

    def partial(self, name: str, value: pl.Expr) -> pl.Expr:
        """Return ``value`` itself (inline)."""
        return value

    def derived(self, name: str, value: pl.Expr) -> pl.Expr:
        """Return ``value`` itself (inline)."""
        return value


def generate(queries: int, docs: int, seed: int = 0) -> pl.DataFrame:
    """A judged frame: qid, doc, score, label (null: unjudged)."""
    rng = random.Random(seed)
    n = queries * docs
    scores: list[float] = []
    labels: list[int | None] = []
    for i in range(n):
        tied = i % docs > 0 and rng.random() < 0.05
        scores.append(scores[-1] if tied else round(rng.random(), 6))
        u = rng.random()
        labels.append(None if u < 0.2 else rng.randint(1, 3) if u < 0.3 else 0)
    return pl.DataFrame({
        "qid": pl.int_range(n, eager=True) // docs,
        "doc": pl.Series([f"d{i % docs}" for i in range(n)]),
        "score": scores,
        "label": pl.Series(labels, dtype=pl.Int64),
    })


def lists_expr(name: str) -> pl.Expr:
    """``rfx.measure(name, ...)`` built on the planner's list form (:class:`ListsInline`)."""
    base = rfx._ctx("score", "label", "doc", 1)
    ctx = ListsInline(**{
        **{f.name: getattr(base, f.name) for f in dataclasses.fields(base)}, "partials": {}
    })
    return parse_measure(name)[0].aggregation(ctx)


def _collect(lf: pl.LazyFrame, e: pl.Expr) -> tuple[tuple[float, float], pl.DataFrame]:
    """The aggregation's result, and its wall and CPU seconds (CPU: every thread of the process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = lf.group_by("qid").agg(e.alias("v")).collect()
    return (time.perf_counter() - wall, time.process_time() - cpu), out


def main() -> None:
    """Time each measure's two inline forms and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--measures", nargs="*", default=MEASURES)
    args = parser.parse_args()
    df = generate(args.queries, args.docs)
    lf = df.lazy()
    print(f"{df.height:,} rows, {args.queries:,} queries, polars {pl.__version__}, "
          f"{pl.thread_pool_size()} threads, median of {args.rounds}")
    print(f"{'measure':<16}{'inline s':>10}{'lists s':>9}{'ratio':>7}{'min':>7}{'cpu':>7}"
          f"{'bits':>6}{'max diff':>10}")
    for name in args.measures:
        forms = {"inline": rfx.measure(name, score="score", label="label", doc="doc"),
                 "lists": lists_expr(name)}
        values = {k: _collect(lf, e)[1].sort("qid")["v"] for k, e in forms.items()}  # warm-up
        differ = (values["inline"] != values["lists"]).sum()
        diff = (values["inline"] - values["lists"]).abs().max()
        wall: dict[str, list[float]] = {k: [] for k in forms}
        cpu: dict[str, list[float]] = {k: [] for k in forms}
        for r in range(args.rounds):
            for k in (list(forms) if r % 2 == 0 else list(reversed(forms))):
                (w, c), _ = _collect(lf, forms[k])
                wall[k].append(w)
                cpu[k].append(c)
        a, b = (statistics.median(wall[k]) for k in forms)
        ratio_min = min(wall["lists"]) / min(wall["inline"])
        ratio_cpu = statistics.median(cpu["lists"]) / statistics.median(cpu["inline"])
        print(f"{name:<16}{a:>10.3f}{b:>9.3f}{b / a:>6.2f}x{ratio_min:>6.2f}x{ratio_cpu:>6.2f}x"
              f"{differ:>6}{diff:>10.1e}", flush=True)

if __name__ == "__main__":
    main()

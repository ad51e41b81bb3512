"""ndeval's intent-aware measures (``rankframe._measures.subtopics``) against pyndeval (ndeval.c).

pyndeval 0.0.8 wraps the TREC Web track's ``ndeval.c``; it ranks a run by score, ties to the
doc id *earlier* in byte order (Python's ``sorted``), where rankframe follows trec_eval (later):
the generated runs are compared with ``ties="input"`` on the run sorted as pyndeval sorts it,
the real run by giving pyndeval rankframe's order as scores. ndeval's nNRBP is NaN (0/0) on a
query without a relevant subtopic, where rankframe says 0.
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import rankframe as rf
from rankframe._errors import MeasureError

pyndeval = pytest.importorskip("pyndeval", reason="pyndeval (ndeval.c) is the oracle")

DATA = Path(__file__).parent / "data" / "trec_web_diversity"
QRELS = DATA / "qrels.web2012.diversity.sample.txt"
RUN = DATA / "run.web2012.ql.cata-filtered.top50.txt"

def _names(rel: int, alpha: float, beta: float, cutoffs: tuple[int, ...]) -> dict[str, str]:
    """pyndeval's name -> rankframe's, for one (level, alpha, beta) invocation of pyndeval."""
    a = "" if alpha == 0.5 else f"alpha={alpha}"
    ab = ",".join(x for x in (a, "" if beta == 0.5 else f"beta={beta}") if x)
    r = "" if rel == 1 else f"rel={rel}"

    def params(*parts: str) -> str:
        inner = ",".join(p for p in parts if p)
        return f"({inner})" if inner else ""

    out = {"NRBP": f"NRBP{params(ab, r)}", "nNRBP": f"nNRBP{params(ab, r)}"}
    for k in cutoffs:
        out |= {f"alpha-DCG@{k}": f"alpha_DCG{params(a, r)}@{k}",
                f"alpha-nDCG@{k}": f"alpha_nDCG{params(a, r)}@{k}"}
    if alpha != 0.5:  # ndeval's alpha is global: ERR-IA's too, which ir_measures leaves at 0.5
        return out
    out["MAP-IA"] = f"AP_IA{params(r)}"
    for k in cutoffs:
        out |= {
            f"ERR-IA@{k}": f"ERR_IA{params(r)}@{k}",
            f"nERR-IA@{k}": f"nERR_IA{params(r)}@{k}",
            f"P-IA@{k}": f"P_IA{params(r)}@{k}",
            f"strec@{k}": f"StRecall{params(r)}@{k}",
        }
    return out


#: The invocations compared: (rel, alpha, beta); alpha and beta are global in ndeval.
SETTINGS = ((1, 0.5, 0.5), (2, 0.5, 0.5), (1, 0.25, 0.8))
CUTOFFS = (1, 2, 5, 20)


def _compare(qrels: list[tuple], run: list[tuple], got: pl.DataFrame, cutoffs: tuple[int, ...]) -> int:
    """Assert every (query, measure) of pyndeval equals rankframe's; return how many compared."""
    values = {(r["query_id"], r["measure"]): r["value"] for r in got.iter_rows(named=True)}
    run = sorted(run, key=lambda x: x[0])  # pyndeval reads a query's documents as one block
    compared = 0
    for rel, alpha, beta in SETTINGS:
        names = _names(rel, alpha, beta, cutoffs)
        ev = pyndeval.RelevanceEvaluator(qrels, list(names), relevance_level=rel, alpha=alpha, beta=beta)
        expected = ev.evaluate(run)
        assert {q for q, _ in values} == set(expected)
        for qid, row in expected.items():
            for theirs, ours in names.items():
                want = 0.0 if math.isnan(row[theirs]) else row[theirs]
                assert values[qid, ours] == pytest.approx(want, rel=1e-12, abs=1e-15), (qid, ours)
                compared += 1
    return compared


def _measures(cutoffs: tuple[int, ...]) -> list[str]:
    return list(dict.fromkeys(n for s in SETTINGS for n in _names(*s, cutoffs).values()))


DOCS = ("d1", "d2", "d9", "d10", "d3")  # "d10" < "d9" in byte order: the ideal's tie rule
judgment = st.tuples(st.sampled_from("ab"), st.sampled_from(["1", "2", "3"]), st.sampled_from(DOCS),
                     st.sampled_from([-1, 0, 1, 1, 2]))
retrieved = st.tuples(st.sampled_from("ab"), st.sampled_from(DOCS), st.sampled_from([0.0, 0.5, 1.0, 2.0]))


def _unique(rows: list[tuple], key: slice) -> list[tuple]:
    return list({r[key]: r for r in rows}.values())


def _frames(
    qrels: list[tuple], run: list[tuple], *, subtopics: bool = True
) -> tuple[pl.DataFrame, pl.DataFrame]:
    q = pl.DataFrame(qrels, schema=["query_id", "subtopic", "doc_id", "relevance"], orient="row")
    if not subtopics:
        q = q.drop("subtopic")
    r = pl.DataFrame(run, schema=["query_id", "doc_id", "score"], orient="row")
    # pyndeval's order: score descending, then doc id ascending; ranked as given here
    return q, r.sort(["query_id", "score", "doc_id"], descending=[False, True, False])


@settings(max_examples=settings.default.max_examples * 3)
@given(st.lists(judgment, min_size=1, max_size=12), st.lists(retrieved, min_size=1, max_size=8))
@example([("a", "1", "d1", 0)], [("a", "d1", 1.0)])  # no relevant subtopic: all 0 (nNRBP 0/0)
@example([("a", "1", "d1", 1)], [("a", "d1", 1.0)])  # one document
@example(  # all ties; ideal ties between d10 and d9 (same subtopics): ndeval takes "d9"
    [("a", "1", "d9", 1), ("a", "1", "d10", 1), ("a", "2", "d9", 1), ("a", "2", "d10", 1),
     ("a", "3", "d1", 1)],
    [("a", "d10", 1.0), ("a", "d9", 1.0), ("a", "d1", 1.0), ("a", "d3", 1.0)],
)
def test_subtopic_qrels_match_pyndeval(judgments: list[tuple], ranked: list[tuple]) -> None:
    qrels = _unique(judgments, slice(0, 3))
    run = _unique(ranked, slice(0, 2))
    q, r = _frames(qrels, run)
    got = rf.evaluate(q, r, _measures(CUTOFFS), per_query=True, ties="input")
    _compare(qrels, run, got, CUTOFFS)


@settings(max_examples=settings.default.max_examples * 2)
@given(st.lists(judgment, min_size=1, max_size=8), st.lists(retrieved, min_size=1, max_size=6))
def test_qrels_without_subtopics_are_one_subtopic(judgments: list[tuple], ranked: list[tuple]) -> None:
    # the ordinary planner (no subtopic column): pyndeval reads every judgment as subtopic "0"
    qrels = [(qid, "0", doc, grade) for qid, _, doc, grade in _unique(judgments, slice(0, 3))]
    qrels = _unique(qrels, slice(0, 3))
    run = _unique(ranked, slice(0, 2))
    q, r = _frames(qrels, run, subtopics=False)
    got = rf.evaluate(q, r, _measures(CUTOFFS), per_query=True, ties="input")
    _compare(qrels, run, got, CUTOFFS)


def test_trec_web_2012_sample_matches_ndeval() -> None:
    # real diversity qrels (subtopic in the second field) read from the TREC file itself
    cutoffs = (5, 10, 20)
    got = rf.evaluate(str(QRELS), str(RUN), _measures(cutoffs), per_query=True)
    qrels = [(q, s, d, int(g)) for q, s, d, g in (line.split() for line in QRELS.read_text().splitlines())]
    rows = [line.split() for line in RUN.read_text().splitlines()]
    # rankframe's order (trec_eval: ties to the later doc id), given to pyndeval as scores
    ordered = sorted(rows, key=lambda x: (x[0], -float(x[4]), [-b for b in x[2].encode()]))
    run = [(x[0], x[2], -float(i)) for i, x in enumerate(ordered)]
    assert _compare(qrels, run, got, cutoffs) == 5 * (21 + 21 + 8)
    mean = rf.evaluate(str(QRELS), str(RUN), ["alpha_nDCG@20", "P@10"])
    assert mean["measure"].to_list() == ["alpha_nDCG@20", "P@10"]
    per_query = got.filter(pl.col("measure") == "alpha_nDCG@20")["value"].mean()
    assert mean["value"][0] == pytest.approx(per_query, rel=1e-15)


def test_other_measures_read_the_qrels_collapsed() -> None:
    # a document's grade for P, nDCG...: its largest over the subtopics (ndeval's "relevant")
    q, r = _frames([("a", "1", "d1", 0), ("a", "2", "d1", 2), ("a", "1", "d2", 1)],
                   [("a", "d1", 2.0), ("a", "d2", 1.0)])
    got = rf.evaluate(q, r, ["P(rel=2)@1", "StRecall@1", "nDCG@2"], per_query=True)
    assert got["measure"].to_list() == ["P(rel=2)@1", "StRecall@1", "nDCG@2"]
    assert got["value"].to_list()[:2] == [1.0, 0.5]
    plain = rf.evaluate(q.group_by("query_id", "doc_id").agg(pl.col("relevance").max()), r, ["nDCG@2"])
    assert got["value"][2] == plain["value"][0]


@pytest.mark.parametrize("name", ["alpha_nDCG", "ERR_IA", "P_IA", "StRecall"])
def test_cutoff_is_required(name: str) -> None:
    with pytest.raises(MeasureError, match=f"{name} needs a cutoff"):
        rf.evaluate(pl.DataFrame({"query_id": ["a"], "doc_id": ["d"], "relevance": [1]}),
                    pl.DataFrame({"query_id": ["a"], "doc_id": ["d"], "score": [1.0]}), [name])


def test_options_the_subtopic_plan_does_not_take() -> None:
    q, r = _frames([("a", "1", "d1", 1)], [("a", "d1", 1.0)])
    with pytest.raises(rf.InputError, match="do not take dedupe='best'"):
        rf.evaluate(q, r, ["AP_IA"], dedupe="best")
    absent = r"'locale' is not a column of the run \(it has query_id, doc_id, score\)"
    with pytest.raises(rf.InputError, match=absent):
        rf.evaluate(q, r, ["AP_IA"], by=["locale"])
    # a frame where the default is None: named, not compared as a frame (a TypeError before)
    with pytest.raises(rf.InputError, match=r"do not take items=<DataFrame>"):
        rf.evaluate(q, r, ["AP_IA"], items=r)


def test_drop_in_pyndeval_provider_on_the_sample() -> None:
    from rankframe.compat import ir_measures

    qrels = list(ir_measures.read_trec_qrels(str(QRELS)))
    run = list(ir_measures.read_trec_run(str(RUN)))
    measure = ir_measures.alpha_nDCG @ 10
    got = {m.query_id: m.value for m in ir_measures.pyndeval.iter_calc([measure], qrels, run)}
    pq = [(q.query_id, q.iteration, q.doc_id, q.relevance) for q in qrels]
    pr = [(s.query_id, s.doc_id, s.score) for s in run]
    want = {k: v["alpha-nDCG@10"] for k, v in pyndeval.ndeval(pq, pr, ["alpha-nDCG@10"]).items()}
    assert got == pytest.approx(want, rel=1e-12)


def test_duplicate_rows_are_refused() -> None:
    q, r = _frames([("a", "1", "d1", 1), ("a", "1", "d1", 2)], [("a", "d1", 1.0)])
    dup = r"duplicate \(query, subtopic, doc\) rows in the qrels: \('a', '1', 'd1'\) x2"
    with pytest.raises(rf.InputError, match=dup):
        rf.evaluate(q, r, ["AP_IA"])
    q, r = _frames([("a", "1", "d1", 1)], [("a", "d1", 1.0), ("a", "d1", 2.0)])
    with pytest.raises(rf.InputError, match=r"duplicate \(query, doc\) rows in the run"):
        rf.evaluate(q, r, ["AP_IA"])
    # past three, the count of them all, then the first three
    q, r = _frames([("a", "1", d, 1) for d in DOCS] * 2, [("a", "d1", 1.0)])
    many = (r"duplicate \(query, subtopic, doc\) rows in the qrels: 5 listed more than once "
            r"\(5 extra rows\), e\.g\. \('a', '1', 'd1'\) x2; \('a', '1', 'd10'\) x2; "
            r"\('a', '1', 'd2'\) x2\.")
    with pytest.raises(rf.InputError, match=many):
        rf.evaluate(q, r, ["AP_IA"])


@settings(max_examples=settings.default.max_examples * 2)
@given(
    st.lists(judgment, min_size=1, max_size=10),
    st.lists(st.tuples(st.sampled_from("ab"), st.sampled_from(DOCS), st.sampled_from([0.0, 0.5, 1.0, 2.0]),
                       st.sampled_from(["x", "y"])), min_size=1, max_size=10),
    st.booleans(),
)
@example([("a", "1", "d1", 1), ("b", "1", "d2", 1)], [("a", "d1", 1.0, "x")], True)  # 'b' in no group
def test_breakdown_scores_each_group_as_evaluated_alone(
    judgments: list[tuple], ranked: list[tuple], complete: bool
) -> None:
    # a (day, query) is ranked and scored apart: the values of evaluating that day's rows alone
    # (checked against pyndeval above), bit for bit; under complete, a judged query in no day
    # is 0 in a group of its own with a null day, as evaluate's breakdowns give it
    qrels = _unique(judgments, slice(0, 3))
    rows = _unique(ranked, slice(0, 2))
    q = pl.DataFrame(qrels, schema=["query_id", "subtopic", "doc_id", "relevance"], orient="row")
    r = pl.DataFrame(rows, schema=["query_id", "doc_id", "score", "day"], orient="row")
    measures = _measures((1, 5))
    got = rf.evaluate(q, r, measures, by=["day"], per_query=True, complete=complete)
    for day in ("x", "y"):
        alone = rf.evaluate(q, r.filter(pl.col("day") == day).drop("day"), measures, per_query=True)
        assert got.filter(pl.col("day") == day).drop("day").equals(alone)
    nowhere = set(q["query_id"]) - set(r["query_id"]) if complete else set()
    lost = got.filter(pl.col("day").is_null())
    assert set(lost["query_id"]) == nowhere
    assert lost["value"].to_list() == [0.0] * lost.height
    assert got["day"].is_null().arg_true().to_list() == list(range(got.height - lost.height, got.height))
    means = rf.evaluate(q, r, measures, by=["day"], complete=complete)
    want = got.group_by("day", "measure", maintain_order=True).agg(pl.col("value").mean())
    assert means.sort("day", "measure", nulls_last=True).equals(want.sort("day", "measure", nulls_last=True))


def test_breakdown_of_several_runs_on_the_sample() -> None:
    run = rf.read_run(str(RUN)).collect()
    even = pl.col("doc_id").hash(seed=1) % 2 == 0
    run = run.with_columns(pl.when(even).then(pl.lit("even")).otherwise(pl.lit("odd")).alias("day"))
    later = run.filter(pl.col("query_id") != "151")
    measures = ["alpha_nDCG@20", "ERR_IA@10", "nNRBP", "nDCG@10"]
    got = rf.evaluate(str(QRELS), {"A": run, "B": later}, measures, by=["day"], complete=True, per_query=True)
    assert got.columns == ["run", "day", "query_id", "measure", "value"]
    for name, frame in (("A", run), ("B", later)):
        for day in ("even", "odd"):
            rows = frame.filter(pl.col("day") == day).drop("day")
            alone = rf.evaluate(str(QRELS), rows, measures, per_query=True)
            assert got.filter(run=name, day=day).drop("run", "day").equals(alone)
    # query 151 is judged and in no group of run B: 0 in B's null day, as for nDCG@10
    assert got.filter(pl.col("day").is_null())["run"].unique().to_list() == ["B"]
    assert got.filter(pl.col("day").is_null())["value"].to_list() == [0.0] * 4


def test_a_judged_query_missing_from_the_run_is_said() -> None:
    # as evaluate says it for any measure (no other measure asked for: the warning alone)
    run = rf.read_run(str(RUN)).collect().filter(pl.col("query_id") != "151")
    with pytest.warns(rf.RankframeWarning, match=r"1 judged query is missing from the run .*query '151'"):
        rf.evaluate(str(QRELS), run, ["alpha_nDCG@20"])

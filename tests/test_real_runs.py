"""Real TREC runs against published numbers (``tests/data/trec_runs/README.md``).

* TREC DL 2019 / 2020 passage: Anserini's regression tables (BM25, BM25+RM3: nDCG@10 with
  ``-c``, R@100 with ``-c -l 2``) and the other columns of the README's table (SPLADE++ ED,
  TAS-B; MAP@100 with ``-l 2``, RR), all reproduced by pytrec_eval. The runs are top-100
  files; some have exact score ties, where trec_eval's doc id tie-break matters.
* TREC 2003 Robust, run ``uic0301``: trectools' unit-test expectations (trec_eval numbers,
  default ``-l 1``, depth 1000), summary and per topic, and its depth-30 consistency check.

Values are published with 4 decimals: they must agree to half a unit of the last place.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import polars as pl
import pytest

import rankframe as rf
from rankframe._measures._names import parse_trec

#: The repository's sample data (README, docs): DL 2019 qrels and two of its runs.
DATA = Path(__file__).resolve().parents[1] / "data"
#: The test data that travels with the tests (origin and licence: tests/data/README.md).
TEST_DATA = Path(__file__).resolve().parent / "data"
RUNS = TEST_DATA / "trec_runs"
DL = RUNS / "dl19_dl20_passage"
ROBUST = RUNS / "robust03_uic0301"
#: The Robust 2003 pair, gzipped (rankframe's readers decompress it).
ROBUST_QRELS, ROBUST_RUN = ROBUST / "robust03_cs_qrels.txt.gz", ROBUST / "input.uic0301.gz"
HALF_UNIT = 5e-5 + 1e-12  # published with 4 decimals


def evaluate(qrels: Path | str, run: Path | str, specs: list[str], **options: object) -> pl.DataFrame:
    """Evaluate trec_eval specs; the measure column is relabelled with trec_eval's labels."""
    pairs = [pair for spec in specs for pair in parse_trec(spec)]
    labels = {repr(m): label for label, m in pairs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rf.RankframeWarning)
        out = rf.evaluate(str(qrels), str(run), [m for _, m in pairs], **options)
    return out.with_columns(pl.col("measure").replace_strict(labels))


def values(frame: pl.DataFrame) -> dict[str, float]:
    return dict(zip(frame["measure"], frame["value"], strict=True))


# ----------------------------------------------------------------------------- TREC DL
#: (run, year) -> nDCG@10 (-c), R@100 (-c -l 2), MAP@100 (-c -l 2), RR (-c).
DL_TABLE: dict[tuple[str, str], tuple[float, float, float, float]] = {
    ("BM25", "dl19"): (0.5058, 0.4910, 0.2476, 0.8245),
    ("BM25", "dl20"): (0.4796, 0.5599, 0.2685, 0.8269),
    ("BM25_RM3", "dl19"): (0.5216, 0.5259, 0.2807, 0.8100),
    ("BM25_RM3", "dl20"): (0.4896, 0.6182, 0.2821, 0.7669),
    ("SPLADE_P_P_ENSEMBLE_DISTIL", "dl19"): (0.7308, 0.6390, 0.4464, 0.9729),
    ("SPLADE_P_P_ENSEMBLE_DISTIL", "dl20"): (0.7197, 0.7653, 0.4826, 0.9565),
    ("D_BERT_KD_TASB", "dl19"): (0.7210, 0.6097, 0.4050, 0.9510),
    ("D_BERT_KD_TASB", "dl20"): (0.6854, 0.7135, 0.4520, 0.9242),
}
#: Anserini's published regression numbers (a subset of the table, quoted separately).
ANSERINI = {
    ("BM25", "dl19"): {"ndcg_cut_10": 0.5058, "recall_100": 0.4910},
    ("BM25_RM3", "dl19"): {"ndcg_cut_10": 0.5216, "recall_100": 0.5259},
    ("BM25", "dl20"): {"ndcg_cut_10": 0.4796, "recall_100": 0.5599},
    ("BM25_RM3", "dl20"): {"ndcg_cut_10": 0.4896, "recall_100": 0.6182},
}


#: Files of the DL set that the repository's data/ already holds (the same bytes).
IN_DATA = {
    "qrels.dl19-passage.txt": DATA / "qrels.dl19-passage.txt",
    "run.rank_llm.BM25.dl19.txt": DATA / "run.dl19.bm25.txt",
    "run.rank_llm.SPLADE_P_P_ENSEMBLE_DISTIL.dl19.txt": DATA / "run.dl19.splade.txt",
}


def dl_files(method: str, year: str) -> tuple[Path, Path]:
    qrels, run = f"qrels.{year}-passage.txt", f"run.rank_llm.{method}.{year}.txt"
    return IN_DATA.get(qrels, DL / qrels), IN_DATA.get(run, DL / run)


@pytest.mark.parametrize("score_dtype", ["float64", "float32"])
@pytest.mark.parametrize(("method", "year"), list(DL_TABLE), ids=[f"{m}-{y}" for m, y in DL_TABLE])
def test_dl_passage_table(method: str, year: str, score_dtype: str) -> None:
    # the scores are float32 printed as Python floats: both dtypes give the same ranking
    qrels, run = dl_files(method, year)
    ndcg10, r100, map100, rr = DL_TABLE[(method, year)]
    all_grades = values(
        evaluate(qrels, run, ["ndcg_cut.10", "recip_rank"], complete=True, score_dtype=score_dtype)
    )
    level2 = values(
        evaluate(
            qrels,
            run,
            ["recall.100", "map_cut.100"],
            complete=True,
            relevance_level=2,
            score_dtype=score_dtype,
        )
    )
    got = (all_grades["ndcg_cut_10"], level2["recall_100"], level2["map_cut_100"], all_grades["recip_rank"])
    for name, g, e in zip(
        ("nDCG@10", "R@100 -l2", "MAP@100 -l2", "RR"), got, (ndcg10, r100, map100, rr), strict=True
    ):
        assert abs(g - e) <= HALF_UNIT, f"{method} {year} {name}: {g:.6f}, published {e:.4f}"


@pytest.mark.parametrize(("method", "year"), list(ANSERINI), ids=[f"{m}-{y}" for m, y in ANSERINI])
def test_dl_passage_anserini_regressions(method: str, year: str) -> None:
    # Anserini: trec_eval -c -m ndcg_cut.10 ; trec_eval -c -l 2 -m recall.100
    qrels, run = dl_files(method, year)
    published = ANSERINI[(method, year)]
    ndcg = values(evaluate(qrels, run, ["ndcg_cut.10"], complete=True))["ndcg_cut_10"]
    recall = values(evaluate(qrels, run, ["recall.100"], complete=True, relevance_level=2))["recall_100"]
    assert abs(ndcg - published["ndcg_cut_10"]) <= HALF_UNIT
    assert abs(recall - published["recall_100"]) <= HALF_UNIT


def test_dl_ir_measures_names_agree_with_trec_names() -> None:
    # nDCG@10, R(rel=2)@100, AP(rel=2)@100 carry the level themselves: same numbers as -l 2
    qrels, run = dl_files("BM25", "dl19")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rf.RankframeWarning)
        out = rf.evaluate(str(qrels), str(run), ["nDCG@10", "R(rel=2)@100", "AP(rel=2)@100", "RR"])
    got = values(out)
    assert abs(got["nDCG@10"] - 0.5058) <= HALF_UNIT
    assert abs(got["R(rel=2)@100"] - 0.4910) <= HALF_UNIT
    assert abs(got["AP(rel=2)@100"] - 0.2476) <= HALF_UNIT
    assert abs(got["RR"] - 0.8245) <= HALF_UNIT


# ----------------------------------------------------------------------------- Robust 2003
ROBUST_SUMMARY = {
    "map": 0.2396,
    "recip_rank": 0.6466,
    "P_1000": 0.0371,
    "recall_5": 0.0858,
    "recall_10": 0.1314,
    "recall_15": 0.1686,
    "recall_20": 0.1968,
    "recall_30": 0.2530,
    "recall_100": 0.4243,
    "recall_200": 0.5323,
    "recall_500": 0.6569,
    "recall_1000": 0.7518,
}
ROBUST_PER_TOPIC = {
    ("recip_rank", "378"): 0.0017,
    ("recip_rank", "650"): 0.1429,
    ("recip_rank", "624"): 0.3333,
    ("map", "622"): 0.4926,
    ("map", "609"): 0.2808,
    ("map", "320"): 0.2335,
    ("P_30", "607"): 0.1333,
    ("P_30", "433"): 0.0333,
    ("P_30", "375"): 0.5333,
    ("recall_30", "607"): 0.3636,
    ("recall_30", "433"): 0.0769,
    ("recall_30", "375"): 0.2000,
    ("recall_30", "303"): 0.1000,
}
ROBUST_SPECS = ["map", "recip_rank", "P.30,500,1000", "recall"]


@pytest.fixture(scope="module")
def robust() -> dict[str, pl.DataFrame]:
    qrels, run = ROBUST_QRELS, ROBUST_RUN
    return {
        "summary": evaluate(qrels, run, ROBUST_SPECS),
        "per_query": evaluate(qrels, run, ROBUST_SPECS, per_query=True),
    }


@pytest.mark.parametrize("label", list(ROBUST_SUMMARY))
def test_robust03_summary(robust: dict[str, pl.DataFrame], label: str) -> None:
    got = values(robust["summary"])[label]
    assert abs(got - ROBUST_SUMMARY[label]) <= HALF_UNIT, f"{label}: {got:.6f}"


@pytest.mark.parametrize(
    ("label", "topic"), list(ROBUST_PER_TOPIC), ids=[f"{m}-{q}" for m, q in ROBUST_PER_TOPIC]
)
def test_robust03_per_topic(robust: dict[str, pl.DataFrame], label: str, topic: str) -> None:
    frame = robust["per_query"].filter((pl.col("measure") == label) & (pl.col("query_id") == topic))
    assert frame.height == 1
    got = frame["value"][0]
    assert abs(got - ROBUST_PER_TOPIC[(label, topic)]) <= HALF_UNIT, f"{label} {topic}: {got:.6f}"


def test_robust03_counts(robust: dict[str, pl.DataFrame]) -> None:
    # 100 topics evaluated, each once per measure
    per_query = robust["per_query"]
    assert per_query["query_id"].n_unique() == 100
    assert per_query.group_by("measure").len()["len"].unique().to_list() == [100]


def test_robust03_depth_30_equals_the_top30_file() -> None:
    # trectools' consistency test: on the 10 topics of the top-30 file, the full run cut at
    # depth 30 (-M 30) equals the top-30 file at depth 1000; at depth 500 P and recall differ
    qrels = ROBUST_QRELS
    specs = ["P.5,10,30,500", "recall.5,10,30,500", "map", "recip_rank"]
    top30 = evaluate(qrels, ROBUST / "input.uic0301_top30", specs, per_query=True)
    topics = top30["query_id"].unique().to_list()
    assert len(topics) == 10
    cut30 = evaluate(qrels, ROBUST_RUN, specs, per_query=True, depth=30)
    full = evaluate(qrels, ROBUST_RUN, specs, per_query=True)
    key = ["query_id", "measure"]
    cut30 = cut30.filter(pl.col("query_id").is_in(topics)).sort(key)
    full = full.filter(pl.col("query_id").is_in(topics)).sort(key)
    top30 = top30.sort(key)
    assert cut30.select(key).equals(top30.select(key))
    # equal up to the order of a floating-point sum (1 ulp); bitwise order is tested in
    # test_edge_matrix's invariants
    diff = (cut30["value"] - top30["value"]).abs().max()
    assert diff <= 1e-12, f"depth 30 differs from the top-30 file by {diff}"
    joined = full.join(top30, on=key, suffix="_top30")
    for label in ("P_500", "recall_500"):
        rows = joined.filter(pl.col("measure") == label)
        assert (rows["value"] != rows["value_top30"]).any(), f"{label} should differ at depth 500"

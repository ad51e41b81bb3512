"""Learning to rank: LETOR reader, query splits, linear ranker, protocol and ``rankframe learn``."""

from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import rankframe as rf
from rankframe._cli.learn import add_learn_parser, main
from rankframe.ltr import (
    TRAINABLE,
    Config,
    LetorData,
    LinearRanker,
    _linear,
    _protocol,
    learn,
    read_svmlight,
    split_by_query,
    to_frames,
    validation_score,
)

LETOR = Path(__file__).parent.parent / "data" / "letor"
MQ_VALI = LETOR / "mq2008-vali.txt"
MQ_TEST = LETOR / "mq2008-test.txt"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# ----------------------------------------------------------------------------- reader
def test_reader_qid_comments_sparse(tmp_path):
    path = write(tmp_path, "small.txt", (
        "# a header comment\n"
        "2 qid:10 1:0.5 4:2.0 # docid = D1 inc = 1 prob = 0.5\n"
        "\n"
        "0 qid:10 2:-1e-1 #docid=D2\n"
        "1 qid:11 3:3 # no doc id here\n"
        "1.0 qid:11\n"
    ))
    d = read_svmlight(path)
    assert d.X.shape == (4, 4)
    np.testing.assert_array_equal(d.X, [[0.5, 0, 0, 2.0], [0, -0.1, 0, 0], [0, 0, 3, 0], [0, 0, 0, 0]])
    assert d.labels.tolist() == [2.0, 0.0, 1.0, 1.0]
    assert d.qid.tolist() == ["10", "10", "11", "11"]
    assert d.docid.tolist() == ["D1", "D2", "d2", "d3"]
    assert d.offsets.tolist() == [0, 2, 4]
    assert d.query_ids.tolist() == ["10", "11"]
    assert read_svmlight(path, n_features=6).X.shape == (4, 6)


def test_reader_non_contiguous_queries_are_stably_sorted(tmp_path):
    path = write(tmp_path, "mixed.txt", "1 qid:b 1:1\n0 qid:a 1:2\n2 qid:b 1:3\n0 qid:a 1:4\n1 qid:c 1:5\n")
    d = read_svmlight(path)
    assert d.qid.tolist() == ["b", "b", "a", "a", "c"]
    assert d.X[:, 0].tolist() == [1, 3, 2, 4, 5]
    assert d.docid.tolist() == ["d0", "d2", "d1", "d3", "d4"]  # ids follow their rows
    assert d.offsets.tolist() == [0, 2, 4, 5]


def test_reader_query_file(tmp_path):
    body = "1 1:0.1 2:0.2\n0 2:0.3\n2 1:1\n0 1:0\n1 3:1\n"
    path = write(tmp_path, "rank.train", body)
    write(tmp_path, "sizes.txt", "2\n3\n")
    d = read_svmlight(path, query_file=tmp_path / "sizes.txt")
    assert d.offsets.tolist() == [0, 2, 5]
    assert d.qid.tolist() == ["q0", "q0", "q1", "q1", "q1"]
    # a sibling <file>.query (LightGBM) or <file>.group (xgboost) is found on its own
    write(tmp_path, "rank.train.query", "2\n3\n")
    assert read_svmlight(path).offsets.tolist() == [0, 2, 5]
    # a query file with qids present: the qids must agree with the groups
    qpath = write(tmp_path, "withqid.txt", "1 qid:1 1:1\n0 qid:1 1:2\n1 qid:2 1:3\n")
    write(tmp_path, "g.txt", "1\n2\n")
    with pytest.raises(rf.InputError, match=r"withqid\.txt, line 3: qid:2 differs from qid:1"):
        read_svmlight(qpath, query_file=tmp_path / "g.txt")


def test_reader_lightgbm_sample():
    d = read_svmlight(LETOR / "rank.test")  # rank.test.query sits beside it
    assert (len(d), d.n_queries) == (768, 50)
    assert d.sizes.min() == 6
    assert d.sizes.max() == 24
    assert d.n_features <= 300


def test_reader_mq2008_is_fast_and_complete():
    t0 = time.perf_counter()
    d = read_svmlight(MQ_TEST)
    elapsed = time.perf_counter() - t0
    assert elapsed < 2.0
    assert (len(d), d.n_queries, d.n_features) == (2874, 156, 46)
    assert np.bincount(d.labels.astype(int)).tolist() == [2319, 378, 177]
    no_rel = sum(1 for g in range(d.n_queries) if d.labels[d.offsets[g]:d.offsets[g + 1]].max() == 0)
    assert no_rel == 51
    assert d.docid[0].startswith("GX")


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("1 qid:1 1:1\nx qid:1 1:1\n", 2, "numeric label"),
        ("1 qid:1 1:1\n0 qid:1 1:1\n\n1 qid:1 3=0.5\n", 4, "'3=0.5'"),
        ("1 qid:1 1:abc\n", 1, "'1:abc'"),
        ("1 qid:1 1:1\n1 qid:1 0:1\n", 2, "integers from 1"),
        ("1 qid:1 1.5:1\n", 1, "integers from 1"),
        ("1 qid:1 1:1 2:1 1:3\n", 1, "appears twice"),
        ("1 qid:1 1:1\n1 2:1\n", 2, "some rows have 'qid:'"),
        ("1 qid: 1:1\n", 1, "empty query id"),
        ("nan qid:1 1:1\n", 1, "not finite"),
    ],
)
def test_reader_malformed_lines(tmp_path, text, line, fragment):
    path = write(tmp_path, "bad.txt", text)
    with pytest.raises(rf.InputError) as info:
        read_svmlight(path)
    message = str(info.value)
    assert f"bad.txt, line {line}" in message
    assert fragment in message


def test_reader_whole_file_errors(tmp_path):
    with pytest.raises(rf.InputError, match="no 'qid:' and there is no group file"):
        read_svmlight(write(tmp_path, "noq.txt", "1 1:1\n0 1:2\n"))
    with pytest.raises(rf.InputError, match="add up to 3 rows, but .* has 2 rows"):
        read_svmlight(tmp_path / "noq.txt", query_file=write(tmp_path, "q", "1\n2\n"))
    with pytest.raises(rf.InputError, match=r"q2, line 2: expected a positive group size"):
        read_svmlight(tmp_path / "noq.txt", query_file=write(tmp_path, "q2", "1\nx\n"))
    with pytest.raises(rf.InputError, match="no data lines"):
        read_svmlight(write(tmp_path, "empty.txt", "# nothing\n\n"))
    with pytest.raises(rf.InputError, match="exceeds n_features=2"):
        read_svmlight(write(tmp_path, "wide.txt", "1 qid:1 3:1\n"), n_features=2)
    with pytest.raises(rf.InputError, match="Cannot read"):
        read_svmlight(tmp_path / "missing.txt")


# ----------------------------------------------------------------------------- splits, frames
@pytest.fixture(scope="module")
def mq_vali() -> LetorData:
    return read_svmlight(MQ_VALI)


def test_split_by_query_is_a_deterministic_partition(mq_vali):
    train, valid = split_by_query(mq_vali, (0.8, 0.2), seed=3)
    assert (train.n_queries, valid.n_queries) == (126, 31)
    tq, vq = set(train.qid.tolist()), set(valid.qid.tolist())
    assert not tq & vq  # no query in both parts
    assert tq | vq == set(mq_vali.qid.tolist())
    assert len(train) + len(valid) == len(mq_vali)
    for part in (train, valid):  # every query keeps all its rows, contiguous, in file order
        for g in range(part.n_queries):
            rows = slice(part.offsets[g], part.offsets[g + 1])
            assert set(part.qid[rows].tolist()) == {part.query_ids[g]}
            orig = np.flatnonzero(mq_vali.qid == part.query_ids[g])
            np.testing.assert_array_equal(part.X[rows], mq_vali.X[orig])
            assert part.docid[rows].tolist() == mq_vali.docid[orig].tolist()
    position = {q: i for i, q in enumerate(mq_vali.query_ids.tolist())}
    for part in (train, valid):  # queries keep their file order
        where = [position[q] for q in part.query_ids.tolist()]
        assert where == sorted(where)
    again = split_by_query(mq_vali, (0.8, 0.2), seed=3)
    assert again[1].query_ids.tolist() == valid.query_ids.tolist()
    other = split_by_query(mq_vali, (0.8, 0.2), seed=4)
    assert other[1].query_ids.tolist() != valid.query_ids.tolist()
    three = split_by_query(mq_vali, (0.6, 0.2, 0.2), seed=0)
    assert sum(p.n_queries for p in three) == mq_vali.n_queries


def test_split_by_query_rejects_bad_fractions(mq_vali):
    with pytest.raises(ValueError, match="add up to 1"):
        split_by_query(mq_vali, (0.8, 0.3))
    with pytest.raises(ValueError, match="positive"):
        split_by_query(mq_vali, (1.2, -0.2))
    tiny = mq_vali.subset([0, 1])
    with pytest.raises(ValueError, match="empty"):
        split_by_query(tiny, (0.5, 0.25, 0.25))


def test_to_frames_round_trip(mq_vali):
    scores = mq_vali.X[:, 0] + 0.01 * mq_vali.X[:, 1]
    qrels, run = to_frames(mq_vali, scores)
    assert qrels.columns == ["query_id", "doc_id", "relevance"]
    assert run.columns == ["query_id", "doc_id", "score"]
    assert qrels["relevance"].dtype == pl.Int64
    assert len(run) == len(mq_vali)
    per_query = rf.evaluate(qrels, run, ["nDCG@10"], per_query=True)
    assert per_query.height == mq_vali.n_queries  # queries without relevant docs are kept (as 0)
    assert per_query.filter(pl.col("value") == 0).height >= 37
    # duplicated doc ids get suffixes, so the frames stay valid
    d = LetorData(np.zeros((3, 1)), np.array([1.0, 0, 0]), np.array(["q"] * 3), np.array(["a", "a", "b"]),
                  np.array([0, 3]))
    qrels, _ = to_frames(d, [1.0, 2.0, 3.0])
    assert qrels["doc_id"].to_list() == ["a", "a#2", "b"]
    with pytest.raises(ValueError, match="integer relevance"):
        to_frames(LetorData(np.zeros((1, 1)), np.array([0.5]), np.array(["q"]), np.array(["a"]),
                            np.array([0, 1])), [0.0])


# ----------------------------------------------------------------------------- the linear ranker
def planted(n_queries: int, seed: int, prefix: str, docs: int = 20, d: int = 8) -> LetorData:
    """Groups whose graded labels are an increasing function of <w*, x>, with a little noise."""
    rng = np.random.default_rng(seed)
    w_star = np.linspace(-1.0, 2.0, d)
    X = rng.normal(size=(n_queries * docs, d))
    u = X @ w_star + 0.1 * rng.normal(size=len(X))
    labels = np.digitize(u, np.quantile(u, [0.6, 0.85, 0.95])).astype(np.float64)
    qid = np.repeat(np.array([f"{prefix}{i}" for i in range(n_queries)]), docs)
    docid = np.array([f"d{i}" for i in range(len(X))])
    return LetorData(X, labels, qid, docid, np.arange(0, len(X) + 1, docs, dtype=np.int64))


@pytest.fixture(scope="module")
def planted_splits() -> tuple[LetorData, LetorData, LetorData]:
    return planted(60, 1, "tr"), planted(20, 2, "va"), planted(20, 3, "te")


@pytest.mark.parametrize("loss", ["ranknet", "lambdarank", "pointwise"])
def test_linear_ranker_learns_a_planted_model(planted_splits, loss):
    train, valid, _ = planted_splits
    model = LinearRanker().fit(train, loss, epochs=25, lr=0.05, seed=0, k=10, validation=valid)
    learned = validation_score(valid, model.predict(valid))
    rng = np.random.default_rng(0)
    chance = np.mean([validation_score(valid, rng.normal(size=len(valid))) for _ in range(3)])
    assert learned > (0.95 if loss != "pointwise" else 0.85)
    assert learned > chance + 0.3
    h = model.history_
    assert len(h.validation) >= h.best_epoch >= 1
    assert max(h.validation) == pytest.approx(learned)  # the best epoch's weights are kept


def test_linear_ranker_is_deterministic_and_checks_its_input(planted_splits):
    train, valid, _ = planted_splits
    a = LinearRanker().fit(train, "hinge", epochs=3, seed=7)
    b = LinearRanker().fit(train, "hinge", epochs=3, seed=7)
    c = LinearRanker().fit(train, "hinge", epochs=3, seed=8)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)
    assert a.history_.best_epoch == 3
    assert a.history_.validation == []
    with pytest.raises(ValueError, match="piecewise constant"):
        LinearRanker().fit(train, "ndcg")
    with pytest.raises(ValueError, match="Trainable losses"):
        LinearRanker().fit(train, "bogus")
    with pytest.raises(ValueError, match="not fitted"):
        LinearRanker().predict(valid.X)
    with pytest.raises(ValueError, match="shape"):
        a.predict(valid.X[:, :3])


def test_every_trainable_loss_trains(planted_splits):
    train, valid, _ = planted_splits
    for loss in TRAINABLE:
        model = LinearRanker().fit(train, loss, epochs=4, lr=0.05, seed=0, k=10)
        assert validation_score(valid, model.predict(valid)) > 0.7, loss


# ----------------------------------------------------------------------------- the protocol
def test_protocol_selects_on_validation_and_tests_once(planted_splits, monkeypatch):
    train, valid, test = planted_splits
    test_ids = set(test.qid.tolist())
    seen: dict[str, int] = {"test": 0, "other": 0}

    def spy(module):
        real = module.evaluate

        def wrapped(qrels, run, *args, **kwargs):
            ids = set(qrels["query_id"].to_list())
            seen["test" if ids & test_ids else "other"] += 1
            assert not ids & test_ids or ids == test_ids
            return real(qrels, run, *args, **kwargs)

        monkeypatch.setattr(module, "evaluate", wrapped)

    spy(_protocol)
    spy(_linear)
    configs = [Config(0.001, 0.0, 3), Config(0.05, 0.0, 6)]
    report = learn(train, valid, test, losses=["pointwise", "lambdarank"], configs=configs, seed=0)
    assert seen["test"] == 1  # one evaluation of the test split, for all losses at once
    assert seen["other"] > 4
    grid, table = report.grid, report.table
    assert grid.height == 4
    for loss in ("pointwise", "lambdarank"):
        rows = grid.filter(pl.col("loss") == loss)
        best = rows.sort("validation nDCG@10", descending=True, maintain_order=True).row(0, named=True)
        chosen = table.filter(pl.col("loss") == loss).row(0, named=True)
        assert chosen["config"] == best["config"] == str(report.configs[loss])
        assert chosen["validation nDCG@10"] == best["validation nDCG@10"]
    assert table.columns == ["loss", "config", "validation nDCG@10", "validation AP", "test nDCG@10",
                             "test AP", "train seconds", "best epoch"]
    assert (table["test nDCG@10"] > 0.8).all()
    # test numbers equal a direct evaluation of the selected model (done after the spy count)
    qrels, run = to_frames(test, report.models["lambdarank"].predict(test))
    direct = rf.evaluate(qrels, run, ["nDCG@10", "AP"])["value"].to_list()
    row = table.filter(pl.col("loss") == "lambdarank").row(0, named=True)
    assert [row["test nDCG@10"], row["test AP"]] == pytest.approx(direct)
    md = report.to_markdown()
    assert md.startswith("| loss")
    assert "|---" in md
    assert "test evaluated once" in md


def test_paired_tests_match_scipy(planted_splits):
    stats = pytest.importorskip("scipy.stats")
    train, valid, test = planted_splits
    report = learn(train, valid, test, losses=["pointwise", "ranknet"], configs=[Config(0.02, 0.0, 3)])
    tests = report.paired_tests("pointwise")
    per = report.test_per_query.filter(pl.col("measure") == "nDCG@10").pivot(
        on="loss", index="query_id", values="value").sort("query_id")
    expected = stats.ttest_rel(per["ranknet"].to_numpy(), per["pointwise"].to_numpy())
    assert tests["loss"].to_list() == ["ranknet"]
    assert tests["p"][0] == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-12)
    with pytest.raises(ValueError, match="baseline"):
        report.paired_tests("hinge")


def test_protocol_rejects_bad_arguments(planted_splits):
    train, valid, test = planted_splits
    with pytest.raises(ValueError, match="cannot train"):
        learn(train, valid, test, losses=["kendall"])
    with pytest.raises(rf.MeasureError):
        learn(train, valid, test, losses=["ranknet"], measure="nDCG@nope")


# ----------------------------------------------------------------------------- the command
@pytest.fixture(scope="module")
def tiny_letor(tmp_path_factory, mq_vali) -> Path:
    """The first 30 MQ2008 queries, written back in LETOR format."""
    part = mq_vali.subset(range(30))
    out = io.StringIO()
    for i in range(len(part)):
        feats = " ".join(f"{j + 1}:{v:g}" for j, v in enumerate(part.X[i]) if v != 0)
        out.write(f"{int(part.labels[i])} qid:{part.qid[i]} {feats} #docid = {part.docid[i]}\n")
    path = tmp_path_factory.mktemp("letor") / "tiny.txt"
    path.write_text(out.getvalue())
    return path


def test_cli_learn_prints_a_table(tiny_letor, capsys):
    code = main([str(tiny_letor), "--losses", "pointwise", "ranknet", "--epochs", "3", "--lr", "0.03",
                 "--l2", "0", "--validation-fraction", "0.3", "--test-fraction", "0.3"])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["loss", "config", "validation"]
    assert any(line.startswith("pointwise") for line in lines)
    assert any(line.startswith("ranknet") for line in lines)
    assert "Paired t tests against pointwise" in out
    assert "Traceback" not in err


def test_cli_learn_formats_and_errors(tiny_letor, tmp_path, capsys):
    code = main([str(tiny_letor), "--test", str(tiny_letor), "--losses", "lambdarank", "--epochs", "2",
                 "--lr", "0.01", "--l2", "0", "--format", "csv", "--grid"])
    out, err = capsys.readouterr()
    assert code == 0, err
    frame = pl.read_csv(io.StringIO(out))
    assert frame.height == 1
    assert "validation nDCG@10" in frame.columns
    target = tmp_path / "report.md"
    code = main([str(tiny_letor), "--losses", "structured", "--epochs", "2", "--lr", "0.01", "--l2", "0",
                 "--format", "markdown", "-o", str(target)])
    assert code == 0
    assert target.read_text().startswith("| loss")
    bad = write(tmp_path, "bad.txt", "1 qid:1 1:1\nzz qid:1 1:1\n")
    assert main([str(bad)]) == 1
    assert "bad.txt, line 2" in capsys.readouterr().err
    assert main([str(tiny_letor), "--measure", "nDCG@x"]) == 2
    assert main([str(tiny_letor), "--losses", "ndcg"]) == 2  # argparse: not trainable
    assert main([str(tiny_letor), "--validation-fraction", "0.6", "--test-fraction", "0.5"]) == 2
    capsys.readouterr()


def test_add_learn_parser_sets_func_and_parser():
    import argparse

    parser = argparse.ArgumentParser(prog="rankframe")
    add_learn_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["learn", "x.txt", "--seed", "3", "--format", "markdown"])
    assert callable(args.func)
    assert args.parser.prog == "rankframe learn"
    assert (args.seed, args.format, args.losses) == (3, "markdown", list(TRAINABLE))


# ----------------------------------------------------------------------------- optional reference
def test_lightgbm_lambdarank_reference_on_mq2008(mq_vali):
    """A LightGBM lambdarank reference number (test-only; rankframe never imports lightgbm)."""
    lgb = pytest.importorskip("lightgbm")
    train, valid = split_by_query(mq_vali, (0.8, 0.2), seed=0)
    test = read_svmlight(MQ_TEST)
    params = {"objective": "lambdarank", "learning_rate": 0.05, "num_leaves": 15, "min_data_in_leaf": 20,
              "eval_at": [10], "metric": "ndcg", "seed": 0, "deterministic": True, "num_threads": 2,
              "verbose": -1}
    dtrain = lgb.Dataset(train.X, train.labels, group=train.sizes)
    dvalid = lgb.Dataset(valid.X, valid.labels, group=valid.sizes, reference=dtrain)
    model = lgb.train(params, dtrain, num_boost_round=200, valid_sets=[dvalid],
                      callbacks=[lgb.early_stopping(20, verbose=False)])
    qrels, run = to_frames(test, model.predict(test.X))
    ndcg = rf.evaluate(qrels, run, ["nDCG@10"])["value"][0]
    assert 0.4 < ndcg < 0.6

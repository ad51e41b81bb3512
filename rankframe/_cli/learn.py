"""The ``rankframe learn`` subcommand: the learning-to-rank protocol on LETOR files.

``rankframe learn DATA [--validation FILE | --validation-fraction F] [--test FILE |
--test-fraction F] [--losses LOSS...] [--measure M] [--format table|markdown|csv]`` splits
``DATA`` by query into train and validation (and test, when no test file is given), trains a
linear ranker for every loss over a small grid, selects each loss's configuration on validation,
evaluates the selected models on test once, and prints one row per loss. With ``table`` and
``markdown`` it also prints paired t tests against a baseline loss on the test queries.

Exit status: 0 on success, 1 for an input error (a malformed file), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from rankframe._cli.common import PROG, UsageError, _check_outputs, _float_in, _int_in, _positive_int
from rankframe._io.atomic import write_atomic

_TRAINABLE = ("pointwise", "hinge", "exponential", "ranknet", "lambdarank", "structured")

__all__ = ["add_learn_parser", "main"]


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 < value < 1.0:
        msg = f"expected a fraction strictly between 0 and 1, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


_learning_rate = _float_in(0.0, above=True, why=" (a learning rate)")
_penalty = _float_in(0.0, why=" (an L2 penalty)")
_seed = _int_in(0, None, " (the seed of the split and of training)")
#: The input files of ``learn`` and the option (or argument) that names each.
_INPUTS = {"data": "DATA", "query_file": "--query-file", "test": "--test", "validation": "--validation"}


def _check_inputs(args: argparse.Namespace) -> None:
    """A usage error for an input that is a folder, an input error for one that may not be read."""
    from rankframe._errors import InputError

    for dest, option in _INPUTS.items():
        path = getattr(args, dest)
        if path is None:
            continue
        if os.path.isdir(path):
            msg = f"{option} {path!r} is a folder: give a LETOR/SVMlight file."
            raise UsageError(msg)
        try:
            with open(path, "rb"):  # noqa: PTH123 - readable, before training
                pass
        except PermissionError as err:
            msg = (
                f"Cannot read {option} {path!r}: {err.strerror}. Check the permissions of the file "
                "and its folders, or run as a user who may read it."
            )
            raise InputError(msg) from None
        except OSError:  # missing: the reader says so in its words
            pass


def _splits(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    from rankframe.ltr._data import read_svmlight, split_by_query

    data = read_svmlight(args.data, query_file=args.query_file)
    test = read_svmlight(args.test) if args.test else None
    valid = read_svmlight(args.validation) if args.validation else None
    parts: dict[str, float] = {}
    if valid is None:
        parts["validation"] = args.validation_fraction
    if test is None:
        parts["test"] = args.test_fraction
    if parts:
        train_share = 1.0 - sum(parts.values())
        if train_share <= 0:
            msg = f"the validation and test fractions leave no training queries ({parts})"
            raise UsageError(msg)
        try:
            pieces = split_by_query(data, (train_share, *parts.values()), seed=args.seed)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        train = pieces[0]
        got = dict(zip(parts, pieces[1:], strict=True))
        valid = got.get("validation", valid)
        test = got.get("test", test)
    else:
        train = data
    widths = {train.n_features, valid.n_features, test.n_features}
    if len(widths) > 1:  # sparse files may stop at different ids: pad to the widest
        import numpy as np  # (the command line imports the learner's modules when it runs)

        from rankframe.ltr._data import LetorData

        d = max(widths)

        def pad(x: LetorData) -> LetorData:
            if x.n_features == d:
                return x
            X = np.pad(x.X, ((0, 0), (0, d - x.n_features)))
            return LetorData(X, x.labels, x.qid, x.docid, x.offsets, x.source)

        train, valid, test = pad(train), pad(valid), pad(test)
    return train, valid, test


def _cmd_learn(args: argparse.Namespace) -> int:
    from rankframe._errors import MeasureError, RankframeError
    from rankframe.ltr._protocol import Config, learn

    try:
        if args.baseline is not None and args.baseline not in args.losses:
            msg = f"--baseline {args.baseline} is not one of --losses {' '.join(args.losses)}"
            raise UsageError(msg)
        _check_inputs(args)
        inputs = [getattr(args, dest) for dest in _INPUTS]
        _check_outputs({"-o": args.output}, inputs=inputs)  # before training, not after it
        train, valid, test = _splits(args)
        configs = [Config(lr, l2, args.epochs) for lr in args.lr for l2 in args.l2]
        progress = (lambda line: print(line, file=sys.stderr)) if args.verbose else None
        report = learn(
            train, valid, test, losses=args.losses, configs=configs, measure=args.measure,
            extra_measures=args.extra_measures, batch_queries=args.batch_queries,
            patience=args.patience, early_stopping=not args.no_early_stopping, seed=args.seed,
            progress=progress,
        )
    except (UsageError, MeasureError) as err:
        args.parser.print_usage(sys.stderr)
        print(f"{args.parser.prog}: error: {err}", file=sys.stderr)
        return 2
    except (RankframeError, OSError, FloatingPointError) as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 1

    frame = report.grid if args.grid else report.table
    if args.format == "csv":
        text = frame.write_csv()
    else:
        from rankframe.ltr._protocol import _table_text

        markdown = args.format == "markdown"
        text = _table_text(frame, markdown=markdown) + "\n"
        text += ("\n" + report.caption() + "\n") if markdown else f"# {report.caption()}\n"
        baseline = args.baseline or ("pointwise" if "pointwise" in args.losses else None)
        if baseline is not None and len(args.losses) > 1:
            tests = report.paired_tests(baseline)
            title = f"Paired t tests against {baseline} on the {report.sizes['test']} test queries " \
                    f"({report.measure})"
            text += f"\n{title}:\n\n" if markdown else f"\n# {title}\n"
            text += _table_text(tests, markdown=markdown) + "\n"
    if args.output is not None and args.output != "-":
        try:
            write_atomic(args.output, text, "-o")
        except RankframeError as err:  # a full disk
            print(f"{PROG}: {err}", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0


def add_learn_parser(subparsers: Any) -> None:
    """Add the ``learn`` subcommand to an argparse subparsers object.

    The subcommand sets the ``func`` (returns an exit status) and ``parser`` defaults, like
    rankframe's other subcommands; it handles its own errors (1: input, 2: usage).

    Parameters
    ----------
    subparsers
        What ``ArgumentParser.add_subparsers()`` returned.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="rankframe")
    >>> add_learn_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["learn", "train.txt", "--losses", "ranknet", "lambdarank"])
    >>> args.losses, args.measure, args.validation_fraction
    (['ranknet', 'lambdarank'], 'nDCG@10', 0.2)
    """
    p = subparsers.add_parser(
        "learn",
        help="train linear rankers with several losses on LETOR data (select on validation, test once)",
        description=(
            "Split DATA (an SVMlight/LETOR file: 'label qid:Q id:value ... # docid = X') by query "
            "into train and validation (and test without --test), train a linear ranker for every "
            "loss over a small grid of learning rates and L2 penalties (Adam, early stopping on "
            "validation), select each loss's configuration by the validation measure, and "
            "evaluate the selected models on the test queries once. Measures follow trec_eval: "
            "queries without a relevant document count as 0."
        ),
        epilog="example: rankframe learn data/letor/mq2008-vali.txt --test data/letor/mq2008-test.txt",
    )
    p.add_argument("data", help="LETOR/SVMlight file to train on (split by query)")
    p.add_argument("--query-file", help="LightGBM .query / xgboost .group file for DATA (rows without qid:)")
    p.add_argument("--test", metavar="FILE", help="test file (default: split a test part off DATA)")
    p.add_argument("--validation", metavar="FILE", help="validation file (default: split it off DATA)")
    p.add_argument("--validation-fraction", type=_fraction, default=0.2, metavar="F",
                   help="share of DATA's queries for validation (default 0.2)")
    p.add_argument("--test-fraction", type=_fraction, default=0.2, metavar="F",
                   help="share of DATA's queries for test, without --test (default 0.2)")
    p.add_argument("--losses", nargs="+", choices=_TRAINABLE, default=list(_TRAINABLE), metavar="LOSS",
                   help=f"losses to train with (default: all of {', '.join(_TRAINABLE)})")
    p.add_argument("--measure", default="nDCG@10",
                   help="selection measure, higher is better (default nDCG@10)")
    p.add_argument("--extra-measures", nargs="*", default=["AP"], metavar="M",
                   help="further measures to report (default AP)")
    p.add_argument("--lr", nargs="+", type=_learning_rate, default=[0.003, 0.03],
                   help="learning rates of the grid (> 0)")
    p.add_argument("--l2", nargs="+", type=_penalty, default=[0.0, 0.1],
                   help="L2 penalties of the grid (>= 0)")
    p.add_argument("--epochs", type=_positive_int, default=40, help="maximum epochs per fit (default 40)")
    p.add_argument("--batch-queries", type=_positive_int, default=8,
                   help="queries per mini-batch (default 8)")
    p.add_argument("--patience", type=_positive_int, default=8,
                   help="early-stopping patience in epochs (default 8)")
    p.add_argument("--no-early-stopping", action="store_true", help="train every fit for all its epochs")
    p.add_argument("--seed", type=_seed, default=0, help="seed of the split and of training (default 0)")
    p.add_argument("--baseline", choices=_TRAINABLE, default=None,
                   help="loss the others are t-tested against (default pointwise, when trained)")
    p.add_argument("--format", choices=("table", "markdown", "csv"), default="table", help="output format")
    p.add_argument("--grid", action="store_true",
                   help="print every configuration tried, not only the selected")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")
    p.add_argument("-v", "--verbose", action="store_true", help="print a line per fit on standard error")
    p.set_defaults(func=_cmd_learn, parser=p)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``learn`` on its own (``python -m rankframe._cli.learn DATA ...``); returns the exit status."""
    parser = argparse.ArgumentParser(prog=PROG)
    sub = parser.add_subparsers(dest="command")
    add_learn_parser(sub)
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(["learn", *argv])
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())

"""ranx's ``plot``: the runs' interpolated precision-recall curves, drawn with matplotlib."""

from __future__ import annotations

from typing import Any

import numpy as np

from rankframe._errors import InputError
from rankframe._measures.iprec import IPrec
from rankframe.compat.ranx._evaluate import object_frame
from rankframe.compat.ranx._scoring import measure_values
from rankframe.compat.ranx.data_structures import Qrels, Run

#: The recall levels of the curve.
RECALL = np.arange(0, 1.1, 0.1)


def curves(qrels: Qrels, runs: list[Run]) -> list[np.ndarray]:
    r"""Each run's interpolated precision at recall 0, 0.1, ..., 1, the mean over ``qrels``' queries.

    Per query, ranx's ``interpolated_precision_at_recall``: the highest precision at a rank
    holding at least :math:`\lfloor xR + 0.9 \rfloor` relevant documents (trec_eval 9's
    rounding), 0 without relevant documents.
    """
    qdf = object_frame(qrels, "qrels")
    queries = list(qrels.keys())
    levels = [IPrec(cutoff=i / 10, rel=1, rounding="trec_eval9") for i in range(11)]
    out = []
    for i, run in enumerate(runs):
        if run.keys() != qrels.keys():
            msg = f"runs[{i}] and qrels: the query ids do not match (ranx plots runs over the judged queries)"
            raise InputError(msg)
        values = measure_values(qdf, object_frame(run, "run"), queries, levels)
        out.append(np.column_stack(list(values.values())).reshape(-1, 11).mean(axis=0))
    return out


def plot(
    qrels: Qrels,
    runs: Run | list[Run],
    graph: str = "iprec_at_recall",
    return_graph: bool = True,
    figsize: tuple[float, float] | None = None,
    seaborn_kwargs: dict[str, Any] | None = None,
) -> Any:
    """ranx's precision-recall plot: each run's mean interpolated precision at 11 recall levels.

    The curve of a run is the mean over the queries of ranx's
    ``interpolated_precision_at_recall`` (:func:`curves`), drawn with matplotlib (the
    ``rankframe[report]`` extra; ranx draws with seaborn) and shown with ``plt.show()``.

    Parameters
    ----------
    qrels : Qrels
        The judgments.
    runs : Run or list of Run
        The runs over ``qrels``' queries; a run without a name is ``run_1``, ``run_2``... (one
        run: ``run``).
    graph : str
        ``"iprec_at_recall"``, the only graph ranx draws.
    return_graph : bool
        ``False``: return the curves as a pandas DataFrame ``Model, recall, precision`` instead
        of drawing them.
    figsize : tuple, optional
        The figure's size, ``(8, 5)`` by default.
    seaborn_kwargs : dict, optional
        Passed to matplotlib's ``plot`` (``{"linewidth": 2.5}`` by default).

    Returns
    -------
    matplotlib.axes.Axes or pandas.DataFrame
        The drawn axes (ranx returns ``None``), or the curves' data.

    Raises
    ------
    rankframe.InputError
        Runs over other queries than ``qrels``, another ``graph``, or matplotlib (pandas)
        missing.

    Examples
    --------
    >>> from rankframe.compat.ranx import Qrels, Run
    >>> qrels = Qrels({"q1": {"d1": 1, "d2": 1}})
    >>> run = Run({"q1": {"d1": 0.9, "d3": 0.8, "d2": 0.7}}, name="bm25")
    >>> df = plot(qrels, run, return_graph=False)
    >>> [round(p, 3) for p in df["precision"]][::5]  # recall 0, 0.5, 1
    [1.0, 1.0, 0.667]
    """
    if graph != "iprec_at_recall":
        msg = f"graph: ranx draws 'iprec_at_recall' only; got {graph!r}"
        raise InputError(msg)
    if not isinstance(qrels, Qrels):
        msg = f"qrels: expected a ranx Qrels; got {type(qrels).__name__}"
        raise InputError(msg)
    listed = isinstance(runs, list)
    many = runs if isinstance(runs, list) else [runs]
    if not all(isinstance(r, Run) for r in many):
        msg = "runs: expected a ranx Run or a list of them"
        raise InputError(msg)
    default = [f"run_{i + 1}" for i in range(len(many))] if listed else ["run"]
    names = [r.name if r.name is not None else d for r, d in zip(many, default, strict=True)]
    results = curves(qrels, many)
    if not return_graph:
        try:
            import pandas as pd  # noqa: PLC0415 (pandas only when a DataFrame is asked for)
        except ImportError:
            msg = "plot(return_graph=False) returns a pandas DataFrame: pip install pandas"
            raise InputError(msg) from None
        return pd.DataFrame({
            "Model": [name for name in names for _ in range(11)],
            "recall": np.concatenate([RECALL] * len(many)),
            "precision": np.concatenate(results),
        })
    try:
        import matplotlib.pyplot as plt  # noqa: PLC0415 (the report extra)
    except ImportError:
        msg = "plot draws with matplotlib: pip install 'rankframe[report]' (or matplotlib)"
        raise InputError(msg) from None
    plt.figure(figsize=figsize or (8, 5))
    ax = plt.gca()
    for name, precision in zip(names, results, strict=True):
        ax.plot(RECALL, precision, label=name, **(seaborn_kwargs or {"linewidth": 2.5}))
    ax.legend(title="Model")
    ax.set(title="Precision-Recall Curve", xlabel="Recall", ylabel="Precision",
           xticks=np.arange(0.0, 1.1, 0.1), yticks=np.arange(0.0, 1.1, 0.1))
    plt.show()
    return ax

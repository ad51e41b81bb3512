"""ir_measures' providers (``ir_measures.pytrec_eval``, ``.gdeval``...), each computing through rankframe.

Each provider accepts the measures the library it stands for computes in ir_measures 0.4, and
keeps that library's conventions where they change a value; the values themselves all come
from :func:`rankframe.evaluate`:

========== ======================================================== ==================================
provider   measures                                                 conventions
========== ======================================================== ==================================
pytrec_eval P, RR, Rprec, AP, nDCG (log2), R, Bpref, infAP, IPrec,   float32 scores (trec_eval 9), ties
           Success, SetP/R/F/AP, NumRet, NumRel, NumQ               to the later doc id, IPrec's levels
                                                                    rounded as trec_eval 9
judged     Judged@k                                                 ties to the earlier doc id
msmarco    RR, RR@k                                                 ties to the earlier doc id
gdeval     ERR@k, nDCG(dcg='exp-log2')@k                            per-query values to 5 decimals
ranx       P, SetP, RR, Rprec, AP, nDCG, R, SetR, NumRet(rel=),     float64, trec_eval's tie order
           Success                                                  (rankframe has no ranx tie order)
trectools  P, RR, Rprec, AP, nDCG, Bpref at rel=1; RBP              float64, trec_eval's tie order
cwl_eval   P, RR, AP, RBP(rel=) in cwl_eval's C/W/L forms; BPM,     float64, ties in the run's order;
           INST, INSQ, NERR8-11, SDCG (rankframe's C/W/L family)    ``CwlMetric`` records
compat     Compat                                                   float64, ties to the earlier doc id
pyndeval   alpha_DCG, alpha_nDCG, ERR_IA, nERR_IA, NRBP, nNRBP,     ties to the earlier doc id
           AP_IA, P_IA, StRecall (qrels with subtopics)             (ndeval's greedy ideal)
accuracy   Accuracy                                                 float64, ties in the run's order
runtime    measures of ``define`` / ``define_byquery``              the user's function, on pandas
========== ======================================================== ==================================

Examples
--------
>>> from rankframe.compat.ir_measures import ERR, P, providers
>>> sorted(providers.registry)[:4], providers.registry["gdeval"].supports(ERR @ 5)
(['accuracy', 'compat', 'cwl_eval', 'gdeval'], True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rankframe._measures.cwl import CWL_FORMS, EXPECTATIONS
from rankframe.compat.ir_measures._pipeline import Convention, Evaluator, Provider
from rankframe.compat.ir_measures._runtime import RuntimeMeasure, SelfComputing
from rankframe.compat.ir_measures.measures import Unsupported, as_rankframe

__all__ = [
    "AccuracyProvider",
    "CompatProvider",
    "Convention",
    "CwlEvalProvider",
    "DefaultPipeline",
    "Evaluator",
    "GdevalProvider",
    "JudgedProvider",
    "MsMarcoProvider",
    "Provider",
    "PyNdEvalProvider",
    "PytrecEvalProvider",
    "RanxProvider",
    "RuntimeProvider",
    "TrectoolsProvider",
    "registry",
]

TREC_EVAL_9 = Convention(score_dtype="float32")
SORTED_BY_DOC = Convention(doc_ascending=True)  # sorted(key=(-score, doc_id))
GDEVAL = Convention(places=5)
IN_RUN_ORDER = Convention(input_order=True)  # sorted(key=score, reverse=True): ties as given
RANKFRAME = Convention()


def _is(measure: Any, name: str, **constraints: Callable[[Any], bool]) -> bool:
    """Whether ``measure`` is of family ``name`` and its parameters meet the constraints."""
    if isinstance(measure, Unsupported | RuntimeMeasure) or measure.NAME != name:
        return False
    params = measure.params
    return all(check(params.get(param)) for param, check in constraints.items())


def none(value: Any) -> bool:
    return value is None


def given(value: Any) -> bool:
    return value is not None


def falsy(value: Any) -> bool:
    return not value


def rel_1(value: Any) -> bool:
    return value in (None, 1)


def _pytrec_eval(m: Any) -> bool:
    names = (
        "P",
        "Rprec",
        "AP",
        "R",
        "Bpref",
        "infAP",
        "IPrec",
        "Success",
        "SetP",
        "SetR",
        "SetF",
        "SetAP",
        "NumRet",
        "NumRel",
        "NumQ",
    )
    return (
        any(_is(m, n) for n in names)
        or _is(m, "RR", cutoff=none)
        or _is(m, "nDCG", dcg=lambda v: v == "log2")
    )


def _ranx(m: Any) -> bool:
    simple = dict(judged_only=falsy)
    return (
        any(_is(m, n, **simple) for n in ("P", "SetP", "Rprec", "AP", "R"))
        or _is(m, "SetR")
        or _is(m, "RR", cutoff=none, **simple)
        or _is(m, "NumRet", rel=given)
        or _is(m, "Success", **simple)
        or _is(m, "nDCG", gains=none, **simple)
    )


def _trectools(m: Any) -> bool:
    return (
        any(_is(m, n, rel=rel_1, judged_only=falsy) for n in ("P", "Rprec", "AP"))
        or _is(m, "RR", cutoff=none, rel=rel_1, judged_only=falsy)
        or _is(m, "Bpref", rel=rel_1)
        or _is(m, "nDCG", gains=none, judged_only=falsy)
        or _is(m, "RBP")
    )


#: The C/W/L framework's own measures (rankframe._measures.cwl), cwl_eval's alone.
CWL_FAMILIES = ("BPM", "INSQ", "INST", "NERR8", "NERR9", "NERR10", "NERR11", "SDCG")


def _cwl_eval(m: Any) -> bool:
    return (
        _is(m, "P", judged_only=falsy)
        or _is(m, "RR", cutoff=none, judged_only=falsy)
        or _is(m, "AP", cutoff=none, judged_only=falsy)
        or _is(m, "RBP", cutoff=none, rel=given)
        or any(_is(m, n) for n in CWL_FAMILIES)
    )


def _cwl_form(measure: Any) -> Any:
    """cwl_eval's C/W/L form of ``P``, ``RR``, ``AP``, ``RBP`` (rankframe._measures.cwl.CWL_FORMS)."""
    form = CWL_FORMS.get(measure.NAME)
    if form is None:
        return measure
    params = {k: v for k, v in measure.params.items() if k in {p.name for p in form.PARAMS}}
    return form(**{**params, "rel": measure.params.get("rel") or 1})


def _cwl_details(measure: Any) -> tuple[Any, ...]:
    """The measures of CwlMetric's other fields: cwl_eval's expectations besides the value."""
    form = as_rankframe(_cwl_form(measure))
    return tuple(form.replace(expect=e) for e in EXPECTATIONS[1:])


def _exp_log2(measure: Any) -> Any:
    """gdeval's nDCG is always the exponential-gain one (``2^rel - 1``)."""
    return measure(dcg="exp-log2") if measure.NAME == "nDCG" else measure


def _provider_class(
    class_name: str,
    name: str,
    accepts: Callable[[Any], bool],
    convention: Convention,
    families: str | None = None,
    computes: Callable[[Any], Any] | None = None,
    details: Callable[[Any], Any] | None = None,
) -> type[Provider]:
    """ir_measures' class of a provider (``PytrecEvalProvider()``), built on :class:`Provider`."""

    def __init__(self: Provider) -> None:
        Provider.__init__(
            self,
            name,
            accepts,
            convention,
            families=None if families is None else frozenset(families.split()),
            computes=computes,
            details=details,
        )

    doc = f"ir_measures' {name} provider, computing through rankframe (see the module's table)."
    return type(class_name, (Provider,), {"__init__": __init__, "__doc__": doc})


def _trec_eval_9(measure: Any) -> Any:
    """pytrec_eval's IPrec rounds recall levels as trec_eval 9 (``IPrec(rounding='trec_eval9')``)."""
    return measure(rounding="trec_eval9") if measure.NAME == "IPrec" else measure


PytrecEvalProvider = _provider_class(
    "PytrecEvalProvider", "pytrec_eval", _pytrec_eval, TREC_EVAL_9, computes=_trec_eval_9
)
JudgedProvider = _provider_class("JudgedProvider", "judged", lambda m: _is(m, "Judged"), SORTED_BY_DOC)
MsMarcoProvider = _provider_class(
    "MsMarcoProvider", "msmarco", lambda m: _is(m, "RR", judged_only=falsy), SORTED_BY_DOC
)
GdevalProvider = _provider_class(
    "GdevalProvider",
    "gdeval",
    lambda m: (
        _is(m, "ERR", cutoff=given)
        or _is(m, "nDCG", cutoff=given, dcg=lambda v: v == "exp-log2", gains=none, judged_only=falsy)
    ),
    GDEVAL,
    "ERR nDCG",
    _exp_log2,
)
RanxProvider = _provider_class(
    "RanxProvider", "ranx", _ranx, RANKFRAME, "P SetP R SetR RR AP Success NumRet nDCG Rprec"
)
TrectoolsProvider = _provider_class("TrectoolsProvider", "trectools", _trectools, RANKFRAME)
CwlEvalProvider = _provider_class(
    "CwlEvalProvider", "cwl_eval", _cwl_eval, IN_RUN_ORDER, computes=_cwl_form, details=_cwl_details
)
CompatProvider = _provider_class("CompatProvider", "compat", lambda m: _is(m, "Compat"), SORTED_BY_DOC)
#: ndeval's intent-aware measures (rankframe._measures.subtopics), pyndeval's alone.
NDEVAL_FAMILIES = (
    "alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall",
)
PyNdEvalProvider = _provider_class(
    "PyNdEvalProvider", "pyndeval", lambda m: any(_is(m, n) for n in NDEVAL_FAMILIES), SORTED_BY_DOC
)
AccuracyProvider = _provider_class(
    "AccuracyProvider", "accuracy", lambda m: _is(m, "Accuracy"), IN_RUN_ORDER
)

pytrec_eval = PytrecEvalProvider()
judged = JudgedProvider()
msmarco = MsMarcoProvider()
gdeval = GdevalProvider()
ranx = RanxProvider()
trectools = TrectoolsProvider()
cwl_eval = CwlEvalProvider()
compat = CompatProvider()
pyndeval = PyNdEvalProvider()
accuracy = AccuracyProvider()


class RuntimeProvider(Provider):
    """The provider of measures defined at run time (``define``, ``define_byquery``).

    Examples
    --------
    >>> from rankframe.compat.ir_measures import define
    >>> A = define(lambda qrels, run: [], run_inputs=["query_id"])
    >>> RuntimeProvider().run_inputs([A])
    ['query_id']
    """

    def __init__(self) -> None:
        super().__init__("runtime", lambda m: isinstance(m, RuntimeMeasure), RANKFRAME)

    def run_inputs(self, measures: Any) -> list[str]:
        """The run's columns the runtime measures read."""
        return super().run_inputs(m for m in measures if isinstance(m, RuntimeMeasure))

    def qrel_inputs(self, measures: Any) -> list[str]:
        """The judgments' columns the runtime measures read."""
        return super().qrel_inputs(m for m in measures if isinstance(m, RuntimeMeasure))


runtime = RuntimeProvider()

#: ir_measures' providers by name.
registry: dict[str, Provider] = {
    p.NAME: p
    for p in (
        accuracy,
        compat,
        cwl_eval,
        pyndeval,
        pytrec_eval,
        judged,
        gdeval,
        trectools,
        msmarco,
        ranx,
        runtime,
    )
}
#: The order in which ir_measures' default pipeline picks a provider for a measure.
PIPELINE = (runtime, pytrec_eval, cwl_eval, compat, pyndeval, judged, msmarco, gdeval, accuracy, ranx)


def _first_provider(measure: Any) -> Provider | None:
    """The provider ir_measures' default pipeline picks for ``measure`` (None: none of them)."""
    return next((p for p in PIPELINE if p._accepts(measure)), None)  # noqa: SLF001


def default_convention(measure: Any) -> Convention:
    """The convention of the first provider ir_measures' default pipeline picks for ``measure``.

    rankframe's measures that no provider of ir_measures computes (``GMAP``, ``DCG``...) are
    computed with rankframe's own (float64 scores, trec_eval's tie order).
    """
    provider = _first_provider(measure)
    return RANKFRAME if provider is None else provider._convention(measure)  # noqa: SLF001


def default_computes(measure: Any) -> Any:
    """The measure the first provider of ir_measures' default pipeline computes for ``measure``."""
    provider = _first_provider(measure)
    computes = None if provider is None else provider._computes  # noqa: SLF001
    return measure if computes is None else computes(measure)


#: ir_measures' default pipeline: each measure computed as its first provider computes it.
DefaultPipeline = Provider("default", lambda _m: True, default_convention, computes=default_computes)
# the measures compute themselves through it ((P @ 5).calc_aggregate(qrels, run))
SelfComputing.pipeline = DefaultPipeline

"""Measure names: ir_measures syntax, trec_eval names and ranx names, all driven by the registry."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import Any

from rankframe._errors import MeasureError
from rankframe._measures import REGISTRY, TREC_NAMES, Measure, load_all

_IRM = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P<args>\(.*\))?(?:@(?P<cutoff>[^@()]+))?$")
_RANX = re.compile(r"^(?P<name>[a-z][a-z0-9_\-]*?)(?:\.(?P<p>\d+))?(?:@(?P<k>\d+))?(?:-l(?P<l>-?\d+))?$")

#: trec_eval nicknames -> the trec_eval measure names they expand to (trec_eval 10.0).
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
        "bpref", "recip_rank", "iprec_at_recall", "P",
    ),
    "set": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
        "set_relative_P", "set_map", "set_F",
    ),
    "all_trec": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid",
        "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
        "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
        "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret",
    ),
}


def _literal(node: ast.expr, spec: str) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        if isinstance(node, ast.Name):  # bare word, e.g. dcg=exp-log2 without quotes
            return node.id
        msg = f"Cannot read a parameter value in measure {spec!r}: {ast.unparse(node)!r}."
        raise MeasureError(msg) from None


def _parse_irm(spec: str) -> Measure | None:
    m = _IRM.match(spec.strip())
    if not m or m.group("name") not in REGISTRY:
        return None
    cls = REGISTRY[m.group("name")]
    params: dict[str, Any] = {}
    if m.group("args"):
        try:
            call = ast.parse(f"f{m.group('args')}", mode="eval").body
        except SyntaxError:
            msg = (
                f"Malformed parameters in measure {spec!r}. "
                "Write them as NAME(param=value, ...)@cutoff, e.g. 'P(rel=2)@5'."
            )
            raise MeasureError(msg) from None
        assert isinstance(call, ast.Call)  # noqa: S101 - guaranteed by the f(...) wrapper
        if call.args:
            msg = f"Parameters of {spec!r} must be named, e.g. 'P(rel=2)@5'."
            raise MeasureError(msg)
        for kw in call.keywords:
            if kw.arg in params:
                msg = f"The parameter {kw.arg!r} is given twice in measure {spec!r}."
                raise MeasureError(msg)
            params[str(kw.arg)] = _literal(kw.value, spec)
    if m.group("cutoff") is not None:
        raw = m.group("cutoff")
        try:
            params["cutoff"] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            msg = f"The cutoff of {spec!r} must be a number. Got {raw!r}."
            raise MeasureError(msg) from None
    return cls(**params)


def trec_split(spec: str) -> tuple[str, str | None] | None:
    """Split a trec_eval name into (base name, parameter string), or None if it is not one."""
    if spec in TREC_NAMES:
        return spec, None
    for i, ch in enumerate(spec):
        if ch == "." and spec[:i] in TREC_NAMES:
            return spec[:i], spec[i + 1 :]
    if "_" in spec:
        base, _, rest = spec.rpartition("_")
        # P_5, ndcg_cut_10, iprec_at_recall_0.10: the parameters start like a number
        if base in TREC_NAMES and rest and (rest[0].isdigit() or rest[0] in ".-"):
            return base, rest
    return None


def parse_trec(spec: str) -> list[tuple[str, Measure]]:
    """Parse one trec_eval measure spec into (trec_eval output label, measure) pairs."""
    split = trec_split(spec)
    if split is None:
        raise MeasureError.unknown(spec, valid_names())
    base, params = split
    return TREC_NAMES[base](params)


def _parse_ranx(spec: str) -> Measure | None:
    m = _RANX.match(spec.strip())
    if not m:
        return None
    for cls in REGISTRY.values():
        fixed = cls.ALIASES.get(m.group("name"))
        if fixed is None:
            continue
        params = dict(fixed)
        if m.group("k"):
            params["cutoff"] = int(m.group("k"))
        if m.group("l"):
            params["rel"] = int(m.group("l"))
        if m.group("p"):
            params["p"] = float("0." + m.group("p"))
        return cls(**params)
    return None


def valid_names() -> list[str]:
    """Every measure name the parser accepts: ir_measures, trec_eval and ranx names."""
    load_all()
    names = set(REGISTRY) | set(TREC_NAMES) | set(NICKNAMES)
    for cls in REGISTRY.values():
        names |= set(cls.ALIASES)
    return sorted(names, key=str.lower)


def _is_foreign_measure(spec: object) -> bool:
    """An ir_measures measure object (duck-typed: ir_measures is never imported)."""
    return type(spec).__module__.split(".")[0] == "ir_measures" and hasattr(spec, "NAME")


def _parse_foreign(spec: object) -> list[Measure]:
    """An ir_measures measure, through its canonical text (``nDCG@10``, ``P(rel=2)@5``)."""
    text = str(spec)
    measure = _parse_irm(text)
    if measure is None:
        msg = (
            f"The ir_measures measure {text} has no rankframe equivalent. See "
            "rankframe.valid_names() for the measures rankframe computes."
        )
        raise MeasureError(msg)
    return [measure]


def parse_measure(spec: str | Measure) -> list[Measure]:
    """Parse one measure spec (any dialect) into measures.

    Parameters
    ----------
    spec
        ``nDCG@10``, ``P(rel=2)@5`` (ir_measures), ``ndcg_cut.5,10``, ``P_5``, ``map``,
        ``official`` (trec_eval), ``ndcg@10``, ``precision@5-l2`` (ranx), or a measure object
        (rankframe's, or ir_measures', read through its canonical name).

    Returns
    -------
    list of Measure
        One measure for ir_measures and ranx names, possibly several for trec_eval names.

    Examples
    --------
    >>> parse_measure("ndcg_cut.5,10")
    [nDCG@5, nDCG@10]
    >>> parse_measure("P(rel=2)@5")
    [P(rel=2)@5]
    >>> parse_measure("precision@5-l2")
    [P(rel=2)@5]
    """
    load_all()
    if isinstance(spec, Measure):
        return [spec]
    build = getattr(spec, "build", None)  # rankframe.measures.MeasureFamily (needs a cutoff)
    if callable(build):
        return [build()]
    if _is_foreign_measure(spec):
        return _parse_foreign(spec)
    if not isinstance(spec, str):
        msg = f"A measure must be a name or a Measure object. Got {spec!r} ({type(spec).__name__})."
        raise MeasureError(msg)
    spec = spec.strip()
    if not spec:
        msg = "A measure name cannot be empty."
        raise MeasureError(msg)
    if spec in NICKNAMES:
        out: list[Measure] = []
        for name in NICKNAMES[spec]:
            if name == "runid":
                continue
            out.extend(m for _, m in TREC_NAMES[name](None))
        return out
    irm = _parse_irm(spec)
    if irm is not None:
        return [irm]
    if trec_split(spec) is not None:
        try:
            return [m for _, m in parse_trec(spec)]
        except MeasureError as trec_error:
            try:  # ranx names that look like trec_eval's: rbp.95, dcg_burges@10
                ranx = _parse_ranx(spec)
            except MeasureError:  # ranx's reading fails too: trec_eval's error says what was written
                ranx = None
            if ranx is None:
                raise trec_error from None
            return [ranx]
    ranx = _parse_ranx(spec)
    if ranx is not None:
        return [ranx]
    raise MeasureError.unknown(spec, valid_names())


def parse_measures(specs: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse several specs, keeping the first occurrence of duplicates, in order."""
    if isinstance(specs, str | Measure) or _is_foreign_measure(specs):
        specs = [specs]
    elif not isinstance(specs, Iterable):
        msg = (
            "measures must be a name, a Measure object or a list of them, e.g. "
            f"measures=['nDCG@10', 'AP']. Got {specs!r} ({type(specs).__name__})."
        )
        raise MeasureError(msg)
    out: dict[Measure, None] = {}
    for spec in specs:
        for m in parse_measure(spec):
            out.setdefault(m, None)
    if not out:
        msg = "No measures were requested. Pass at least one, e.g. measures=['nDCG@10', 'AP']."
        raise MeasureError(msg)
    return list(out)

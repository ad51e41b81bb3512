"""ir_measures' name parsers: ``parse_measure`` (``nDCG@10``) and ``parse_trec_measure`` (``P_5,10``).

Both read through rankframe's parser (the registry) and return this package's objects, spelled
as ir_measures spells them (``SetP(relative=True)``, ``NumRet(rel=1)``).
"""

from __future__ import annotations

import re
from typing import Any

import rankframe as rf
from rankframe._errors import MeasureError
from rankframe._measures._names import parse_trec
from rankframe.compat.ir_measures.measures import ALIASES, UNSUPPORTED, Unsupported, as_compat
from rankframe.compat.pytrec_eval import supported_nicknames

_NAME = re.compile(r"^\s*([^\W\d]\w*)\s*(\(.*\))?\s*(@.*)?$", re.DOTALL)

#: trec_eval's names ir_measures reads (the others it reports as "not yet supported").
TREC_NAMES = frozenset(
    {
        "ndcg",
        "P",
        "map_cut",
        "set_map",
        "set_P",
        "infAP",
        "bpref",
        "num_rel_ret",
        "recip_rank",
        "recall",
        "set_recall",
        "set_relative_P",
        "num_ret",
        "num_rel",
        "ndcg_cut",
        "Rprec",
        "num_q",
        "map",
        "success",
        "set_F",
        "iprec_at_recall",
    }
)
_TREC_WITH_PARAMS = re.compile(r"^(\w+?)[._]([0-9]+(?:\.[0-9]+)?(?:,[0-9]+(?:\.[0-9]+)?)*)$")


def parse_measure(measure: str | Any) -> Any:
    """Parse one measure name in ir_measures' syntax (``nDCG@10``, ``P(rel=2)@5``, ``MAP``).

    Parameters
    ----------
    measure : str or measure
        The name; a measure object is returned as it is.

    Returns
    -------
    Measure
        This package's object. A parameter given in parentheses and an ``@`` cutoff: the
        ``@`` wins (``nDCG(cutoff=20)@10`` is ``nDCG@10``); ``IPrec(recall=x)`` is ``IPrec@x``.

    Raises
    ------
    rankframe.MeasureError
        For an unknown or malformed name (ir_measures raises ``NameError`` for an unknown one).

    Examples
    --------
    >>> parse_measure("nDCG@10"), parse_measure("P(rel=2)@5"), parse_measure("MAP")
    (nDCG@10, P(rel=2)@5, AP)
    >>> parse_measure("IPrec(rel=2, recall=0.4)"), parse_measure("SetRelP")
    (IPrec(rel=2)@0.4, SetP(relative=True))
    """
    if not isinstance(measure, str):
        return measure
    match = _NAME.match(measure)
    if match is not None:
        name, params, cutoff = match.group(1), match.group(2) or "", match.group(3) or ""
        if name in UNSUPPORTED:
            raise Unsupported(name, UNSUPPORTED[name]).error()
        if name == "IPrec":
            params = re.sub(r"\brecall\s*=", "cutoff=", params)
        measure = ALIASES.get(name, name) + params + cutoff
    parsed = rf.parse_measure(measure)
    if len(parsed) != 1:
        msg = f"{measure!r} names {len(parsed)} measures; parse_trec_measure reads trec_eval names."
        raise MeasureError(msg)
    return as_compat(parsed[0])


def parse_trec_measure(measure: str) -> list[Any]:
    """Parse a trec_eval name (``ndcg_cut.5,10``, ``P_5``, ``map``, ``official``) into measures.

    Parameters
    ----------
    measure : str
        A trec_eval measure or nickname (pytrec_eval's, trec_eval 9); a list of parameters
        gives one measure each (``set_F.1.0,0.5`` is ``SetF`` and ``SetF(beta=0.5)``).

    Returns
    -------
    list of Measure
        In trec_eval's order; a nickname gives its measures in name order, leaving out those
        ir_measures does not read (``gm_map``, ``runid``).

    Raises
    ------
    rankframe.MeasureError
        For a name ir_measures does not read (``gm_map``: "not yet supported") or an unknown one.

    Examples
    --------
    >>> parse_trec_measure("ndcg_cut.5,10"), parse_trec_measure("P_5"), parse_trec_measure("map")
    ([nDCG@5, nDCG@10], [P@5], [AP])
    >>> parse_trec_measure("set_F.1.0,0.5")
    [SetF, SetF(beta=0.5)]
    """
    if measure in supported_nicknames:
        names = sorted(n for n in supported_nicknames[measure] if _base(n) in TREC_NAMES)
        return [m for name in names for m in parse_trec_measure(name)]
    base = _base(measure)
    if base not in TREC_NAMES:
        parse_trec(measure)  # the unknown name's error, with the closest names
        msg = f"ir_measures reads no trec_eval measure {measure!r} (known, but not yet supported there)."
        raise MeasureError(msg)
    match = _TREC_WITH_PARAMS.match(measure)
    if match is None or match.group(1) != base:
        return [as_compat(m) for _, m in parse_trec(measure)]
    values = match.group(2).split(",")
    return [as_compat(m) for value in values for _, m in parse_trec(f"{base}.{value}")]


def _base(name: str) -> str:
    """The trec_eval measure a name starts with (``P_5,10`` -> ``P``); itself when none."""
    if name in TREC_NAMES:
        return name
    match = _TREC_WITH_PARAMS.match(name)
    if match is not None and match.group(1) in TREC_NAMES:
        return match.group(1)
    for base in sorted(TREC_NAMES, key=len, reverse=True):  # "ndcg_cut_10": the longest first
        rest = name[len(base) + 1:]
        # a parameter follows (P_x), not the rest of another measure's name (Rprec_mult, ndcg_rel)
        if name.startswith((base + "_", base + ".")) and rest[:1].isdigit():
            return base
    return name

"""Which measures a trec_eval ``-m`` list selects, in trec_eval 10.0's order.

trec_eval evaluates and prints its measures in the order of its own measure table
(:data:`TABLE_ORDER`), whatever the order of the ``-m`` options; a measure named several times
keeps the first parameter list given. :func:`select` resolves ``-m`` arguments for qrels and
qrels_jg judgments (the registry's trec_eval names, the judgment-group measures of
:mod:`rankframe._trec_eval.qrels_jg` and the nicknames), :func:`select_prefs` for preference
judgments (:mod:`rankframe._trec_eval.prefs`), and :func:`_check_format` checks a selection
against the judgment format (``-R``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rankframe._errors import MeasureError
from rankframe._measures import TREC_NAMES, Measure, load_all
from rankframe._measures._names import NICKNAMES, trec_split
from rankframe._trec_eval.prefs import PREFS_LABELS
from rankframe._trec_eval.qrels_jg import FORMAT_FREE, JG_NICKNAME, JG_TREC_NAMES

#: trec_eval 10.0's measure table, in the order it evaluates and prints measures.
TABLE_ORDER: tuple[str, ...] = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel",
    "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid",
    "unj",
)

#: Measures trec_eval prints in the ``all`` block only, never per query.
SUMMARY_ONLY = frozenset({"runid", "num_q", "gm_map", "gm_bpref"})

#: trec_eval's nicknames of the preference measures (measures.c ``prefs_names`` and
#: ``prefs_off_name``); they need ``-R prefs`` or ``-R qrels_prefs`` judgments.
PREFS_NICKNAMES: dict[str, tuple[str, ...]] = {
    "all_prefs": ("runid", "num_q", *PREFS_LABELS),
    "prefs": ("runid", "num_q", *PREFS_LABELS[:6]),
}

#: trec_eval nicknames: rankframe's, plus the judgment-group one.
TREC_NICKNAMES: dict[str, tuple[str, ...]] = {**NICKNAMES, "qrels_jg": JG_NICKNAME}

_ORDER = {name: i for i, name in enumerate(TABLE_ORDER)}


@dataclass(frozen=True)
class Selection:
    """The measures a list of trec_eval ``-m`` arguments selects.

    Parameters
    ----------
    runid
        Whether the ``runid`` line is printed.
    rows
        ``(trec_eval label, measure)`` pairs in trec_eval's printing order; several labels may
        share one measure.
    summary_only
        The labels printed in the ``all`` block only.
    names
        The trec_eval measure names selected (``runid`` included), in printing order.
    """

    runid: bool
    rows: tuple[tuple[str, Measure], ...]
    summary_only: frozenset[str] = frozenset()
    names: tuple[str, ...] = ()

    @property
    def measures(self) -> list[Measure]:
        """The distinct measures to compute, in printing order."""
        return list(dict.fromkeys(m for _, m in self.rows))

    def with_num_docs(self, num_docs: int) -> Selection:
        """Give the collection size to every measure that declares a ``num_docs`` parameter."""
        rows = tuple(
            (label, m.replace(num_docs=num_docs) if "num_docs" in m.params else m)
            for label, m in self.rows
        )
        return Selection(self.runid, rows, self.summary_only, self.names)


def _split(spec: str) -> tuple[str, str | None]:
    """Split ``name.params`` at the first dot, as trec_eval does; ``P_5`` is accepted too."""
    name, dot, params = spec.partition(".")
    if dot and not params:
        msg = f"The trec_eval measure {spec!r} has an empty parameter list after the '.'."
        raise MeasureError(msg)
    if (
        name in TREC_NAMES or name in TREC_NICKNAMES or name in _ORDER
        or name in PREFS_NICKNAMES
    ):
        return name, params if dot else None
    split = trec_split(spec)  # rankframe also accepts the printed labels, e.g. P_5, ndcg_cut_10
    if split is not None:
        return split
    return name, params if dot else None


def _trec_names() -> list[str]:
    return sorted(
        {*TREC_NAMES, *JG_TREC_NAMES, *TREC_NICKNAMES, *PREFS_NICKNAMES, "runid"}, key=str.lower
    )


def select(specs: Sequence[str]) -> Selection:
    """Resolve trec_eval ``-m`` arguments into the measures to compute and their labels.

    Parameters
    ----------
    specs
        ``-m`` arguments as trec_eval takes them: a measure (``map``), a measure with parameters
        after the first dot (``P.5,10``, ``ndcg.1=3,2=9``), or a nickname (``official``,
        ``all_trec``, ``set``, ``qrels_jg``). Empty means ``official``.

    Returns
    -------
    Selection
        Labels and measures in trec_eval's table order. When a measure is named several times,
        the first parameter list given wins (trec_eval's rule); a bare name keeps the defaults
        unless some other ``-m`` gives parameters.

    Raises
    ------
    MeasureError
        For an unknown name, a preference nickname, or a trec_eval measure rankframe lacks.

    Examples
    --------
    >>> [label for label, _ in select(["P.10,5", "map"]).rows]
    ['map', 'P_5', 'P_10']
    """
    load_all()
    parsers = {**TREC_NAMES, **JG_TREC_NAMES}
    marked: dict[str, str | None] = {}  # base name -> first parameter string given
    origin: dict[str, str] = {}
    for spec in specs or ["official"]:
        spec = spec.strip()
        name, params = _split(spec)
        if name in PREFS_NICKNAMES or name in PREFS_LABELS:
            msg = (
                f"The trec_eval measure {name!r} is a preference measure: it needs "
                "'-R prefs' (qid ujg ujsubg docno rel_level) or '-R qrels_prefs' judgments."
            )
            raise MeasureError(msg)
        members = TREC_NICKNAMES.get(name, (name,))
        for member in members:
            if member != "runid" and member not in parsers:
                if member in _ORDER:
                    via = f" (selected by {spec!r})" if member != name else ""
                    msg = f"The trec_eval measure {member!r}{via} is not available in rankframe yet."
                    raise MeasureError(msg)
                raise MeasureError.unknown(spec, _trec_names())
            marked.setdefault(member, None)
            origin.setdefault(member, spec)
        if name not in TREC_NICKNAMES and params is not None and marked[name] is None:
            marked[name] = params
    extra = len(_ORDER)
    names = tuple(sorted(marked, key=lambda n: _ORDER.get(n, extra)))
    runid = marked.pop("runid", "absent") != "absent"
    order = [n for n in names if n != "runid"]
    rows: list[tuple[str, Measure]] = []
    summary_only: set[str] = set()
    for name in order:
        try:
            pairs = parsers[name](marked[name])
        except MeasureError as err:
            msg = f"In the trec_eval measure {origin[name]!r}: {err}"
            raise MeasureError(msg) from None
        rows.extend(pairs)
        if name in SUMMARY_ONLY:
            summary_only.update(label for label, _ in pairs)
    return Selection(
        runid=runid, rows=tuple(rows), summary_only=frozenset(summary_only), names=names
    )


def select_prefs(specs: Sequence[str]) -> tuple[str, ...]:
    """Resolve ``-m`` arguments given with preference judgments into trec_eval labels.

    Only the preference measures (``all_prefs``, ``prefs`` or single labels such as
    ``prefs_simp``), ``runid`` and ``num_q`` can be computed from preferences; the result is
    in trec_eval's printing order.
    """
    allowed = {"runid", "num_q", *PREFS_LABELS}
    marked: set[str] = set()
    for spec in specs or ["official"]:
        spec = spec.strip()
        name, params = _split(spec)
        members = PREFS_NICKNAMES.get(name) or TREC_NICKNAMES.get(name, (name,))
        bad = [m for m in members if m not in allowed]
        if bad and bad[0] not in _ORDER:
            raise MeasureError.unknown(spec, _trec_names())
        if bad:
            via = f" (selected by {spec!r})" if bad[0] != name else ""
            msg = (
                f"-R prefs / -R qrels_prefs: the measure {bad[0]!r}{via} needs qrels "
                "judgments; from preferences trec_eval 10.0 computes only the preference "
                f"measures (-m {' / -m '.join(PREFS_NICKNAMES)}: {', '.join(PREFS_LABELS)}), "
                "runid and num_q."
            )
            raise MeasureError(msg)
        if params is not None:
            msg = f"The trec_eval measure {name!r} takes no parameters; got {spec!r}."
            raise MeasureError(msg)
        marked.update(members)
    return tuple(sorted(marked, key=lambda n: _ORDER[n]))


def _check_format(sel: Selection, rel_format: str) -> None:
    """trec_eval computes the *_avgjg measures from qrels_jg only, and the others from qrels."""
    if rel_format == "qrels_jg":
        other = [n for n in sel.names if n not in JG_TREC_NAMES and n not in FORMAT_FREE]
        if other:
            msg = (
                f"-R qrels_jg: the measure {other[0]!r} is not supported yet with judgment "
                f"groups; from qrels_jg judgments trec_eval 10.0 computes only "
                f"{', '.join(JG_NICKNAME)} (-m qrels_jg)."
            )
            raise MeasureError(msg)
    else:
        jg = [n for n in sel.names if n in JG_TREC_NAMES]
        if jg:
            msg = (
                f"The measure {jg[0]!r} averages over judgment groups: it needs '-R qrels_jg' "
                "judgments (qid ujg docno rel)."
            )
            raise MeasureError(msg)

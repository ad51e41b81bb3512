"""The measure catalogue: one :class:`Entry` per registered family, read from the registry.

Everything a reader needs to know about a family comes from the family itself: its class
attributes (``NAME``, ``PARAMS``, ``ALIASES``, ``AGGREGATE``), the trec_eval names whose parsers
yield it (:data:`rankframe._measures.TREC_NAMES`, called with no parameters), the trec_eval
nicknames that include those names, and its numpydoc docstring (summary, parameters, notes with
the formula, references, examples). A new family appears in :func:`entries` (and so in the
documentation site's catalogue) by being registered, nothing else; ``rankframe measures`` can
list the same entries.

Docstring text is returned as written (reStructuredText roles such as ``:math:`` kept).

Examples
--------
>>> from rankframe._measures._catalogue import entries
>>> ndcg = next(e for e in entries() if e.name == "nDCG")
>>> ndcg.example, ndcg.signature, ndcg.aggregate
('nDCG@10', 'nDCG(dcg, gains, judged_only)@k', 'mean')
>>> [t.name for t in ndcg.trec_names], [a.name for a in ndcg.aliases]
(['ndcg', 'ndcg_cut'], ['ndcg', 'ndcg_burges'])
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Any

from rankframe._measures import TREC_NAMES, Measure, families, load_all
from rankframe._measures._measure import SIDE_ROLES
from rankframe._measures._names import NICKNAMES

__all__ = ["Alias", "Entry", "ParamInfo", "TrecName", "entries", "entry"]

_SECTION = re.compile(r"^(?P<title>[A-Z][A-Za-z ]+)\n-{3,}$", re.MULTILINE)
_SENTENCE = re.compile(r"(?<!e\.g\.)(?<!i\.e\.)(?<! al\.)(?<! cf\.)(?<=\.)\s+(?=\S)")
_DEFINED = re.compile(r"\b(?:un)?defined\b|\bscored? 0\b|\bscores 0\b|(?:^|; )0 when\b", re.IGNORECASE)


@dataclass(frozen=True)
class ParamInfo:
    """One parameter of a family.

    Parameters
    ----------
    name
        Keyword in ir_measures syntax (``cutoff`` is written ``@k``).
    kind
        ``"int"``, ``"float"``, ``"str"``, ``"bool"``, ``"gains"`` or ``"floats"``.
    default
        Default value (``None``: not set).
    type
        The type as the docstring states it (``int, optional``), or ``kind``.
    doc
        The docstring's description of the parameter.
    """

    name: str
    kind: str
    default: Any
    type: str
    doc: str


@dataclass(frozen=True)
class Alias:
    """A ranx-style name of a family and the measure it stands for (``ndcg_burges``)."""

    name: str
    measure: str


@dataclass(frozen=True)
class TrecName:
    """A trec_eval measure name that yields the family, with the labels it prints by default.

    Parameters
    ----------
    name
        The trec_eval name (``ndcg_cut``), written ``ndcg_cut.5,10`` with parameters.
    labels
        ``(output label, canonical measure)`` pairs of the family for the default parameters,
        in trec_eval's order: ``("ndcg_cut_5", "nDCG@5")``...
    nicknames
        The trec_eval nicknames (``official``, ``set``, ``all_trec``) that include the name.
    """

    name: str
    labels: tuple[tuple[str, str], ...]
    nicknames: tuple[str, ...]


@dataclass(frozen=True)
class Entry:
    """Everything the catalogue says about one measure family.

    Parameters
    ----------
    name
        The family's ir_measures-style name (``nDCG``).
    example
        The canonical name of an example measure of the family (``nDCG@10``), which parses back
        to it.
    signature
        The family's parameters in ir_measures syntax (``nDCG(dcg, gains, judged_only)@k``).
    summary
        The docstring's first line.
    description
        The docstring's paragraphs between the summary and the first section.
    aliases
        ranx-style names (lower case; a cutoff is written ``@k``, a relevance level ``-l2``).
    trec_names
        trec_eval names that yield the family.
    params
        The declared parameters with their docstring descriptions.
    aggregate
        How per-query values combine: ``"mean"``, ``"sum"``, ``"gmean"`` (geometric mean of
        values floored at 1e-5), ``"none"``, or ``"population"`` (one value per run or group
        reduced from every query's state: no per-query values).
    undefined
        The value of a query on which the measure is undefined, as the family states it
        (its ``UNDEFINED`` attribute where it has one, else the docstring's sentences about it);
        empty when the docstring says nothing.
    notes, references, examples
        The docstring's sections of those names (the formula is in ``notes``, as ``.. math::``
        blocks and ``:math:`` roles); empty when absent.
    sections
        Every docstring section, ``(title, text)`` in order.
    module
        The module that defines the family.
    supports_average_ties
        Whether ``ties="average"`` applies to the family.
    compares_rankings
        Whether the family compares the predicted ranking with a target ranking (``target=``).
    pairwise_target
        Whether the family accepts explicit preference pairs as its target (``prefs=``).
    side_inputs
        The inputs beside the run it reads: ``"judgments"`` and the side inputs
        (``"interactions"``, ``"items"``, ``"reference"``) of recommender evaluation.
    """

    name: str
    example: str
    signature: str
    summary: str
    description: str
    aliases: tuple[Alias, ...]
    trec_names: tuple[TrecName, ...]
    params: tuple[ParamInfo, ...]
    aggregate: str
    undefined: str
    notes: str
    references: str
    examples: str
    sections: tuple[tuple[str, str], ...]
    module: str
    supports_average_ties: bool
    compares_rankings: bool
    pairwise_target: bool
    side_inputs: tuple[str, ...] = ()


def _split_doc(doc: str) -> tuple[str, str, dict[str, str]]:
    """Summary, extended description and ``{title: text}`` sections of a numpydoc docstring."""
    heads = list(_SECTION.finditer(doc))
    head = doc[: heads[0].start()] if heads else doc
    paragraphs = head.strip().split("\n\n", 1)
    summary = " ".join(paragraphs[0].split())
    description = paragraphs[1].strip() if len(paragraphs) > 1 else ""
    sections: dict[str, str] = {}
    for i, match in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(doc)
        sections[match.group("title").strip()] = doc[match.end() : end].strip("\n").rstrip()
    return summary, description, sections


def _param_docs(text: str) -> dict[str, tuple[str, str]]:
    """``{name: (type, description)}`` from a numpydoc Parameters section."""
    out: dict[str, tuple[str, str]] = {}
    names: list[str] = []
    kind = ""
    lines: list[str] = []

    def flush() -> None:
        for name in names:
            out[name] = (kind, " ".join(" ".join(lines).split()))

    for line in text.splitlines():
        if line and not line[0].isspace():
            flush()
            spec, _, kind = line.partition(" : ")
            names = [n.strip() for n in spec.split(",")]
            kind = kind.strip()
            lines = []
        else:
            lines.append(line.strip())
    flush()
    return out


def _undefined(cls: type[Measure], texts: list[str]) -> str:
    """The family's ``UNDEFINED`` value, else its docstring's sentences about undefined queries."""
    declared = getattr(cls, "UNDEFINED", None)
    if declared is not None:
        return declared if isinstance(declared, str) else f"The query scores {declared}."
    sentences = []
    for text in texts:
        for paragraph in re.split(r"\n\s*\n", text):
            if paragraph.lstrip().startswith((".. ", ">>>")):
                continue  # a formula or an example
            prose = " ".join(paragraph.split())
            for i, sentence in enumerate(_SENTENCE.split(prose)):
                if i == 0 and sentence[:1].islower():
                    continue  # the end of a sentence that a formula interrupts
                if _DEFINED.search(sentence):
                    sentences.append(sentence[:1].upper() + sentence[1:])
    return " ".join(sentences)


def _example(cls: type[Measure], trec: tuple[TrecName, ...]) -> str:
    """The canonical name of an example measure: with a cutoff where the family has one."""
    cutoff = next((p for p in cls.PARAMS if p.name == "cutoff"), None)
    tries: list[dict[str, Any]] = []
    if cutoff is not None:
        tries.append({"cutoff": 0.5 if cutoff.kind == "float" else 10})
    tries.append({})
    for params in tries:
        try:
            return repr(cls(**params))
        except ValueError:  # MeasureError: the family needs other parameters
            continue
    for t in trec:
        if t.labels:
            return t.labels[0][1]
    return cls.NAME


def _aliases(cls: type[Measure]) -> tuple[Alias, ...]:
    out = []
    for name, fixed in cls.ALIASES.items():
        try:
            measure = repr(cls(**fixed))
        except ValueError:
            measure = f"{cls.NAME}({', '.join(f'{k}={v!r}' for k, v in fixed.items())})"
        out.append(Alias(name, measure))
    return tuple(out)


def _signature(cls: type[Measure]) -> str:
    params = [p.name for p in cls.PARAMS if p.name != "cutoff"]
    text = cls.NAME + (f"({', '.join(params)})" if params else "")
    if any(p.name == "cutoff" for p in cls.PARAMS):
        text += "@k"
    return text


def _trec_by_family() -> dict[str, list[TrecName]]:
    """The trec_eval names by the family they yield (a name may yield several families)."""
    nicknames: dict[str, list[str]] = {}
    for nick, names in NICKNAMES.items():
        for name in names:
            nicknames.setdefault(name, []).append(nick)
    out: dict[str, list[TrecName]] = {}
    for name, parse in TREC_NAMES.items():
        try:
            pairs = parse(None)
        except ValueError:  # MeasureError: the name has no default parameters
            continue
        by_family: dict[str, list[tuple[str, str]]] = {}
        for label, measure in pairs:
            by_family.setdefault(type(measure).NAME, []).append((label, repr(measure)))
        for family, labels in by_family.items():
            out.setdefault(family, []).append(
                TrecName(name, tuple(labels), tuple(nicknames.get(name, ())))
            )
    return out


def entry(cls: type[Measure], trec: tuple[TrecName, ...] = ()) -> Entry:
    """The catalogue entry of one family.

    Parameters
    ----------
    cls
        A registered measure family.
    trec
        The trec_eval names that yield it (:func:`entries` finds them in the registry).

    Returns
    -------
    Entry
        The family's names, parameters, aggregation, undefined case and docstring sections.
    """
    doc = inspect.getdoc(cls) or ""
    summary, description, sections = _split_doc(doc)
    documented = _param_docs(sections.get("Parameters", ""))
    params = tuple(
        ParamInfo(p.name, p.kind, p.default, *documented.get(p.name, (p.kind, p.doc)))
        for p in cls.PARAMS
    )
    notes = sections.get("Notes", "")
    return Entry(
        name=cls.NAME,
        example=_example(cls, trec),
        signature=_signature(cls),
        summary=summary,
        description=description,
        aliases=_aliases(cls),
        trec_names=trec,
        params=params,
        aggregate="population" if cls.KIND == "population" else cls.AGGREGATE,
        undefined=_undefined(cls, [description, notes]),
        notes=notes,
        references=sections.get("References", ""),
        examples=sections.get("Examples", ""),
        sections=tuple(sections.items()),
        module=cls.__module__,
        supports_average_ties=cls.SUPPORTS_AVERAGE_TIES,
        compares_rankings=cls.COMPARES_RANKINGS,
        pairwise_target=cls.PAIRWISE_TARGET,
        side_inputs=_side_inputs(cls),
    )


def _side_inputs(cls: type[Measure]) -> tuple[str, ...]:
    """What the family reads beside the run (see :attr:`Entry.side_inputs`)."""
    roles = sorted({SIDE_ROLES[c] for c in cls.SIDE_COLUMNS})
    return (("judgments",) if cls.NEEDS_JUDGMENTS else ()) + tuple(roles)


def entries() -> list[Entry]:
    """One entry per registered measure family, in name order (case-insensitive).

    Returns
    -------
    list of Entry
        Every family of :data:`rankframe._measures.REGISTRY`, each with the trec_eval names
        that yield it.
    """
    load_all()
    trec = _trec_by_family()
    return [entry(cls, tuple(trec.get(cls.NAME, ()))) for cls in families()]

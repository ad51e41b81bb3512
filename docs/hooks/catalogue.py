"""MkDocs hook: the measure catalogue, generated from the measure registry at build time.

:func:`rankframe._measures._catalogue.entries` lists every registered family; this hook turns
the list into Markdown pages (an index under ``measures/index.md`` and one page per family under
``measures/<name>.md``), adds them to the files of the build (``File.generated``) and puts them
in the navigation under "Measure catalogue". A new measure family appears in the site once it is
registered: no page is edited by hand.

The docstrings are numpydoc with reStructuredText markup; ``rst_markdown.rst_to_markdown``
converts the little of it they use (``.. math::`` blocks, ``:math:`` and cross-reference roles,
double backquotes) to the Markdown of ``pymdownx.arithmatex``; ``:class:`` roles naming a family
link to its page.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.structure.files import File

HOOKS = Path(__file__).resolve().parent
ROOT = HOOKS.parents[1]
for path in (ROOT, HOOKS):  # the hook runs in the mkdocs process: import this checkout
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from rst_markdown import code as _code  # noqa: E402
from rst_markdown import rst_to_markdown  # noqa: E402

from rankframe._measures._catalogue import Entry, entries  # noqa: E402

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

#: The navigation title under which the catalogue goes (``mkdocs.yml`` names its index).
NAV_TITLE = "Measure catalogue"
#: Where the generated pages go, relative to ``docs/``.
FOLDER = "measures"

GROUPS = (
    ("trec", "trec_eval measures", "Measures that trec_eval computes, under its names and rankframe's."),
    ("other", "ir_measures and ranx measures", "Measures of ir_measures and ranx beyond trec_eval."),
    (
        "recsys",
        "Recommender measures beyond accuracy",
        "Coverage, novelty, diversity and popularity measures of recommendation lists: they read the "
        "run and the side inputs (training interactions, item catalogue, a reference run), no "
        "judgments; the population measures have one value per run (see the recommender guide).",
    ),
    (
        "rankings",
        "Comparing two rankings",
        "Rank distances, correlations, weighted errors, AUCs and learning-to-rank losses between the "
        "predicted ranking and a target ranking (the grades, a column of the run or preference pairs).",
    ),
)
AGGREGATION = {
    "mean": "arithmetic mean over queries",
    "sum": "sum over queries",
    "gmean": "geometric mean over queries (values floored at 10<sup>-5</sup>, trec_eval's MIN_GEO_MEAN)",
    "none": "none: a per-query diagnostic (per-query output only)",
    "population": (
        "none: one value per run or breakdown group, from every user's top items (no per-query values)"
    ),
}

_REFERENCE_START = re.compile(r"^(?:(?:van|de|von|da) )?[A-ZÀ-Þ][\w'\-]*, [A-ZÀ-Þ]\.")


def slug(name: str) -> str:
    """The page name of a family (``nDCG`` -> ``ndcg``)."""
    return re.sub(r"[^a-z0-9_]+", "-", name.lower())


def group(e: Entry) -> str:
    """The catalogue group of an entry: ``"rankings"``, ``"recsys"``, ``"trec"`` or ``"other"``."""
    if e.compares_rankings:
        return "rankings"
    if "judgments" not in e.side_inputs:
        return "recsys"
    return "trec" if e.trec_names else "other"


def _linker(families: set[str], here: str) -> Callable[[str], str | None]:
    """Cross-references to a family's catalogue page (``:class:`AP``` -> ``ap.md``)."""

    def link(target: str) -> str | None:
        name = target.rsplit(".", 1)[-1]
        return f"{slug(name)}.md" if name in families and name != here else None

    return link


def _references(text: str, link: Callable[[str], str | None]) -> list[str]:
    """The references of a References section, one per item (a new one starts at "Name, X.")."""
    items: list[list[str]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if not items or _REFERENCE_START.match(line):
            items.append([line])
        else:
            items[-1].append(line)
    return [_link_urls(rst_to_markdown(" ".join(item), link)) for item in items]


def _definitions(text: str, md: Callable[[str], str]) -> str:
    """A numpydoc section of items (``Returns``, ``Raises``...) as a list, else as prose.

    An item is a line at the section's margin (``name : type`` or a type) followed by its
    indented description.
    """
    lines = text.splitlines()
    if not lines or lines[0][:1].isspace() or not any(line[:1].isspace() for line in lines):
        return md(text)
    items: list[tuple[str, list[str]]] = []
    for line in lines:
        if line and not line[0].isspace():
            items.append((line.strip(), []))
        elif items:
            items[-1][1].append(line.strip())
    out = []
    for head, body in items:
        name, _, kind = head.partition(" : ")
        label = f"{_code(name)} ({kind})" if kind else _code(name)
        out.append(f"- {label}: {md(' '.join(body)).strip()}" if body else f"- {label}")
    return "\n".join(out)


def _link_urls(text: str) -> str:
    return re.sub(r"(?<![(<])(https?://[^\s)>]+[^\s.,;)>])", r"<\1>", text)


def _object_syntax(example: str) -> str:
    """``nDCG@10`` as the measure object expression ``nDCG @ 10``."""
    name, at, cutoff = example.rpartition("@") if "@" in example else (example, "", "")
    return f"{name} @ {cutoff}" if at else example


def _default(value: Any) -> str:
    if value is None:
        return "not set"
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return _code("{" + ", ".join(f"{k}: {v}" for k, v in value) + "}")
    return _code(repr(value))


def family_page(e: Entry, families: set[str]) -> str:
    """The Markdown page of one family."""
    link = _linker(families, e.name)

    def md(text: str) -> str:
        return rst_to_markdown(text, link)

    lines = [f"# {e.name}", "", md(e.summary), ""]
    if e.description:
        lines += [md(e.description), ""]
    names = [("ir_measures", f"{_code(e.example)}; parameters: {_code(e.signature)}")]
    if e.trec_names:
        trec = []
        for t in e.trec_names:
            measures = [m for _, m in t.labels]
            shown = ", ".join(_code(m) for m in measures[:3])
            if len(measures) > 3:
                shown += f", ... {_code(measures[-1])}"
            text = f"{_code(t.name)}: {shown}"
            labels = [label for label, _ in t.labels]
            if labels != [t.name]:
                printed = ", ".join(_code(x) for x in labels[:2])
                if len(labels) > 2:
                    printed += f", ... {_code(labels[-1])}"
                text += f" (printed as {printed})"
            if t.nicknames:
                text += f"; in {', '.join(_code(n) for n in t.nicknames)}"
            trec.append(text)
        names.append(("trec_eval", "<br>".join(trec)))
    else:
        names.append(("trec_eval", "none (not a trec_eval measure)"))
    if e.aliases:
        cut = "@k" if any(p.name == "cutoff" for p in e.params) else ""
        ranx = [f"{_code(a.name + cut)}: {_code(a.measure + cut)}" for a in e.aliases]
        if any(p.name == "rel" for p in e.params):
            ranx.append(f"{_code('-l2')} appended sets {_code('rel=2')}")
        names.append(("ranx", "; ".join(ranx)))
    else:
        names.append(("ranx", "none"))
    reads = [("judgments (qrels)" if r == "judgments" else f"`{r}=`") for r in e.side_inputs]
    names.append(("Reads", ", ".join(reads) or "the run alone"))
    names.append(("Aggregation", AGGREGATION.get(e.aggregate, e.aggregate)))
    undefined = md(e.undefined).replace("\n", " ") if e.undefined else "not stated (see the definition)"
    names.append(("Undefined case", undefined))
    traits = []
    if e.supports_average_ties:
        traits.append('`ties="average"` (expected value over the orders of tied documents)')
    if e.compares_rankings:
        traits.append("a target ranking: the grades, `target=` (a column of the run)")
    if e.pairwise_target:
        traits.append("preference pairs (`prefs=`)")
    if traits:
        names.append(("Accepts", "; ".join(traits)))
    table = ["| Names and properties | |", "|---|---|", *(f"| {k} | {v} |" for k, v in names)]
    lines += ['<div class="measure-card" markdown>', "", *table, "", "</div>", ""]

    if e.params:
        lines += ["## Parameters", ""]
        for p in e.params:
            written = "`@k`" if p.name == "cutoff" else _code(p.name)
            doc = md(p.doc).replace("\n", " ") if p.doc else ""
            lines.append(f"- {written} ({p.type}; default {_default(p.default)}){': ' + doc if doc else ''}")
        lines.append("")
    if e.notes:
        lines += ["## Definition", "", md(e.notes), ""]
    for title, text in e.sections:
        if title not in ("Parameters", "Notes", "References", "Examples"):
            lines += [f"## {title}", "", _definitions(text, md), ""]
    if e.references:
        lines += ["## References", ""]
        lines += [f"- {ref}" for ref in _references(e.references, link)]
        lines.append("")
    lines += ["## Usage", ""]
    if e.aggregate == "none":
        lines += [
            "A per-query diagnostic: trec_eval prints it with `-q`.",
            "",
            "```bash",
            f"rankframe trec_eval -q -m {e.trec_names[0].name if e.trec_names else e.example} QRELS RUN",
            "```",
            "",
        ]
    else:
        name = e.name
        lines += [
            "```python",
            "import rankframe as rf",
            f'rf.evaluate(qrels, run, ["{e.example}"])  # by name',
            f"from rankframe.measures import {name}",
            f"rf.evaluate(qrels, run, [{_object_syntax(e.example)}])  # as a measure object",
            "```",
            "",
        ]
    if e.examples:
        lines += ["## Example", "", "```pycon", e.examples, "```", ""]
    lines += [f"<small>Defined in `{e.module}`.</small>", ""]
    return "\n".join(lines)


def index_page(all_entries: list[Entry]) -> str:
    """The Markdown of the catalogue's index: one table per group, every family in it."""
    lines = [
        f"# {NAV_TITLE}",
        "",
        f"Every measure family that rankframe registers ({len(all_entries)} of them), generated from "
        "the measure registry when the site is built. Each accepts three spellings: the "
        "ir_measures name (`nDCG@10`, `P(rel=2)@5`), the trec_eval name (`ndcg_cut.10`, `P_5`, "
        "`map`, and the nicknames `official`, `set`, `all_trec`) and, where it has one, the ranx "
        "name (`ndcg@10`, `precision@5-l2`). `rankframe measures` prints the same list.",
        "",
    ]
    link = _linker({e.name for e in all_entries}, "")
    for key, title, blurb in GROUPS:
        members = [e for e in all_entries if group(e) == key]
        if not members:
            continue
        lines += [f"## {title}", "", blurb, "", "| Measure | Example | trec_eval | ranx | Summary |",
                  "|---|---|---|---|---|"]
        for e in members:
            trec = ", ".join(_code(t.name) for t in e.trec_names) or "-"
            ranx = ", ".join(_code(a.name) for a in e.aliases) or "-"
            summary = rst_to_markdown(e.summary, link).replace("|", r"\|")
            name = f"[{e.name}]({slug(e.name)}.md)"
            lines.append(f"| {name} | {_code(e.example)} | {trec} | {ranx} | {summary} |")
        lines.append("")
    return "\n".join(lines)


def pages() -> dict[str, str]:
    """Every generated page: ``{path under docs/: Markdown}``, the index first."""
    all_entries = entries()
    families = {e.name for e in all_entries}
    slugs = [slug(e.name) for e in all_entries]
    if len(set(slugs)) != len(slugs) or "index" in slugs:
        msg = f"two measure families share a page name: {sorted(slugs)}"
        raise RuntimeError(msg)
    out = {f"{FOLDER}/index.md": index_page(all_entries)}
    for e in all_entries:
        out[f"{FOLDER}/{slug(e.name)}.md"] = family_page(e, families)
    return out


def nav_section() -> list[Any]:
    """The catalogue's navigation: the index, then one sub-section per group."""
    all_entries = entries()
    section: list[Any] = [f"{FOLDER}/index.md"]
    for key, title, _ in GROUPS:
        members = [{e.name: f"{FOLDER}/{slug(e.name)}.md"} for e in all_entries if group(e) == key]
        if members:
            section.append({title: members})
    return section


def _replace_nav(nav: list[Any], section: list[Any]) -> bool:
    for i, item in enumerate(nav):
        if isinstance(item, dict):
            (title, value), = item.items()
            if title == NAV_TITLE:
                nav[i] = {title: section}
                return True
            if isinstance(value, list) and _replace_nav(value, section):
                return True
    return False


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Put the generated pages in the navigation, under the "Measure catalogue" entry."""
    nav = config.nav
    if nav is not None and not _replace_nav(nav, nav_section()):
        nav.append({NAV_TITLE: nav_section()})
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated catalogue pages to the build."""
    for path, content in pages().items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=content))
    return files

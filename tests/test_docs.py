"""The documentation site: the measure catalogue covers the registry, and the site builds strictly.

The catalogue is generated from the registry at build time (``docs/hooks/catalogue.py`` reads
``rankframe._measures._catalogue.entries()``), so a registered family without an entry or a page
is a bug here, not a page someone forgot to write.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import pkgutil
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import rankframe
from rankframe._cli import main
from rankframe._measures import REGISTRY, load_all
from rankframe._measures._catalogue import entries
from rankframe._measures._names import parse_measure

ROOT = Path(__file__).resolve().parents[1]


def _hook() -> ModuleType:
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[docs]')")
    path = ROOT / "docs" / "hooks" / "catalogue.py"
    spec = importlib.util.spec_from_file_location("rankframe_docs_catalogue_hook", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_registered_family_has_an_entry() -> None:
    load_all()
    found = [e.name for e in entries()]
    assert sorted(found, key=str.lower) == sorted(REGISTRY, key=str.lower)
    assert len(found) == len(set(found))


def test_entries_hold_names_that_parse_back() -> None:
    for e in entries():
        assert e.summary, e.name
        family = REGISTRY[e.name]
        assert [type(m) for m in parse_measure(e.example)] == [family], e.example
        assert repr(parse_measure(e.example)[0]) == e.example
        cutoff = "@10" if any(p.name == "cutoff" for p in family.PARAMS) else ""
        for alias in e.aliases:  # ranx names: recall@10 (a bare "recall" is trec_eval's)
            assert [type(m) for m in parse_measure(alias.name + cutoff)] == [family], alias.name
        for trec in e.trec_names:
            assert family in {type(m) for m in parse_measure(trec.name)}, trec.name
        assert e.aggregate in ("mean", "sum", "gmean", "none", "population")
        assert {p.name for p in e.params} == {p.name for p in family.PARAMS}


#: A reference to an internal design document ("seed 004", "the seed's slide"), not the literature.
INTERNAL_REFERENCE = re.compile(r"[Ss]eeds? 00\d|the seed's")


def _docstrings() -> Iterator[tuple[str, str]]:
    """``(name, docstring)`` of every rankframe module, of what each defines, and of every measure."""
    modules = [rankframe] + [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(rankframe.__path__, "rankframe.")
    ]
    for module in modules:
        yield module.__name__, inspect.getdoc(module) or ""
        for name, obj in vars(module).items():
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            if getattr(obj, "__module__", None) != module.__name__:
                continue  # imported, checked where it is defined
            yield f"{module.__name__}.{name}", inspect.getdoc(obj) or ""
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if callable(member) or isinstance(member, (property, classmethod, staticmethod)):
                        yield f"{module.__name__}.{name}.{attr}", inspect.getdoc(member) or ""
    load_all()
    for name, cls in REGISTRY.items():
        yield f"REGISTRY[{name!r}]", inspect.getdoc(cls) or ""


def test_docstrings_cite_the_literature_not_internal_documents() -> None:
    checked = dict(_docstrings())
    assert "rankframe._measures.rank_distance.KendallTau" in checked
    assert "REGISTRY['PairAcc']" in checked
    bad = [name for name, doc in checked.items() if INTERNAL_REFERENCE.search(doc)]
    assert not bad


def test_the_measures_command_cites_no_internal_documents(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    assert "KendallLoss" in out
    assert not INTERNAL_REFERENCE.search(out)


def test_the_catalogue_pages_cover_the_registry() -> None:
    hook = _hook()
    pages = hook.pages()
    index = pages["measures/index.md"]
    for name in REGISTRY:
        page = f"measures/{hook.slug(name)}.md"
        assert page in pages, name
        assert f"]({hook.slug(name)}.md)" in index, name
        assert pages[page].startswith(f"# {name}\n"), name
    ndcg = pages["measures/ndcg.md"]
    for part in ("`nDCG@10`", "`ndcg_cut`", "`ndcg_burges`", "arithmetic mean", "Undefined when",
                 "$$", "Järvelin", "```pycon"):
        assert part in ndcg, part
    assert ".. math::" not in "".join(pages.values())
    assert not re.search(r"(?i)\bseeds? 00\d", "".join(pages.values()))


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        pytest.importorskip(module, reason=f"{module} is not installed (pip install -e '.[docs]')")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for page in ("index.html", "measures/index.html", "measures/ndcg/index.html",
                 "api/rankframe/index.html", "api/spark/index.html", "architecture/index.html"):
        assert (site / page).is_file(), page
    api = (site / "api" / "rankframe" / "index.html").read_text(encoding="utf-8")
    assert 'id="rankframe.evaluate"' in api
    assert 'id="rankframe.compare"' in api
    assert ":math:" not in api


def test_the_comparing_systems_guide_prints_what_it_shows(monkeypatch, capsys) -> None:
    """The guide's first example, run from the repository root: its printed table and its
    Markdown table are what the guide shows (an interval the tool no longer prints, such as
    an RR interval past 1, cannot stay in the docs), and docs/compare-table.txt is the command's."""
    text = (ROOT / "docs" / "guides" / "comparing-systems.md").read_text()
    code, shown = re.search(r"```python\n(.*?print\(c\)\n)```\n\n```text\n(.*?)```", text, re.S).groups()
    markdown = re.search(r"\n(\| run \|.*?\|)\n\n", text, re.S).group(1)
    monkeypatch.chdir(ROOT)
    scope: dict = {}
    exec(code, scope)
    assert capsys.readouterr().out == shown
    assert scope["c"].to_markdown().startswith(markdown + "\n")
    table = (ROOT / "docs" / "compare-table.txt").read_text()
    out = main(["compare", "data/qrels.dl19-passage.txt", "data/run.dl19.bm25.txt",
                     "data/run.dl19.splade.txt", "-m", "nDCG@10", "AP", "RR", "R(rel=2)@100"])
    assert out == 0
    assert capsys.readouterr().out == table

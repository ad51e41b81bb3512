"""The registry of measure families and of trec_eval's measure names: the single source of truth."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rankframe._measures._measure import Measure

REGISTRY: dict[str, type[Measure]] = {}

#: trec_eval measure names -> parser returning the measures for a parameter string.
TREC_NAMES: dict[str, Callable[[str | None], list[Measure]]] = {}


def register(cls: type[Measure]) -> type[Measure]:
    """Class decorator adding a measure family to the registry."""
    old = REGISTRY.get(cls.NAME)
    if old is not None and old.__qualname__ + old.__module__ != cls.__qualname__ + cls.__module__:
        msg = f"measure {cls.NAME!r} registered twice ({old.__module__} and {cls.__module__})"
        raise RuntimeError(msg)
    REGISTRY[cls.NAME] = cls
    return cls


def register_trec(name: str, parse: Callable[[str | None], list[Measure]]) -> None:
    """Register a trec_eval measure name and how its parameter string maps to measures."""
    TREC_NAMES[name] = parse


def families() -> Iterator[type[Measure]]:
    """Iterate over registered measure families in name order."""
    for name in sorted(REGISTRY, key=str.lower):
        yield REGISTRY[name]

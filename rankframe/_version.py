"""The version of rankframe: one source, the installed package's metadata (``pyproject.toml``)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("rankframe")
except PackageNotFoundError:  # pragma: no cover - a source tree on sys.path, not installed
    __version__ = "0+unknown"

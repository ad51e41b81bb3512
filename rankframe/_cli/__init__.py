"""The ``rankframe`` command line: a thin shell over the library.

Subcommands evaluate, compare, trec_eval, learn and measures. The top layer: nothing in the
library imports it.
"""

from rankframe._cli.main import main

__all__ = ["main"]

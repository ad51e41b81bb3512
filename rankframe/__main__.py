"""``python -m rankframe``: the ``rankframe`` command."""

from rankframe._cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())

"""What a flipped bit in a Parquet run does to an evaluation: refused, harmless, or different numbers.

Writes the sample run (``data/run.dl19.bm25.txt``) as Parquet (zstd or uncompressed, with and
without pyarrow's page checksums, ``write_page_checksum``), flips one bit at evenly spaced
offsets of each file and evaluates the damaged file in this process against the sample qrels
(after pyarrow's checksum verification in the last case), classifying each flip:

- ``refused``: a ``RankframeError`` (the reader or the input checks named the problem),
- ``same``: the means are the undamaged file's (the bit was in padding, statistics or a value
  no measure reads),
- ``different``: exit 0 with other means: the damage went unnoticed,
- ``other``: any other exception (a traceback: a defect to report).

Usage: ``python benchmarks/experiments/parquet_bitflips.py [--flips 105] [--seed 0]``. The
figures quoted in docs/guides/reliability.md come from it.
"""

from __future__ import annotations

import argparse
import random
import tempfile
from collections import Counter
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq

import rankframe as rf

ROOT = Path(__file__).resolve().parents[2]
QRELS = ROOT / "data" / "qrels.dl19-passage.txt"
RUN = ROOT / "data" / "run.dl19.bm25.txt"
MEASURES = ["nDCG@10", "AP", "RR", "P@10", "R@100"]
#: (page checksums written, compression, verified with pyarrow before evaluating)
CASES = [(False, "zstd", False), (False, "none", False), (True, "zstd", False), (True, "zstd", True)]


def classify(path: Path, want: pl.DataFrame, *, verify: bool = False) -> str:
    if verify:  # pyarrow checks the pages' CRC-32 (Polars does not read them)
        try:
            pq.read_table(path, page_checksum_verification=True)
        except Exception:  # noqa: BLE001
            return "refused by pyarrow's checksum verification"
    try:
        got = rf.evaluate(str(QRELS), str(path), MEASURES)
    except rf.RankframeError:
        return "refused"
    except BaseException as e:  # noqa: BLE001 - a Polars panic is a BaseException
        if isinstance(e, KeyboardInterrupt):
            raise
        return f"other: {type(e).__name__}: {str(e)[:80]}"
    return "same" if got.equals(want) else "different"


def flips(data: bytes, n: int, rng: random.Random) -> list[tuple[int, int]]:
    step = max(1, len(data) // n)
    return [(offset, rng.randrange(8)) for offset in range(0, len(data), step)][:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flips", type=int, default=105)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    run = rf.read_run(str(RUN)).drop("line_no", "run_tag").collect()
    want = rf.evaluate(str(QRELS), str(RUN), MEASURES)
    with tempfile.TemporaryDirectory() as tmp:
        for checksum, compression, verify in CASES:
            clean = Path(tmp) / "run.parquet"
            pq.write_table(run.to_arrow(), clean, write_page_checksum=checksum, compression=compression)
            data = clean.read_bytes()
            rng = random.Random(args.seed)
            outcomes: Counter[str] = Counter()
            for offset, bit in flips(data, args.flips, rng):
                damaged = bytearray(data)
                damaged[offset] ^= 1 << bit
                path = Path(tmp) / "damaged.parquet"
                path.write_bytes(bytes(damaged))
                outcomes[classify(path, want, verify=verify)] += 1
            print(
                f"{compression}, page checksums {'on' if checksum else 'off'}"
                f"{', verified by pyarrow first' if verify else ''} ({len(data):,} bytes): {dict(outcomes)}"
            )


if __name__ == "__main__":
    main()

"""Sweep the shipped OEIS sample again and write its rows as the package's precomputed file.

    python dataset_scripts/oeis_precomputed.py [--workers N]

``rote-hf build oeis-mdl`` uses ``rote_hf/datasets/data/oeis_sample_sweep.json.gz`` instead of
sweeping the 3,259 sequences while its key (a hash of the sample, the learner settings and the
learner's source) matches; after a change to ``rote_hf/mdl`` the test
``tests/datasets/test_oeis_precomputed.py`` fails until this script has written the file again.
"""

import argparse
import sys

from rote_hf.datasets.oeis_mdl import write_precomputed

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="sweep processes (default: 2)")
    print(write_precomputed(workers=parser.parse_args().workers))
    sys.exit(0)

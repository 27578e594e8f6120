"""Build the hub repo ``rote/oeis-mdl`` into a local mirror.

    python dataset_scripts/oeis_mdl.py --root DIR      # writes DIR/rote/oeis-mdl/

Set ``ROTE_HF_OEIS_STRIPPED=/path/to/stripped.gz`` to sweep a real OEIS dump instead of the
shipped generated sample. The rows come from :mod:`rote_hf.datasets.oeis_mdl`.
"""

import sys

from rote_hf.cli import main

if __name__ == "__main__":
    sys.exit(main(["build", "oeis-mdl", *sys.argv[1:]]))

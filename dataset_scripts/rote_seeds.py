"""Build the hub repo ``rote/rote-seeds`` into a local mirror.

    python dataset_scripts/rote_seeds.py --root DIR     # writes DIR/rote/rote-seeds/

The rows come from :mod:`rote_hf.datasets.rote_seeds`; this script is the published entry point.
"""

import sys

from rote_hf.cli import main

if __name__ == "__main__":
    sys.exit(main(["build", "rote-seeds", *sys.argv[1:]]))

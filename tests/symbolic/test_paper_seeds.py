import csv
from pathlib import Path

import pytest

from rote_hf.symbolic import complexity, paper_seed, paper_seeds
from rote_hf.symbolic.table1 import table1

ARCHIVE = Path(__file__).resolve().parents[1] / "data" / "rote_paper_seeds_archive.csv"


def test_all_44_published_seeds_are_regenerated_exactly():
    with ARCHIVE.open() as f:
        archived = {
            f"{r['track']}-n{r['symbols']}-c{r['complexity']}-s{r['seed_index']}": r["seed_string"] for r in csv.DictReader(f)
        }
    ours = {s.name: s.seed for s in paper_seeds()}
    assert len(archived) == 44 and len(ours) == 44
    assert ours == archived


def test_tracks_and_cells():
    main, matched = paper_seeds("main"), paper_seeds("matched_size")
    assert len(main) == 40 and len(matched) == 4
    assert {(s.n_symbols, s.complexity) for s in matched} == {(4, 90), (8, 90)}
    assert all(complexity(s.seed) == s.complexity and len(set(s.seed)) == s.n_symbols for s in main + matched)
    assert paper_seed("main-n2-c10-s1") == "BABBBBABBBAABBBBB"
    assert paper_seed("matched_size-n8-c90-s0").startswith("BEDFCGHA")


def test_table1_matches_the_paper():
    expected = {  # c: (length median, min, max, r* median, min, max), paper Table 1
        10: (11.0, 10, 18, 3.0, 2, 9),
        30: (42.0, 33, 82, 5.0, 4, 12),
        50: (83.5, 65, 171, 6.0, 4, 14),
        70: (127.5, 97, 263, 6.5, 4, 16),
        90: (174.0, 127, 365, 7.0, 4, 18),
    }
    rows = table1()
    assert [r.c for r in rows] == [10, 30, 50, 70, 90]
    for r in rows:
        got = (r.length_median, r.length_min, r.length_max, r.r_star_median, r.r_star_min, r.r_star_max)
        assert got == expected[r.c]
        assert r.n_seeds == 8 and r.max_alpha == 0


@pytest.mark.parametrize("bad", ["main-n3-c10-s0", "", "paper"])
def test_unknown_names(bad):
    with pytest.raises(ValueError, match="name must be a paper seed name"):
        paper_seed(bad)


def test_unknown_track():
    with pytest.raises(ValueError, match="track must be one of"):
        paper_seeds("extra")

import random

import numpy as np
import pytest
from rote_benchmark import generation as ref

from rote_hf.symbolic import complexity, generate_seed, seed_table


def test_reference_golden_values():
    assert generate_seed(2, 10, random_state=3407) == ("ABABABABBBABBBBAA", 10)
    assert generate_seed(4, 30, random_state=3407) == ("CBADADBCBDCCBDDCCBACBCAABCAACAABBDCBBDDADDCCABD", 30)


def test_seed_table_reference_golden_rows():
    rows = seed_table(symbols=[2, 4], complexities=[10, 30], iterations=2, random_state=3407)
    assert len(rows) == 8
    assert rows[0].seed == "BAABBAABBBBABBBB"
    assert rows[3].seed == "CBADACACBCDACDBBADBDBBABADCCDAAABCADCCDAAAAAAAAC"
    for row in rows:
        assert len(set(row.seed)) == row.n_symbols
        assert complexity(row.seed) == row.complexity


def test_identical_to_reference_generator_on_random_arguments():
    rng = random.Random(2026)
    for _ in range(400):
        n = rng.randint(1, 12)
        c = 1 if n == 1 else rng.randint(n, 160)
        state = rng.randint(0, 2**31)
        assert generate_seed(n, c, state) == ref.lzw_string_generator(n, c, random_state=state), (n, c, state)


def test_seed_table_equals_reference_table():
    ours = seed_table(symbols=[2, 3, 5, 8], complexities=[4, 10, 25], iterations=3, random_state=11)
    theirs = ref.lzw_string_seeds(symbols=[2, 3, 5, 8], complexity=[4, 10, 25], iterations=3, random_state=11)
    assert [r.seed for r in ours] == list(theirs["string"])
    assert [r.complexity for r in ours] == list(theirs["LZW_complexity"])


def test_global_random_states_untouched():
    np_state = np.random.get_state()
    py_state = random.getstate()
    generate_seed(6, 70, 5)
    seed_table([2], [10], 2, 1)
    assert random.getstate() == py_state
    after = np.random.get_state()
    assert after[0] == np_state[0] and np.array_equal(after[1], np_state[1]) and after[2:] == np_state[2:]


def test_large_complexity_is_exact_and_reproducible():
    seed, measured = generate_seed(3, 2000, 9)
    assert measured >= 2000 and complexity(seed) == measured
    assert generate_seed(3, 2000, 9) == (seed, measured)


@pytest.mark.parametrize(
    ("n", "c", "message"),
    [(0, 10, "n_symbols must be in 1..52"), (53, 90, "n_symbols must be in 1..52"),
     (4, 3, "complexity must be at least n_symbols"), (1, 10, "complexity must be 1 when n_symbols is 1")],
)  # fmt: skip
def test_bad_arguments_raise_value_error(n, c, message):
    with pytest.raises(ValueError, match=message):
        generate_seed(n, c)


@pytest.mark.parametrize(("n", "c"), [(2.0, 10), (True, 10), (4, "30"), (4, None)])
def test_non_integers_raise_type_error(n, c):
    with pytest.raises(TypeError, match="must be an integer"):
        generate_seed(n, c)


def test_one_symbol_and_bad_states():
    assert generate_seed(1, 1) == ("A", 1)
    with pytest.raises(ValueError, match="random_state must be in 0"):
        generate_seed(2, 10, -1)
    with pytest.raises(ValueError, match="iterations must be in 1"):
        seed_table(iterations=0)

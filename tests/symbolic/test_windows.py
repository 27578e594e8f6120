import pytest
import torch
from rote_benchmark.benchmark import prepare_data

from rote_hf.symbolic import make_windows, paper_seed, periodic_extension, split_bounds


def test_paper_split_sizes():
    w = make_windows(paper_seed("main-n4-c50-s0"))
    assert [len(w.split_range(s)) for s in ("train", "validation", "test")] == [2640, 330, 330]
    assert w.num_windows == 3300 and len(w.context) == 100 and len(w.target) == 100
    X, y = w.arrays("test")
    assert X.shape == (330, 100) and y.shape == (330,)


@pytest.mark.parametrize("name", ["main-n2-c10-s0", "main-n8-c90-s1", "matched_size-n4-c90-s1"])
def test_identical_to_reference_prepare_data(name):
    seed = paper_seed(name)
    ours = make_windows(seed, 600, 40, 30)
    ref = prepare_data(seed, 600, 40, 30, "cpu")
    assert list(ours.alphabet) == ref["symbols"]
    assert ours.context == ref["initial_context"] and ours.target == ref["target"]
    for split, key in (("train", "train"), ("validation", "valid"), ("test", "test")):
        X, y = ours.arrays(split)
        assert torch.equal(torch.from_numpy(X), ref[f"X_{key}"].argmax(-1))
        assert torch.equal(torch.from_numpy(y), ref[f"y_{key}"])


def test_stream_and_rollout_pair_from_the_tiled_seed():
    w = make_windows("ABC", 120, 10, 7)
    stream = periodic_extension("ABC", 120)
    assert w.target == stream[-7:] and w.context == stream[-17:-7]
    assert periodic_extension("ABC", 7) == "ABCABCA"


def test_minimum_sequence_length_keeps_every_split_non_empty():
    w = make_windows("AB", 16, 5, 5)  # exactly 6 windows
    assert [len(w.split_range(s)) for s in ("train", "validation", "test")] == [4, 1, 1]
    with pytest.raises(ValueError, match="sequence_length must be at least"):
        make_windows("AB", 15, 5, 5)
    assert split_bounds(3300) == (2640, 2970)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [({"seed": ""}, ValueError, "seed must be a non-empty"), ({"seed": "AB1"}, ValueError, "52 letters"),
     ({"window": 0}, ValueError, "window must be in"), ({"horizon": 2.5}, TypeError, "horizon must be an integer")],
)  # fmt: skip
def test_bad_input(kwargs, exc, match):
    args = {"seed": "AB", "sequence_length": 300, "window": 10, "horizon": 10, **kwargs}
    with pytest.raises(exc, match=match):
        make_windows(**args)


def test_unknown_split():
    with pytest.raises(ValueError, match="split must be one of"):
        make_windows("AB", 300, 10, 10).split_range("dev")

"""The ROTE paper models compute exactly what the reference's models compute: the reference
(rote-bench 0.1.0) weights are copied into ours and the last-step logits compared."""

from __future__ import annotations

import pytest
import torch

from rote_hf.zoo import ROTE_REFERENCE_NAMES, build_model

ATTENTION = {"Transformer", "LinearAttention", "Performer", "RWKV"}


@pytest.mark.parametrize("name", sorted(ROTE_REFERENCE_NAMES))
def test_last_step_equals_the_reference(name):
    from rote_benchmark.models import get_model

    ref_name = ROTE_REFERENCE_NAMES[name]
    n, window, d, units = 4, 12, 32, 16
    torch.manual_seed(0)
    ref = get_model(ref_name, n, 4 * d if ref_name in ATTENTION else units, n, num_layers=2, d_model=d,
                    window_size=window).double().eval()
    width = {"d_model": d} if ref_name in ATTENTION else {"hidden_size": units}
    ours = build_model(name, input_size=n, output_size=n, preset="rote-paper", **width).double().eval()
    ref_state, our_state = ref.state_dict(), ours.state_dict()
    assert [v.shape for v in ref_state.values()] == [v.shape for v in our_state.values()]
    ours.load_state_dict(dict(zip(our_state, ref_state.values())))
    x = torch.nn.functional.one_hot(torch.randint(0, n, (5, window), generator=torch.Generator().manual_seed(1)),
                                    n).double()
    with torch.no_grad():
        torch.testing.assert_close(ours(x)[:, -1], ref(x), rtol=1e-10, atol=1e-10)

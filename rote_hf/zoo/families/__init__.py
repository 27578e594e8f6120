"""One module per architecture family; importing this package registers them all."""

from . import esn, linear_attention, mamba, min_rnn, performer, rnn, rwkv, transformer, xlstm  # noqa: F401

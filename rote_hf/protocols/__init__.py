"""rote_hf.protocols: how one model is fitted and measured, below the suite units that use them.

- :mod:`~rote_hf.protocols.rote`: the ROTE protocol (windows, AdamW, early stopping, greedy rollout);
- :mod:`~rote_hf.protocols.cogscale`: the CogScale protocol (Adam, validation-chosen stopping,
  the ESN's readout search);
- :mod:`~rote_hf.protocols.fleet`: K fits of one architecture trained as one computation;
- :mod:`~rote_hf.protocols.device` and :mod:`~rote_hf.protocols.measure`: the device, its
  warm-up, and the time and memory of a fit.

Importing this package is cheap: torch is imported inside the functions.
"""

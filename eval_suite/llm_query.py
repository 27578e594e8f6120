"""Ask an LLM to continue MDL-stratified integer sequences; print metrics per stratum; store rows.

    python eval_suite/llm_query.py --base-url http://127.0.0.1:8000/v1 --model NAME --per-stratum 5
    python eval_suite/llm_query.py --base-url https://router.huggingface.co/v1 --model meta-llama/Llama-3.3-70B-Instruct
    python eval_suite/llm_query.py --local path/to/model --per-stratum 2

The same command is ``rote-hf llm-query``. The sample is the frozen ``llm-eval`` config of
``rote/oeis-mdl`` (a local mirror folder ``rote/oeis-mdl`` in the working directory resolves
before the Hub), or ``--dataset FILE.json``. The API token is read from ROTE_LLM_API_KEY (else
HF_TOKEN), never from the command line. Every raw reply is cached (``<results>/llm_cache``), so
re-running the same command resumes without asking again; per-sample logs go to
``<results>/llm_logs``, result rows to ``<results>/runs``. See docs/llm.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from rote_hf.llm.commands import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(prog="llm_query.py"))

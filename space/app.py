"""The rote-hf leaderboard: ROTE, CogScale and OEIS-LLM results beside the papers' published rows.

    python space/app.py [--results DIR] [--host 127.0.0.1] [--port N]

Reads the results store (``./results`` by default; ``$ROTE_RESULTS_REPO`` adds a results dataset
repo, a hub id or a folder) and never trains. The logic lives in ``rote_hf.leaderboard`` (pure
functions); this file only wires it to Gradio. API names (for ``gradio_client``):
``/rote_board``, ``/cogscale_board``, ``/reproduction``, ``/llm_board``, ``/submit``, ``/llm_query``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # llm_tab.py beside this file
if (HERE.parent / "rote_hf").is_dir():
    sys.path.insert(0, str(HERE.parent))  # a source checkout: use its rote_hf without installing

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr  # noqa: E402

from llm_tab import PER_STRATUM_MAX, PER_STRATUM_MIN, run_llm_query  # noqa: E402
from rote_hf.leaderboard import (  # noqa: E402
    ALL, MAX_BYTES, RESULTS_REPO_ENV, SubmissionError, cogscale_board, filter_choices, llm_board, load_rows,
    parse_submission, rote_board, store_submission,
)
from rote_hf.leaderboard import plots  # noqa: E402
from rote_hf.leaderboard.reproduction import (  # noqa: E402
    REPRODUCTION_MODELS, REPRODUCTION_VIEWS, reproduction_configs, reproduction_view,
)
from rote_hf.leaderboard.tables import filter_rote, rote_frame  # noqa: E402

LLM_PLOT_METRICS = ("accuracy", "abstention", "confabulation", "mean confidence", "acc | recognised",
                    "acc | unrecognised")
SCHEMA_HELP = """Upload a `.json` (a list of row objects), `.jsonl` or `.parquet` file of result rows
(the columns of `rote_hf.results.COLUMNS`; at least `run_id`, `suite`, `task`, `model`).
At most {mb:.0f} MiB; no pickle. Rows are validated against the schema and stored **unverified**:
the tables mark them `unverified (submitted)`."""


def _choices(values: list[str]) -> list[str]:
    return [ALL, *values]


def build_demo(results: str | os.PathLike = "results", *, shipped: bool = True) -> gr.Blocks:
    """The Blocks app over the results store at ``results`` (read on every request);
    ``shipped=False`` leaves out the reproduction rows shipped with the package."""
    results = str(results)

    def rows():
        return load_rows(results, shipped=shipped)

    def rote_view(n, c, track, source, device):
        df = rows()
        board = rote_board(df, n=n, c=c, track=track, source=source, device=device)
        frame = filter_rote(rote_frame(df), n=n, c=c, track=track, source=source, device=device)
        curves = plots.complexity_curves(frame)
        return (board, curves, curves, plots.rollout_error_curves(frame), plots.pareto(board),
                plots.dl_vs_params(board))

    def cogscale_view(lr_selection, task, difficulty, budget, source, radar_source):
        df = rows()
        board = cogscale_board(df, lr_selection=lr_selection, task=task, difficulty=difficulty, budget=budget,
                               source=source)
        radars = [plots.radar_svg(plots.radar_data(df, difficulty=d, source=radar_source),
                                  title=f"{d} ({'best overall, ours' if radar_source == 'ours' else 'best published mean'})")
                  for d in ("small", "medium")]
        return board, *radars

    def repro_view(view, model, difficulty, config):
        return reproduction_view(rows(), view=view, model=model, difficulty=difficulty, config=config)

    def llm_view(stratum, model, source, metric):
        board = llm_board(rows(), stratum=stratum, model=model, source=source)
        return board, plots.llm_bars(board, metric)

    def submit(path):
        if not path:
            return "Rejected: choose a results file first."
        try:
            size = os.path.getsize(path)
            if size > MAX_BYTES:
                raise SubmissionError(f"file is {size} bytes; the limit is {MAX_BYTES} bytes")
            with open(path, "rb") as fh:
                new = parse_submission(fh.read(), os.path.basename(path))
            store_submission(new, results)
        except (SubmissionError, OSError) as exc:
            return f"Rejected: {exc}"
        return f"Stored {len(new)} row(s) as unverified (submitted): {', '.join(r.run_id for r in new[:5])}"

    def llm_query(base_url, model, token, per_stratum):
        return run_llm_query(base_url, model, token, per_stratum, results)

    df0 = rows()
    ch = filter_choices(df0)
    init_rote = rote_view(ALL, ALL, ALL, ALL, ALL)
    init_cog = cogscale_view("validation", ALL, ALL, ALL, ALL, "ours")
    init_llm = llm_view(ALL, ALL, ALL, "accuracy")
    repo = os.environ.get(RESULTS_REPO_ENV)

    with gr.Blocks(title="rote-hf leaderboard") as demo:
        gr.Markdown(
            "# rote-hf leaderboard\nOur runs beside the papers' published rows (`source = paper`). "
            f"Results: `{results}`" + (f" + `{repo}`" if repo else "") + ". Every row shows its provenance "
            "(source, version, commit, dataset fingerprint, verified).")
        with gr.Tabs():
            with gr.Tab("ROTE", id="rote"):
                with gr.Row():
                    n = gr.Dropdown(_choices(ch["n"]), value=ALL, label="n (symbols)")
                    c = gr.Dropdown(_choices(ch["c"]), value=ALL, label="c (LZW complexity)")
                    track = gr.Dropdown(_choices(ch["track"]), value=ALL, label="track")
                    source = gr.Dropdown(_choices(ch["source"]), value=ALL, label="source")
                    device = gr.Dropdown(_choices(ch["device"]), value=ALL, label="device")
                rote_btn = gr.Button("Apply filters", variant="primary")
                rote_table = gr.Dataframe(value=init_rote[0], interactive=False, label="ROTE per model and track",
                                          elem_id="rote-table")
                with gr.Row():
                    dl_c = gr.ScatterPlot(init_rote[1], x="c", y="DL", color="model", title="DL vs LZW complexity",
                                       x_title="c (LZW complexity)", y_title="DL (mean)", elem_id="rote-dl-c")
                    acc_c = gr.ScatterPlot(init_rote[2], x="c", y="accuracy", color="model",
                                        title="Accuracy vs LZW complexity", x_title="c (LZW complexity)",
                                        y_title="next-symbol accuracy", elem_id="rote-acc-c")
                with gr.Row():
                    roll = gr.LinePlot(init_rote[3], x="horizon", y="error", color="model",
                                       title="Rollout error vs horizon", x_title="horizon h (steps)",
                                       y_title="cumulative error (mismatches / h)", elem_id="rote-rollout")
                    par = gr.ScatterPlot(init_rote[4], x="train_time_s", y="DL_mean", color="pareto_front",
                                         title="Quality vs compute (Pareto front)", x_title="train time (s, median)",
                                         y_title="DL (mean)", tooltip=["model", "train_time_s", "DL_mean"],
                                         elem_id="rote-pareto")
                    dlp = gr.ScatterPlot(init_rote[5], x="params", y="DL_mean", color="model", title="DL vs parameters",
                                         x_title="trainable parameters", y_title="DL (mean)", elem_id="rote-params")
                rote_btn.click(rote_view, [n, c, track, source, device], [rote_table, dl_c, acc_c, roll, par, dlp],
                               api_name="rote_board")

            with gr.Tab("CogScale", id="cogscale"):
                with gr.Row():
                    lr = gr.Radio([("LR chosen on validation (paper's protocol)", "validation"),
                                   ("LR chosen on test (published-table variant)", "test")],
                                  value="validation", label="learning-rate selection for our runs")
                    radar_src = gr.Radio([("our runs: best overall", "ours"), ("paper: best published mean", "paper")],
                                         value="ours", label="radar")
                with gr.Row():
                    task = gr.Dropdown(_choices(ch["task"]), value=ALL, label="task")
                    diff = gr.Dropdown(_choices(ch["difficulty"]), value=ALL, label="difficulty")
                    budget = gr.Dropdown(_choices(ch["budget"]), value=ALL, label="budget")
                    cog_source = gr.Dropdown(_choices(ch["source"]), value=ALL, label="source")
                cog_btn = gr.Button("Apply filters", variant="primary")
                cog_table = gr.Dataframe(value=init_cog[0], interactive=False,
                                         label="CogScale task x difficulty x budget (mean ± std over seeds; lower is better)",
                                         elem_id="cogscale-table")
                gr.Markdown("Cognitive radar: accuracy = 1 - score at each model's best (outer rim = perfect).")
                with gr.Row():
                    radar_small = gr.HTML(init_cog[1], elem_id="radar-small")
                    radar_medium = gr.HTML(init_cog[2], elem_id="radar-medium")
                cog_btn.click(cogscale_view, [lr, task, diff, budget, cog_source, radar_src],
                              [cog_table, radar_small, radar_medium], api_name="cogscale_board")
                with gr.Accordion("Reproduction: our cogscale_paper runs vs the published runs", open=False):
                    with gr.Row():
                        repro_kind = gr.Dropdown(list(REPRODUCTION_VIEWS), value=REPRODUCTION_VIEWS[0], label="view")
                        repro_model = gr.Dropdown(_choices(list(REPRODUCTION_MODELS)), value=ALL, label="model")
                        repro_diff = gr.Dropdown(_choices(["small", "medium"]), value=ALL, label="difficulty")
                        repro_config = gr.Dropdown(reproduction_configs(df0), value="cogscale_paper",
                                                   allow_custom_value=True, label="our sweep config")
                    repro_btn = gr.Button("Show reproduction")
                    repro_text = gr.Markdown(elem_id="reproduction-headline")
                    repro_table = gr.Dataframe(interactive=False, elem_id="reproduction-table",
                                               label="agreement within 2 standard errors, group by group")
                    repro_btn.click(repro_view, [repro_kind, repro_model, repro_diff, repro_config], [repro_table, repro_text],
                                    api_name="reproduction")

            with gr.Tab("OEIS-LLM", id="llm"):
                with gr.Row():
                    stratum = gr.Dropdown(_choices(ch["stratum"]), value=ALL, label="MDL stratum")
                    llm_model = gr.Dropdown(_choices(ch["llm_model"]), value=ALL, label="model")
                    llm_source = gr.Dropdown(_choices(ch["source"]), value=ALL, label="source")
                    metric = gr.Dropdown(list(LLM_PLOT_METRICS), value="accuracy", label="plotted metric")
                llm_btn = gr.Button("Apply filters", variant="primary")
                llm_table = gr.Dataframe(value=init_llm[0], interactive=False,
                                         label="Per model and stratum (Wilson 95 % intervals; failed calls not scored)",
                                         elem_id="llm-table")
                llm_plot = gr.BarPlot(init_llm[1], x="bar", y="value", color="model", title="Per stratum and model",
                                      x_title="stratum | model", y_title="value", elem_id="llm-bars",
                                      x_label_angle=-30, sort=None)
                llm_btn.click(llm_view, [stratum, llm_model, llm_source, metric], [llm_table, llm_plot],
                              api_name="llm_board")

            with gr.Tab("Submit results", id="submit"):
                gr.Markdown(SCHEMA_HELP.format(mb=MAX_BYTES / 2**20))
                upload = gr.File(label="results file", file_types=[".json", ".jsonl", ".parquet"], type="filepath")
                submit_btn = gr.Button("Validate and store", variant="primary")
                submit_status = gr.Textbox(label="status", interactive=False, elem_id="submit-status")
                submit_btn.click(submit, [upload], [submit_status], api_name="submit")

            with gr.Tab("LLM query", id="llm-query"):
                gr.Markdown("Run the MDL-stratified LLM audit against your own OpenAI-compatible endpoint. "
                            "The token is sent to that endpoint only; it is never stored or logged.")
                with gr.Row():
                    base_url = gr.Textbox(label="base URL", placeholder="http://127.0.0.1:8000/v1")
                    model_name = gr.Textbox(label="model name")
                    token = gr.Textbox(label="token", type="password")
                    per_stratum = gr.Slider(PER_STRATUM_MIN, PER_STRATUM_MAX, value=5, step=1,
                                            label="sequences per stratum")
                query_btn = gr.Button("Run", variant="primary")
                query_status = gr.Textbox(label="status", interactive=False, elem_id="query-status")
                query_records = gr.Dataframe(interactive=False, label="parsed replies")
                query_metrics = gr.Dataframe(interactive=False, label="metrics per stratum")
                query_btn.click(llm_query, [base_url, model_name, token, per_stratum],
                                [query_status, query_records, query_metrics], api_name="llm_query")
        # a page (re)load shows runs stored since the app started: fresh filter choices and tables
        dropdowns = {"n": n, "c": c, "track": track, "source": source, "device": device, "task": task,
                     "difficulty": diff, "budget": budget, "stratum": stratum, "llm_model": llm_model}

        def refresh():
            df = rows()
            fresh = filter_choices(df)
            updates = [gr.update(choices=_choices(fresh[k])) for k in dropdowns]
            updates += [gr.update(choices=_choices(fresh["source"]))] * 2
            return (*updates, *rote_view(ALL, ALL, ALL, ALL, ALL), cogscale_board(df), llm_board(df))

        demo.load(refresh, None, [*dropdowns.values(), cog_source, llm_source, rote_table, dl_c, acc_c, roll, par, dlp,
                                  cog_table, llm_table], api_visibility="private")
    return demo


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="space/app.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="results", help="results store folder (default: ./results)")
    parser.add_argument("--host", default="127.0.0.1", help="address to serve on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help="port (default: 7860 or the next free one)")
    parser.add_argument("--no-shipped", dest="shipped", action="store_false",
                        help="leave out our reproduction rows shipped with the package (only the store's rows)")
    args = parser.parse_args(argv)
    demo = build_demo(args.results, shipped=args.shipped)
    demo.queue(default_concurrency_limit=2).launch(server_name=args.host, server_port=args.port,
                                                   max_file_size=MAX_BYTES, ssr_mode=False, show_error=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

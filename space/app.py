"""The rote-hf leaderboard: ROTE, CogScale and OEIS-LLM results beside the papers' published rows.

    python space/app.py [--results DIR] [--host 127.0.0.1] [--port N]

Reads the results store (``./results`` by default; ``$ROTE_RESULTS_REPO`` adds a results dataset
repo, a hub id or a folder) and never trains. The logic lives in ``rote_hf.leaderboard`` (pure
functions); this file only wires it to Gradio. API names (for ``gradio_client``):
``/rote_board``, ``/cogscale_board``, ``/reproduction``, ``/llm_board``, ``/submit``, ``/llm_query``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # llm_tab.py beside this file
if (HERE.parent / "rote_hf").is_dir():
    sys.path.insert(0, str(HERE.parent))  # a source checkout: use its rote_hf without installing

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr  # noqa: E402

import pandas as pd  # noqa: E402
from llm_tab import METRIC_COLUMNS, PER_STRATUM_MAX, PER_STRATUM_MIN, RECORD_COLUMNS, run_llm_query  # noqa: E402
from rote_hf.leaderboard import (  # noqa: E402
    ALL, MAX_BYTES, RESULTS_REPO_ENV, SubmissionError, llm_board, parse_submission, rote_board, store_submission,
)
from rote_hf.leaderboard import plots  # noqa: E402
from rote_hf.leaderboard.serving import BoardService  # noqa: E402
from rote_hf.boards.tables import RUNS, cogscale_lines, filter_rote, rote_frame, select_cogscale  # noqa: E402
from rote_hf.results.aggregate import reproduction_report  # noqa: E402
from rote_hf.results.reproduction import cells as reproduction_cells  # noqa: E402
from rote_hf.results.schema import SOURCES  # noqa: E402
from rote_hf.leaderboard.reproduction import (  # noqa: E402
    REPRODUCTION_MODELS, REPRODUCTION_VIEWS, mean_vs_mean_svg, our_rows, reproduction_configs, reproduction_view,
)

LLM_PLOT_METRICS = ("accuracy", "abstention", "confabulation", "mean confidence", "acc | recognised",
                    "acc | unrecognised")
SCHEMA_HELP = """Upload a `.json` (a list of row objects), `.jsonl` or `.parquet` file of result rows
(the columns of `rote_hf.results.COLUMNS`; at least `run_id`, `suite`, `task`, `model`).
At most {mb:.0f} MiB; no pickle. Every row is checked against its suite's schema before any is
stored, and the file is stored whole or not at all. Rows are stored **unverified**, as
`source = submitted`: the tables mark them `unverified (submitted)`."""
PLOT_NOTE = ("One colour per architecture. Ours: filled circles, solid lines; the paper's (archived fits): hollow "
             "squares, dashed lines; the legend names each. Hover a point for its values. Main track unless the "
             "track filter picks another.")


def _choices(values) -> list[str]:
    """Dropdown choices, ``all`` first. A page load refreshes them; the LLM model filter also
    accepts models queried after the app started (the board checks the value against the rows)."""
    return [ALL, *values]


def _notice(notices: list[str]) -> str:
    """The visible note about stored rows that no board shows (empty when there are none)."""
    if not notices:
        return ""
    shown = "\n".join(f"- `{n if len(n) <= 160 else n[:157] + '...'}`" for n in notices[:5])
    more = f"\n- ... and {len(notices) - 5} more" if len(notices) > 5 else ""
    return (f"**{len(notices)} stored row(s) skipped**: they do not match their suite's schema, so no board "
            f"shows them (the files are kept).\n{shown}{more}")


#: Requests served at once (each only filters what the first visitor's request computed).
CONCURRENCY = 8
#: LLM queries Gradio hands on at once: rote_hf.llm's fair queue runs 8 of them (one per user) and
#: refuses at once a user's query beyond one running and two waiting, so no user holds these for others.
LLM_QUERY_EVENTS = 16
#: Filters of each board -> the filter_choices() key that lists their values.
FILTER_KEYS = {"n": "n", "c": "c", "track": "track", "device": "device", "task": "task", "difficulty": "difficulty",
               "budget": "budget", "stratum": "stratum", "model": "llm_model"}


def build_demo(results: str | os.PathLike = "results", *, shipped: bool = True,
               service: BoardService | None = None) -> gr.Blocks:
    """The Blocks app over the results store at ``results``; ``shipped=False`` leaves out the
    reproduction rows shipped with the package. Rows are read once and every board is computed
    once per version of the rows (:class:`rote_hf.leaderboard.serving.BoardService`); a request
    filters what was computed."""
    results = str(results)
    service = service or BoardService(results, shipped=shipped)

    def known(snap, **filters: str) -> dict[str, str]:
        """Filter values that no longer exist (rows removed since the page loaded) fall back to
        ``all``, and the visitor is told so."""
        out = {}
        for name, value in filters.items():
            allowed = snap.choices.get(FILTER_KEYS.get(name, name), [])
            if value not in (None, "", ALL) and name in FILTER_KEYS and value not in allowed:
                gr.Warning(f"{name} = {value!r} no longer has rows; showing all")
                value = ALL
            out[name] = value
        return out

    def rote_view(n, c, track, source, device, table=RUNS):
        snap = service.snapshot()
        f = known(snap, n=n, c=c, track=track, device=device)
        key = ("rote", f["n"], f["c"], f["track"], source, f["device"], table)

        def compute():
            df = snap.rows
            board = rote_board(df, n=f["n"], c=f["c"], track=f["track"], source=source, device=f["device"], table=table)
            frame = filter_rote(snap.memo("rote-frame", lambda: rote_frame(df)), n=f["n"], c=f["c"],
                                track=f["track"], source=source, device=f["device"])
            frame = plots.one_track(frame, f["track"])
            curves = plots.complexity_curves(frame)
            lines = plots.one_track(board[board["table"] == RUNS], f["track"])
            return (board, plots.complexity_svg(curves, "DL"), plots.complexity_svg(curves, "accuracy"),
                    plots.rollout_svg(plots.rollout_error_curves(frame)), plots.pareto_svg(plots.pareto(lines)),
                    plots.params_svg(plots.dl_vs_params(lines)))
        return snap.memo(key, compute)

    def radars(snap, radar_source):
        return snap.memo(("radars", radar_source), lambda: [
            plots.radar_svg(plots.radar_data(snap.rows, difficulty=d, source=radar_source),
                            title=plots.radar_title(d, radar_source))
            for d in ("small", "medium")])

    def cogscale_view(lr_selection, task, difficulty, budget, source, radar_source, cells="ours"):
        snap = service.snapshot()
        f = known(snap, task=task, difficulty=difficulty, budget=budget)
        lines = snap.memo(("cogscale-lines", lr_selection), lambda: cogscale_lines(snap.rows, lr_selection=lr_selection))
        board = snap.memo(("cogscale", lr_selection, f["task"], f["difficulty"], f["budget"], source, cells),
                          lambda: select_cogscale(lines, snap.choices, source=source, cells=cells, **f))
        return board, *radars(snap, radar_source)

    def repro_data(snap, config):
        ours = our_rows(snap.rows, config)
        return snap.memo(("repro-report", config), lambda: reproduction_report(ours, config_name=config) if len(ours) else None)

    def repro_view(view, model, difficulty, config):
        snap = service.snapshot()

        def compute():
            report = repro_data(snap, config)
            cell_table = (snap.memo(("repro-cells", config), lambda: reproduction_cells(our_rows(snap.rows, config),
                                                                                        config_name=config))
                          if view.startswith("cells") and report is not None else None)
            return reproduction_view(snap.rows, view=view, model=model, difficulty=difficulty, config=config,
                                     report=report, cell_table=cell_table)
        return snap.memo(("repro", view, model, difficulty, config), compute)

    def repro_plot(config):
        """The mean-vs-mean plot as SVG (drawn once per version of the rows)."""
        snap = service.snapshot()

        def compute():
            report = repro_data(snap, config)
            return "" if report is None else mean_vs_mean_svg(report)
        return snap.memo(("repro-plot", config), compute)

    def llm_view(stratum, model, source, metric):
        snap = service.snapshot()
        f = known(snap, stratum=stratum, model=model)

        def compute():
            board = llm_board(snap.rows, stratum=f["stratum"], model=f["model"], source=source)
            return board, plots.llm_bars_svg(plots.llm_bars(board, metric), metric=metric)
        return snap.memo(("llm", f["stratum"], f["model"], source, metric), compute)

    def notice():
        return gr.update(value=_notice(service.snapshot().notices))

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
            return "Rejected: " + " ".join(str(exc).split())[:500]
        return f"Stored {len(new)} row(s) as unverified (submitted): {', '.join(r.run_id for r in new[:5])}"

    def llm_query(base_url, model, token, per_stratum, request: gr.Request):
        # the fair queue's user key: the session until visitors sign in (issue 26)
        return run_llm_query(base_url, model, token, per_stratum, results, user=f"session:{request.session_hash}")

    snap0 = service.snapshot()
    df0, notices0, ch = snap0.rows, snap0.notices, snap0.choices
    repo = os.environ.get(RESULTS_REPO_ENV)

    with gr.Blocks(title="rote-hf leaderboard") as demo:
        gr.Markdown(
            "# rote-hf leaderboard\nOur runs beside the papers' published rows (`source = paper`); visitors' "
            "rows are `source = submitted`, unverified. "
            f"Results: `{results}`" + (f" + `{repo}`" if repo else "") + ". Every row shows its provenance "
            "(source, version, commit, dataset fingerprint, verified).")
        board_notice = gr.Markdown(_notice(notices0), elem_id="board-notice")
        with gr.Tabs():
            with gr.Tab("ROTE", id="rote"):
                with gr.Row():
                    n = gr.Dropdown(_choices(ch["n"]), value=ALL, label="n (symbols)")
                    c = gr.Dropdown(_choices(ch["c"]), value=ALL, label="c (LZW complexity)")
                    track = gr.Dropdown(_choices(ch["track"]), value=ALL, label="track")
                    source = gr.Dropdown(_choices(SOURCES), value=ALL, label="source")
                    device = gr.Dropdown(_choices(ch["device"]), value=ALL, label="device")
                    table_kind = gr.Dropdown([("per model and track (from the runs)", RUNS),
                                              ("paper: summary_by_model", "summary_by_model"),
                                              ("paper: Table 2 (main, c = 90)", "table2_main_c90"),
                                              ("paper: Table 3 (matched size)", "table3_matched"),
                                              ("everything", ALL)], value=RUNS, label="table")
                rote_btn = gr.Button("Apply filters", variant="primary")
                rote_table = gr.Dataframe(interactive=False, elem_id="rote-table",
                                          label="ROTE: one line per model and track (DL: Damerau-Levenshtein distance "
                                                "of the rollout, lower is better; exact_rate: share of exact rollouts)")
                # SVG (rote_hf.leaderboard.plots): Gradio's native plots tell series apart by colour only
                gr.Markdown(PLOT_NOTE)
                with gr.Row():
                    dl_c = gr.HTML(None, show_label=False, label="DL vs LZW complexity", elem_id="rote-dl-c")
                    acc_c = gr.HTML(None, show_label=False, label="accuracy vs LZW complexity", elem_id="rote-acc-c")
                with gr.Row():
                    dlp = gr.HTML(None, show_label=False, label="DL vs parameters", elem_id="rote-params")
                    par = gr.HTML(None, show_label=False, label="quality vs compute", elem_id="rote-pareto")
                roll = gr.HTML(None, show_label=False, label="rollout error vs horizon", elem_id="rote-rollout")
                rote_btn.click(rote_view, [n, c, track, source, device, table_kind],
                               [rote_table, dl_c, acc_c, roll, par, dlp], api_name="rote_board").then(
                    notice, None, board_notice, api_visibility="private")

            with gr.Tab("CogScale", id="cogscale"):
                with gr.Row():
                    lr = gr.Radio([("LR chosen on validation (paper's protocol)", "validation"),
                                   ("LR chosen on test (published-table variant)", "test")],
                                  value="validation", label="learning-rate selection for our runs")
                    cells = gr.Radio([("cells we ran, ours beside the paper's", "ours"), ("every cell", "all")],
                                     value="ours", label="cells shown")
                    radar_src = gr.Radio([("ours beside the paper", "both"), ("our runs: best overall", "ours"),
                                          ("paper: best published mean", "paper")], value="both", label="radar")
                with gr.Row():
                    task = gr.Dropdown(_choices(ch["task"]), value=ALL, label="task")
                    diff = gr.Dropdown(_choices(ch["difficulty"]), value=ALL, label="difficulty")
                    budget = gr.Dropdown(_choices(ch["budget"]), value=ALL, label="budget")
                    cog_source = gr.Dropdown(_choices(SOURCES), value=ALL, label="source")
                cog_btn = gr.Button("Apply filters", variant="primary")
                cog_table = gr.Dataframe(interactive=False,
                                         label="CogScale task x difficulty x budget (mean ± std over seeds; lower is better)",
                                         elem_id="cogscale-table")
                gr.Markdown("Cognitive radar over all 14 tasks, one panel per model: accuracy = 1 - score at each "
                            "model's best (centre = 0, outer rim = 1; spokes numbered as in the key below each).")
                with gr.Row():
                    radar_small = gr.HTML(None, label="radar (small)", show_label=False, elem_id="radar-small")
                    radar_medium = gr.HTML(None, label="radar (medium)", show_label=False, elem_id="radar-medium")
                cog_btn.click(cogscale_view, [lr, task, diff, budget, cog_source, radar_src, cells],
                              [cog_table, radar_small, radar_medium], api_name="cogscale_board").then(
                    notice, None, board_notice, api_visibility="private")
            with gr.Tab("Reproduction", id="reproduction"):
                gr.Markdown("Our re-run of CogScale's published grid (`cogscale_paper`: 14 tasks x 2 difficulties x "
                            "3 budgets x 7 models x 5 learning rates x 10 seeds), compared group by group with the "
                            "published runs: a group agrees when our mean is within 2 standard errors of the published "
                            "mean. The plot puts each group's two means side by side; points on the diagonal agree "
                            "exactly, hollow points lie outside 2 standard errors.")
                with gr.Row():
                    repro_kind = gr.Dropdown(list(REPRODUCTION_VIEWS), value=REPRODUCTION_VIEWS[0], label="view")
                    repro_model = gr.Dropdown(_choices(list(REPRODUCTION_MODELS)), value=ALL, label="model")
                    repro_diff = gr.Dropdown(_choices(["small", "medium"]), value=ALL, label="difficulty")
                    repro_config = gr.Dropdown(reproduction_configs(df0), value="cogscale_paper",
                                               allow_custom_value=True, label="our sweep config")
                repro_btn = gr.Button("Show reproduction", variant="primary")
                repro_text = gr.Markdown(elem_id="reproduction-headline")
                repro_table = gr.Dataframe(interactive=False, elem_id="reproduction-table", wrap=True,
                                           label="agreement within 2 standard errors")
                repro_fig = gr.HTML(None, label="our mean vs the published mean, per group", show_label=False,
                                    elem_id="reproduction-plot")
                repro_btn.click(repro_view, [repro_kind, repro_model, repro_diff, repro_config], [repro_table, repro_text],
                                api_name="reproduction").then(repro_plot, [repro_config], [repro_fig],
                                                              api_name="reproduction_plot")

            with gr.Tab("OEIS-LLM", id="llm"):
                with gr.Row():
                    stratum = gr.Dropdown(_choices(ch["stratum"]), value=ALL, label="MDL stratum")
                    llm_model = gr.Dropdown(_choices(ch["llm_model"]), value=ALL, allow_custom_value=True, label="model")
                    llm_source = gr.Dropdown(_choices(SOURCES), value=ALL, label="source")
                    metric = gr.Dropdown(list(LLM_PLOT_METRICS), value="accuracy", label="plotted metric")
                llm_btn = gr.Button("Apply filters", variant="primary")
                llm_table = gr.Dataframe(interactive=False,
                                         label="Per model and stratum (Wilson 95 % intervals; failed calls not scored)",
                                         elem_id="llm-table")
                llm_plot = gr.HTML(None, label="per stratum and model", show_label=False, elem_id="llm-bars")
                llm_btn.click(llm_view, [stratum, llm_model, llm_source, metric], [llm_table, llm_plot],
                              api_name="llm_board").then(notice, None, board_notice, api_visibility="private")

            with gr.Tab("Submit results", id="submit"):
                gr.Markdown(SCHEMA_HELP.format(mb=MAX_BYTES / 2**20))
                upload = gr.File(label="results file", file_types=[".json", ".jsonl", ".parquet"], type="filepath")
                submit_btn = gr.Button("Validate and store", variant="primary")
                submit_status = gr.Textbox(label="status", interactive=False, elem_id="submit-status")
                submit_btn.click(submit, [upload], [submit_status], api_name="submit")

            with gr.Tab("LLM query", id="llm-query"):
                gr.Markdown("Run the MDL-stratified LLM audit against your own OpenAI-compatible endpoint. "
                            "The token is sent to that endpoint only; it is never stored or logged. The rows it "
                            "creates are stored as yours (`source = submitted`, unverified); a stratum in which "
                            "no reply was scored stores none.")
                with gr.Row():
                    base_url = gr.Textbox(label="base URL", placeholder="https://router.huggingface.co/v1")
                    model_name = gr.Textbox(label="model name")
                    token = gr.Textbox(label="token", type="password")
                    per_stratum = gr.Slider(PER_STRATUM_MIN, PER_STRATUM_MAX, value=5, step=1,
                                            label="sequences per stratum")
                query_btn = gr.Button("Run", variant="primary")
                query_status = gr.Textbox(label="status", interactive=False, elem_id="query-status")
                query_records = gr.Dataframe(pd.DataFrame(columns=RECORD_COLUMNS), interactive=False,
                                             label="parsed replies", elem_id="query-records")
                query_metrics = gr.Dataframe(pd.DataFrame(columns=METRIC_COLUMNS), interactive=False,
                                             label="metrics per stratum", elem_id="query-metrics")
                query_btn.click(llm_query, [base_url, model_name, token, per_stratum],
                                [query_status, query_records, query_metrics], api_name="llm_query",
                                concurrency_limit=LLM_QUERY_EVENTS)
        # a page (re)load shows runs stored since the app started: fresh filter choices and tables
        dropdowns = {"n": n, "c": c, "track": track, "device": device, "task": task,
                     "difficulty": diff, "budget": budget, "stratum": stratum, "llm_model": llm_model}

        def refresh():
            snap = service.snapshot()
            updates = [gr.update(choices=_choices(snap.choices[k])) for k in dropdowns]
            board, *figures = rote_view(ALL, ALL, ALL, ALL, ALL, RUNS)
            cog = cogscale_view("validation", ALL, ALL, ALL, ALL, "both", "ours")
            llm = llm_view(ALL, ALL, ALL, "accuracy")
            repro = repro_view(REPRODUCTION_VIEWS[0], ALL, ALL, "cogscale_paper")
            return (*updates, _notice(snap.notices), board, *figures, *cog, *llm, *repro, repro_plot("cogscale_paper"))

        demo.load(refresh, None, [*dropdowns.values(), board_notice, rote_table, dl_c, acc_c, roll, par, dlp,
                                  cog_table, radar_small, radar_medium, llm_table, llm_plot, repro_table, repro_text,
                                  repro_fig], api_visibility="private")

    def warm() -> None:
        """Compute the boards a page visit shows, once, before the first visitor asks."""
        try:
            refresh_inputs = ((rote_view, (ALL, ALL, ALL, ALL, ALL, RUNS)),
                              (cogscale_view, ("validation", ALL, ALL, ALL, ALL, "both", "ours")),
                              (llm_view, (ALL, ALL, ALL, "accuracy")),
                              (repro_view, (REPRODUCTION_VIEWS[0], ALL, ALL, "cogscale_paper")),
                              (repro_plot, ("cogscale_paper",)))
            for fn, args in refresh_inputs:
                fn(*args)
        except Exception:  # noqa: BLE001 -- a visitor's request computes (and reports) it again
            logging.getLogger("rote_hf.leaderboard").exception("warming the boards failed")

    threading.Thread(target=warm, name="warm-boards", daemon=True).start()
    return demo


def main(argv: list[str] | None = None) -> int:
    from rote_hf.argtypes import int_in

    parser = argparse.ArgumentParser(prog="space/app.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="results", help="results store folder (default: ./results)")
    # On the Hub the Space runtime sets GRADIO_SERVER_NAME/PORT (0.0.0.0:7860); an explicit
    # loopback host would override them and the Space would never answer.
    env_port = os.environ.get("GRADIO_SERVER_PORT")
    parser.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
                        help="address to serve on (default: $GRADIO_SERVER_NAME, else 127.0.0.1)")
    # a string default goes through the type too: a bad $GRADIO_SERVER_PORT is refused as --port is
    parser.add_argument("--port", type=int_in(0, 65535, "port"), default=env_port or None,
                        help="port, 0..65535 (default: $GRADIO_SERVER_PORT, else 7860 or the next free one)")
    parser.add_argument("--no-shipped", dest="shipped", action="store_false",
                        help="leave out our reproduction rows shipped with the package (only the store's rows)")
    args = parser.parse_args(argv)
    demo = build_demo(args.results, shipped=args.shipped)
    demo.queue(default_concurrency_limit=CONCURRENCY).launch(server_name=args.host, server_port=args.port,
                                                   max_file_size=MAX_BYTES, ssr_mode=False, show_error=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

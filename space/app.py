"""The rote-hf leaderboard: ROTE, CogScale and OEIS-LLM results beside the papers' published rows.

    python space/app.py [--results DIR] [--requests ORG/requests] [--host 127.0.0.1] [--port N]

Reads the results store (``./results`` by default; ``$ROTE_RESULTS_REPO`` adds a results dataset
repo, a hub id or a folder) and never trains. Submissions need a signed-in visitor (the Space
declares ``hf_oauth: true``) and become request records (:mod:`rote_hf.leaderboard.requests`) in
the results folder, or in the Hub repo ``--requests``/``$ROTE_REQUESTS_REPO``, whose copy is then
the store of submitted rows. The logic lives in ``rote_hf.leaderboard`` (pure
functions); this file only wires it to Gradio. API names (for ``gradio_client``):
``/rote_board``, ``/cogscale_board``, ``/reproduction``, ``/llm_board``, ``/submit``,
``/submit_architecture``, ``/my_requests``, ``/llm_query``.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import logging
import os
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # llm_tab.py beside this file
if (HERE.parent / "rote_hf").is_dir():
    sys.path.insert(0, str(HERE.parent))  # a source checkout: use its rote_hf without installing

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr  # noqa: E402

import pandas as pd  # noqa: E402
from llm_tab import METRIC_COLUMNS, PER_STRATUM_MAX, PER_STRATUM_MIN, RECORD_COLUMNS, run_llm_query  # noqa: E402
from rote_hf.leaderboard import MAX_BYTES, RESULTS_REPO_ENV  # noqa: E402
from rote_hf.leaderboard.requests import REQUESTS_REPO_ENV, RateLimits, RequestDesk, open_desk  # noqa: E402
from rote_hf.leaderboard.tracks import TRACKS  # noqa: E402
from rote_hf.leaderboard.visitor import (  # noqa: E402
    REQUEST_COLUMNS, VisitorError, my_requests, start_llm_query, submit_architecture, submit_rows,
)
from rote_hf.leaderboard.serving import BoardService, bound_queue_analytics  # noqa: E402
from rote_hf.leaderboard.source import REPO_NOTICE  # noqa: E402
from rote_hf.leaderboard.tabs import BoardTab, board_tabs  # noqa: E402

LOG = logging.getLogger("rote_hf.leaderboard")
bound_queue_analytics()  # before any gr.Blocks: Gradio's request log would cost more per request served

SCHEMA_HELP = """Upload a `.json` (a list of row objects), `.jsonl` or `.parquet` file of result rows
(the columns of `rote_hf.results.COLUMNS`; at least `run_id`, `suite`, `task`, `model`).
At most {mb:.0f} MiB; no pickle. Every row is checked against its suite's schema before any is
stored, and the file is stored whole or not at all. Rows are stored **unverified**, as
`source = submitted`: the tables mark them `unverified (submitted)` and rank them only with the
"show unverified" toggle. Needs sign-in; at most {per_day} submissions per user per day."""
ARCHITECTURE_HELP = """Name a model of the zoo, no code, the way a sweep config's `models` entry does:
`{{"name": "gru", "hidden_size": 64, "num_layers": 1}}` or `{{"name": "lstm", "budget": 20000}}`.
A backend re-trains it on the chosen track with the official protocol; its rows are then ranked as
`verified` beside ours and the paper's. Tracks:

{tracks}"""


def sign_in_available() -> bool:
    """Whether this app runs as a Hugging Face Space (``$SPACE_ID``), where "Sign in with Hugging
    Face" works (``hf_oauth: true``). Elsewhere Gradio's stand-in calls ``whoami()`` on the Hub, so
    no sign-in button is drawn and nobody can submit: there is no way around sign-in."""
    return bool(os.environ.get("SPACE_ID"))


def _notice(notices: list[str]) -> str:
    """The visible note about the results repo and the stored rows that no board shows (empty when none)."""
    repo = [f"**{n}**" for n in notices if n.startswith(REPO_NOTICE)]
    rows = [n for n in notices if not n.startswith(REPO_NOTICE)]
    if not rows:
        return "\n\n".join(repo)
    shown = "\n".join(f"- `{n if len(n) <= 160 else n[:157] + '...'}`" for n in rows[:5])
    more = f"\n- ... and {len(rows) - 5} more" if len(rows) > 5 else ""
    return "\n\n".join([*repo, f"**{len(rows)} stored row(s) skipped**: they do not meet the row schema or claim "
                          f"the published rows, so no board shows them (the files are kept).\n{shown}{more}"])


def _rows_of(items, row_of) -> list[list]:
    """``items`` grouped into consecutive rows: equal row numbers stand together, ``None`` alone."""
    groups: list[list] = []
    for item in items:
        row = row_of(item)
        if groups and row is not None and row_of(groups[-1][0]) == row:
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups


def draw_tab(tab: BoardTab, choices: dict) -> tuple[dict, gr.Button, dict]:
    """Draw ``tab`` inside the current ``gr.Tab``: its controls (by name, with their
    :class:`~rote_hf.leaderboard.tabs.Control`), its button and its outputs (by ``elem_id``)."""
    controls, outputs = {}, {}
    if tab.intro:
        gr.Markdown(tab.intro)
    for group in _rows_of(tab.controls, lambda c: c.row):
        with gr.Row():
            for c in group:
                make = gr.Radio if c.kind == "radio" else gr.Dropdown
                extra = {"allow_custom_value": True} if c.custom and make is gr.Dropdown else {}
                controls[c.name] = (c, make(c.options(choices), value=c.default, label=c.label, **extra))
    button = gr.Button(tab.button, variant="primary")
    for group in _rows_of(tab.outputs, lambda o: o.row):
        notes = [o.note for o in group if o.note]
        if notes:
            gr.Markdown("\n\n".join(notes))
        with gr.Row(visible=True) if len(group) > 1 else contextlib.nullcontext():
            for o in group:
                if o.kind == "table":
                    outputs[o.elem_id] = gr.Dataframe(interactive=False, label=o.label, elem_id=o.elem_id, wrap=o.wrap)
                elif o.kind == "html":  # SVG plots: Gradio's native plots tell series apart by colour only
                    outputs[o.elem_id] = gr.HTML(None, label=o.label, show_label=False, elem_id=o.elem_id)
                else:
                    outputs[o.elem_id] = gr.Markdown(elem_id=o.elem_id)
    return controls, button, outputs


#: Requests served at once (each only filters what the first visitor's request computed).
CONCURRENCY = 8
#: LLM queries Gradio hands on at once: rote_hf.llm's fair queue runs 8 of them (one per user) and
#: refuses at once a user's query beyond one running and two waiting, so no user holds these for others.
LLM_QUERY_EVENTS = 16


def build_demo(results: str | os.PathLike = "results", *, shipped: bool = True,
               service: BoardService | None = None, desk: RequestDesk | None = None) -> gr.Blocks:
    """The Blocks app over the results store at ``results``; ``shipped=False`` leaves out the
    reproduction rows shipped with the package. Rows are read once and every board is computed
    once per version of the rows (:class:`rote_hf.leaderboard.serving.BoardService`); a request
    filters what was computed."""
    results = str(results)
    service = service or BoardService(results, shipped=shipped)
    desk = desk or RequestDesk(results, limits=RateLimits.from_env())

    def notice():
        return gr.update(value=_notice(service.snapshot().notices))

    def wire_tab(tab: BoardTab, controls: dict, button: gr.Button, outputs: dict) -> None:
        """The tab's button runs its first step, each further step follows; the notice after them."""
        event = None
        for step in tab.steps:
            def handler(*values, step=step):
                started = time.thread_time_ns()
                # the last value is the "show unverified" toggle (off when a caller leaves it out)
                show = bool(values[len(step.inputs)]) if len(values) > len(step.inputs) else False
                values = values[:len(step.inputs)]
                snap = service.snapshot().ranked(show)
                shown, warnings = tab.run(step, snap, dict(zip(step.inputs, values)))
                for warning in warnings:
                    gr.Warning(warning)
                # the board's own cost (this thread's CPU; Gradio's encoding of the answer comes after)
                LOG.debug("served /%s in %.6f CPU-s", step.api_name, (time.thread_time_ns() - started) / 1e9)
                return shown if len(step.outputs) > 1 else shown[0]
            # the API lists each parameter by its control's name (gradio_client keyword arguments)
            handler.__signature__ = inspect.Signature(
                [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in (*step.inputs, "show_unverified")])
            args = (handler, [*(controls[n][1] for n in step.inputs), show_unverified],
                    [outputs[o] for o in step.outputs])
            event = (button.click if event is None else event.then)(*args, api_name=step.api_name)
        event.then(notice, None, board_notice, api_visibility="private")

    # Gradio injects the signed-in visitor's profile (None when nobody is signed in) by the annotation
    def submit(path, profile: gr.OAuthProfile | None):
        message = submit_rows(desk, path, profile)
        service.snapshot()  # the uploader's request reads the new rows, not the next visitor's
        return message

    def submit_model(entry, track, profile: gr.OAuthProfile | None):
        return submit_architecture(desk, entry, track, profile)

    def requests_of(profile: gr.OAuthProfile | None):
        return my_requests(desk, profile)

    def llm_query(base_url, model, token, per_stratum, profile: gr.OAuthProfile | None):
        try:
            user = start_llm_query(desk, profile)  # sign-in and the per-user limit, before any request leaves
        except VisitorError as exc:
            return str(exc), pd.DataFrame(columns=RECORD_COLUMNS), pd.DataFrame(columns=METRIC_COLUMNS)
        # the fair queue's user key: the signed-in user
        return run_llm_query(base_url, model, token, per_stratum, results, user=f"user:{user}")

    snap0 = service.snapshot()
    repo = os.environ.get(RESULTS_REPO_ENV)
    tabs = board_tabs()
    drawn: list[tuple[BoardTab, dict, dict]] = []  # each tab with its controls and outputs by name

    with gr.Blocks(title="rote-hf leaderboard") as demo:
        gr.Markdown(
            "# rote-hf leaderboard\nOur runs beside the papers' published rows (`source = paper`); visitors' "
            "rows are `source = submitted`, unverified. "
            f"Results: `{results}`" + (f" + `{repo}`" if repo else "") + ". Every row shows its provenance "
            "(source, version, commit, dataset fingerprint, verified).")
        with gr.Row():
            if sign_in_available():
                gr.LoginButton()
            else:
                gr.Markdown("Submitting needs \"Sign in with Hugging Face\", which works on the Hub Space only.")
            show_unverified = gr.Checkbox(False, label="show unverified (self-reported) rows, marked "
                                                       "'unverified (submitted)'", elem_id="show-unverified")
        board_notice = gr.Markdown(_notice(snap0.notices), elem_id="board-notice")
        with gr.Tabs():
            for tab in tabs:
                with gr.Tab(tab.title, id=tab.id):
                    controls, button, outputs = draw_tab(tab, snap0.choices)
                    wire_tab(tab, controls, button, outputs)
                drawn.append((tab, controls, outputs))
            with gr.Tab("Submit results", id="submit"):
                gr.Markdown(SCHEMA_HELP.format(mb=MAX_BYTES / 2**20, per_day=desk.limits.submissions))
                upload = gr.File(label="results file", file_types=[".json", ".jsonl", ".parquet"], type="filepath")
                submit_btn = gr.Button("Validate and store", variant="primary")
                submit_status = gr.Textbox(label="status", interactive=False, elem_id="submit-status")
                submit_btn.click(submit, [upload], [submit_status], api_name="submit")

            with gr.Tab("Submit an architecture", id="submit-architecture"):
                gr.Markdown(ARCHITECTURE_HELP.format(tracks="\n".join(f"- `{t.name}`: {t.description}"
                                                                      for t in TRACKS.values())))
                with gr.Row():
                    entry = gr.Textbox(label="model entry (JSON)", placeholder='{"name": "gru", "hidden_size": 64}',
                                       elem_id="architecture-entry")
                    # custom values reach the handler, which refuses them in one line naming the menu
                    track_menu = gr.Dropdown(list(TRACKS), value=next(iter(TRACKS)), label="track",
                                             allow_custom_value=True)
                arch_btn = gr.Button("Queue for verification", variant="primary")
                arch_status = gr.Textbox(label="status", interactive=False, elem_id="architecture-status")
                arch_btn.click(submit_model, [entry, track_menu], [arch_status], api_name="submit_architecture")

            with gr.Tab("My requests", id="my-requests"):
                gr.Markdown("Your submissions and their status (`pending`, `running`, `verified`, `failed`, "
                            "`rejected`), newest first. Only you see them.")
                mine_btn = gr.Button("Show my requests", variant="primary")
                mine_table = gr.Dataframe(pd.DataFrame(columns=list(REQUEST_COLUMNS)), interactive=False,
                                          elem_id="my-requests", wrap=True)
                mine_btn.click(requests_of, None, [mine_table], api_name="my_requests")

            with gr.Tab("LLM query", id="llm-query"):
                gr.Markdown(f"Needs sign-in; at most {desk.limits.llm_queries} queries per user per day. "
                            "Run the MDL-stratified LLM audit against your own OpenAI-compatible endpoint. "
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
        # a page (re)load shows runs stored since the app started: fresh filter choices, every board
        # (each computed once per version of the rows) and every plot beside its table
        choice_controls = [(c, comp) for _, controls, _ in drawn for c, comp in controls.values() if c.choices_key]

        def refresh():
            snap = service.snapshot()
            updates = [gr.update(choices=c.options(snap.choices)) for c, _ in choice_controls]
            shown = [value for tab, _, _ in drawn for value in tab.first_view(snap.ranked())]
            return (*updates, _notice(snap.notices), *shown)

        demo.load(refresh, None, [*(comp for _, comp in choice_controls), board_notice,
                                  *(comp for _, _, outputs in drawn for comp in outputs.values())],
                  api_visibility="private")

    def warm() -> None:
        """Compute the boards a page visit shows, once, before the first visitor asks."""
        try:
            snap = service.snapshot().ranked()
            for tab in tabs:
                tab.first_view(snap)
        except Exception:  # noqa: BLE001 -- a visitor's request computes (and reports) it again
            LOG.exception("warming the boards failed")

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
    parser.add_argument("--requests", default=os.environ.get(REQUESTS_REPO_ENV) or None, metavar="ORG/requests",
                        help="Hub dataset repo keeping requests and submitted rows (default: $ROTE_REQUESTS_REPO; "
                             "unset: the --results folder keeps them)")
    args = parser.parse_args(argv)
    limits = RateLimits.from_env()
    results = args.results
    if args.requests:  # its local copy is the store of submitted rows; a restart downloads it again
        desk = open_desk(args.requests, limits=limits)
        results = str(desk.root)
    else:
        desk = RequestDesk(results, limits=limits)
    demo = build_demo(results, shipped=args.shipped, desk=desk)
    demo.queue(default_concurrency_limit=CONCURRENCY).launch(server_name=args.host, server_port=args.port,
                                                   max_file_size=MAX_BYTES, ssr_mode=False, show_error=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

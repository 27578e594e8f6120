"""The leaderboard's board tabs, one per suite, described as data: ``space/app.py`` draws them all
with one loop and needs no edit when a suite is added.

A :class:`BoardTab` says what its controls are (:class:`Control`), what it shows
(:class:`Output`: a table, an HTML plot, a Markdown text) and how to compute it from the served
rows (:class:`Step`: a view over a :class:`~rote_hf.leaderboard.serving.Snapshot` and the
controls' values, memoised per snapshot, with its ``api_name`` for ``gradio_client``). A step's
controls whose choices come from the rows (``choices_key``) are checked against the snapshot
first: a value that no longer has rows falls back to the control's default (``all`` for a
filter), with a warning for the visitor.

:data:`TABS` holds the tabs of the built-in suites (ROTE with ``rote_matched``, CogScale and its
reproduction, OEIS-LLM). :func:`board_tabs` adds a plain tab for every registered suite that no
tab covers, showing the suite unit's own ``board``: a fourth suite registered in
:data:`rote_hf.suites.SUITES` gets its tab without touching the app.

>>> [tab.id for tab in board_tabs()]
['rote', 'cogscale', 'reproduction', 'llm']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from rote_hf.boards.tables import (
    ALL, RUNS, cogscale_lines, filter_rote, llm_board, rote_board, rote_frame, select_cogscale,
)
from rote_hf.leaderboard import plots
from rote_hf.leaderboard.reproduction import (
    REPRODUCTION_MODELS, REPRODUCTION_VIEWS, group_report, mean_vs_mean_svg, our_rows, reproduction_view,
    rote_fit_view,
)
from rote_hf.leaderboard.serving import Snapshot
from rote_hf.results.reproduction import cells as reproduction_cells
from rote_hf.results.schema import SOURCES
from rote_hf.suites import SUITES, get_suite

PLOT_NOTE = ("One colour per architecture. Ours: filled circles, solid lines; the paper's (archived fits): hollow "
             "squares, dashed lines; the legend names each. Hover a point for its values. Main track unless the "
             "track filter picks another.")
LLM_PLOT_METRICS = ("accuracy", "abstention", "confabulation", "mean confidence", "acc | recognised",
                    "acc | unrecognised")


@dataclass(frozen=True)
class Control:
    """One input of a tab. ``name``: the view's keyword. Choices: ``choices`` (fixed; a value or a
    ``(label, value)`` pair), else ``choices_key`` (a key of the snapshot's filter choices, shown
    after ``all`` unless ``with_all`` is false, and refreshed on every page visit). ``kind``: ``"dropdown"`` or ``"radio"``;
    ``row``: controls with the same row number stand side by side; ``custom``: a value outside the
    choices is passed on as typed (the view says when it has no rows), not replaced by the default."""

    name: str
    label: str
    default: Any = ALL
    choices: tuple = ()
    choices_key: str | None = None
    kind: str = "dropdown"
    row: int = 0
    custom: bool = False
    with_all: bool = True

    def __post_init__(self) -> None:
        if self.kind not in ("dropdown", "radio"):
            raise ValueError(f"Control kind must be 'dropdown' or 'radio', got {self.kind!r}")
        if bool(self.choices) == bool(self.choices_key):
            raise ValueError(f"Control {self.name!r} needs exactly one of choices and choices_key")

    def options(self, choices: Mapping[str, list]) -> list:
        """The choices shown for a snapshot's filter ``choices``."""
        if self.choices:
            return list(self.choices)
        return [ALL] * self.with_all + list(choices.get(self.choices_key, []))


@dataclass(frozen=True)
class Output:
    """One thing a tab shows: ``kind`` is ``"table"``, ``"html"`` (an SVG plot) or ``"markdown"``;
    ``elem_id`` names it in the page (and in tests); outputs with the same ``row`` stand side by
    side (``None``: a row of its own); ``note`` is Markdown shown just above it."""

    elem_id: str
    kind: str
    label: str = ""
    row: int | None = None
    note: str = ""
    wrap: bool = False

    def __post_init__(self) -> None:
        if self.kind not in ("table", "html", "markdown"):
            raise ValueError(f"Output kind must be 'table', 'html' or 'markdown', got {self.kind!r}")


@dataclass(frozen=True)
class Step:
    """A computation of a tab: ``view(snapshot, **values of inputs)`` returns one value per output
    (a tuple, in the order of ``outputs``, which are ``elem_id``s). The first step of a tab runs on
    its button; the others follow it."""

    api_name: str
    view: Callable[..., tuple]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


@dataclass(frozen=True)
class BoardTab:
    """One tab of the leaderboard: ``suites`` it shows (the rows' ``suite`` values), its controls,
    outputs and steps, ``intro`` Markdown at its top and its button's text."""

    id: str
    title: str
    suites: tuple[str, ...]
    controls: tuple[Control, ...]
    outputs: tuple[Output, ...]
    steps: tuple[Step, ...]
    intro: str = ""
    button: str = "Apply filters"

    def __post_init__(self) -> None:
        names = {c.name for c in self.controls}
        ids = {o.elem_id for o in self.outputs}
        for step in self.steps:
            if not set(step.inputs) <= names or not set(step.outputs) <= ids:
                raise ValueError(f"tab {self.id!r} step {step.api_name!r} names unknown controls or outputs")

    def defaults(self) -> dict[str, Any]:
        return {c.name: c.default for c in self.controls}

    def run(self, step: Step, snap: Snapshot, values: Mapping[str, Any]) -> tuple[tuple, list[str]]:
        """``(outputs, warnings)`` of ``step`` for the controls' ``values``: values that no longer
        have rows in ``snap`` fall back to the control's default, and each fallback is one warning."""
        args, warnings = {}, []
        controls = {c.name: c for c in self.controls}
        for name in step.inputs:
            value, control = values[name], controls[name]
            if (control.choices_key and not control.custom and value not in (None, "", ALL)
                    and value not in snap.choices.get(control.choices_key, [])):
                value, was = control.default, value
                warnings.append(f"{name} = {was!r} no longer has rows; showing {value}")
            args[name] = value
        return step.view(snap, **args), warnings

    def first_view(self, snap: Snapshot) -> list:
        """Every output at the controls' defaults, in the order of :attr:`outputs` (a page visit)."""
        shown: dict[str, Any] = {}
        for step in self.steps:
            values, _ = self.run(step, snap, self.defaults())
            shown.update(zip(step.outputs, values))
        return [shown.get(o.elem_id) for o in self.outputs]


# -- ROTE --------------------------------------------------------------------------------------
def rote_view(snap: Snapshot, *, n: str, c: str, track: str, source: str, device: str, table: str = RUNS) -> tuple:
    """The ROTE board and its five plots (complexity DL and accuracy, rollout, Pareto, parameters)."""
    def compute():
        df = snap.rows
        board = rote_board(df, n=n, c=c, track=track, source=source, device=device, table=table)
        frame = filter_rote(snap.memo("rote-frame", lambda: rote_frame(df)), n=n, c=c, track=track, source=source,
                            device=device)
        frame = plots.one_track(frame, track)
        curves = plots.complexity_curves(frame)
        lines = plots.one_track(board[board["table"] == RUNS], track)
        return (board, plots.complexity_svg(curves, "DL"), plots.complexity_svg(curves, "accuracy"),
                plots.rollout_svg(plots.rollout_error_curves(frame)), plots.pareto_svg(plots.pareto(lines)),
                plots.params_svg(plots.dl_vs_params(lines)))
    return snap.memo(("rote", n, c, track, source, device, table), compute)


ROTE_TAB = BoardTab(
    id="rote", title="ROTE", suites=("rote", "rote_matched"),
    controls=(
        Control("n", "n (symbols)", choices_key="n"),
        Control("c", "c (LZW complexity)", choices_key="c"),
        Control("track", "track", choices_key="track"),
        Control("source", "source", choices=(ALL, *SOURCES)),
        Control("device", "device", choices_key="device"),
        Control("table", "table", default=RUNS, choices=(
            ("per model and track (from the runs)", RUNS), ("paper: summary_by_model", "summary_by_model"),
            ("paper: Table 2 (main, c = 90)", "table2_main_c90"), ("paper: Table 3 (matched size)", "table3_matched"),
            ("everything", ALL))),
    ),
    outputs=(
        Output("rote-table", "table", "ROTE: one line per model and track (DL: Damerau-Levenshtein distance of the "
                                      "rollout, lower is better; exact_rate: share of exact rollouts)"),
        Output("rote-dl-c", "html", "DL vs LZW complexity", row=1, note=PLOT_NOTE),
        Output("rote-acc-c", "html", "accuracy vs LZW complexity", row=1),
        Output("rote-rollout", "html", "rollout error vs horizon"),
        Output("rote-pareto", "html", "quality vs compute", row=2),
        Output("rote-params", "html", "DL vs parameters", row=2),
    ),
    steps=(Step("rote_board", rote_view, ("n", "c", "track", "source", "device", "table"),
                ("rote-table", "rote-dl-c", "rote-acc-c", "rote-rollout", "rote-pareto", "rote-params")),),
)


# -- CogScale ----------------------------------------------------------------------------------
def _radars(snap: Snapshot, radar_source: str) -> list[str]:
    return snap.memo(("radars", radar_source), lambda: [
        plots.radar_svg(plots.radar_data(snap.rows, difficulty=d, source=radar_source),
                        title=plots.radar_title(d, radar_source))
        for d in ("small", "medium")])


def cogscale_view(snap: Snapshot, *, lr_selection: str, task: str, difficulty: str, budget: str, source: str,
                  radar_source: str, cells: str = "ours") -> tuple:
    """The CogScale board (the lines of each learning-rate selection computed once) and the two radars."""
    lines = snap.memo(("cogscale-lines", lr_selection), lambda: cogscale_lines(snap.rows, lr_selection=lr_selection))
    board = snap.memo(("cogscale", lr_selection, task, difficulty, budget, source, cells),
                      lambda: select_cogscale(lines, snap.choices, source=source, cells=cells, task=task,
                                              difficulty=difficulty, budget=budget))
    return (board, *_radars(snap, radar_source))


COGSCALE_TAB = BoardTab(
    id="cogscale", title="CogScale", suites=("cogscale",),
    controls=(
        Control("lr_selection", "learning-rate selection for our runs", default="validation", kind="radio", choices=(
            ("LR chosen on validation (paper's protocol)", "validation"),
            ("LR chosen on test (published-table variant)", "test"))),
        Control("cells", "cells shown", default="ours", kind="radio", choices=(
            ("cells we ran, ours beside the paper's", "ours"), ("every cell", "all"))),
        Control("radar_source", "radar", default="both", kind="radio", choices=(
            ("ours beside the paper", "both"), ("our runs: best overall", "ours"),
            ("paper: best published mean", "paper"))),
        Control("task", "task", choices_key="task", row=1),
        Control("difficulty", "difficulty", choices_key="difficulty", row=1),
        Control("budget", "budget", choices_key="budget", row=1),
        Control("source", "source", choices=(ALL, *SOURCES), row=1),
    ),
    outputs=(
        Output("cogscale-table", "table",
               "CogScale task x difficulty x budget (mean ± std over seeds; lower is better)"),
        Output("radar-small", "html", "radar (small)", row=1,
               note="Cognitive radar over all 14 tasks, one panel per model: accuracy = 1 - score at each model's "
                    "best (centre = 0, outer rim = 1; spokes numbered as in the key below each)."),
        Output("radar-medium", "html", "radar (medium)", row=1),
    ),
    steps=(Step("cogscale_board", cogscale_view,
                ("lr_selection", "task", "difficulty", "budget", "source", "radar_source", "cells"),
                ("cogscale-table", "radar-small", "radar-medium")),),
)


# -- the reproduction --------------------------------------------------------------------------
def _report(snap: Snapshot, config: str):
    ours = our_rows(snap.rows, config)
    return snap.memo(("repro-report", config),
                     lambda: group_report(ours, config) if len(ours) else None)


def repro_view(snap: Snapshot, *, view: str, model: str, difficulty: str, config: str) -> tuple:
    """The reproduction table and its headline for one view, model and difficulty."""
    def compute():
        report = _report(snap, config)
        cell_table = (snap.memo(("repro-cells", config),
                                lambda: reproduction_cells(our_rows(snap.rows, config), config_name=config))
                      if view.startswith("cells") and report is not None else None)
        return reproduction_view(snap.rows, view=view, model=model, difficulty=difficulty, config=config,
                                 report=report, cell_table=cell_table)
    return snap.memo(("repro", view, model, difficulty, config), compute)


def repro_plot(snap: Snapshot, *, config: str) -> tuple:
    """The mean-vs-mean plot as SVG (drawn once per version of the rows)."""
    def compute():
        report = _report(snap, config)
        return ("" if report is None else mean_vs_mean_svg(report),)
    return snap.memo(("repro-plot", config), compute)


def repro_rote(snap: Snapshot) -> tuple:
    """The ROTE fit-by-fit comparison: its headline, summary by model and table of fits (once per version of the rows)."""
    def compute():
        summary_table, fits, text = rote_fit_view(snap.rows)
        return text, summary_table, fits
    return snap.memo("repro-rote", compute)


REPRODUCTION_TAB = BoardTab(
    id="reproduction", title="Reproduction", suites=(), button="Show reproduction",
    intro=("Our re-run of CogScale's published grid (`cogscale_paper`: 14 tasks x 2 difficulties x 3 budgets x 7 "
           "models x 5 learning rates x 10 seeds), compared group by group with the published runs: a group agrees "
           "when our mean is within 2 standard errors of the published mean (our rule; the strict rule, which lends "
           "no variance and counts a group with a diverged run as disagreeing, and the paired test over seed twins "
           "stand beside it, with the rates expected if nothing differed). The plot puts each group's two means "
           "side by side; points on the diagonal agree exactly, hollow points lie outside 2 standard errors. "
           "Below it, our fits of ROTE's main grid (`rote_paper`), each beside its archived twin (same task, seed, "
           "run and model; ROTE's Transformer is the encoder-decoder, TransformerEncDec): stopping epoch, test "
           "accuracy, DL, JW and exact rollout."),
    controls=(
        Control("view", "view", default=REPRODUCTION_VIEWS[0], choices=REPRODUCTION_VIEWS),
        Control("model", "model", choices=(ALL, *REPRODUCTION_MODELS)),
        Control("difficulty", "difficulty", choices=(ALL, "small", "medium")),
        Control("config", "our sweep config", default="cogscale_paper", choices_key="repro_config", custom=True,
                with_all=False),
    ),
    outputs=(
        Output("reproduction-table", "table", "agreement within 2 standard errors", wrap=True),
        Output("reproduction-headline", "markdown"),
        Output("reproduction-plot", "html", "our mean vs the published mean, per group"),
        Output("reproduction-rote-headline", "markdown", note="### ROTE, fit by fit (`rote_paper`)"),
        Output("reproduction-rote-summary", "table", "ROTE: ours vs the archived fits, by model (DL_mad, JW_mad: "
                                                     "mean |ours - paper|; counts are fits)", wrap=True),
        Output("reproduction-rote-fits", "table", "ROTE: one line per fit (_diff = ours - paper)", wrap=True),
    ),
    steps=(Step("reproduction", repro_view, ("view", "model", "difficulty", "config"),
                ("reproduction-table", "reproduction-headline")),
           Step("reproduction_plot", repro_plot, ("config",), ("reproduction-plot",)),
           Step("reproduction_rote", repro_rote, (),
                ("reproduction-rote-headline", "reproduction-rote-summary", "reproduction-rote-fits"))),
)


# -- OEIS-LLM ----------------------------------------------------------------------------------
def llm_view(snap: Snapshot, *, stratum: str, model: str, source: str, metric: str) -> tuple:
    """The OEIS-LLM board and its bar chart of ``metric``."""
    def compute():
        board = llm_board(snap.rows, stratum=stratum, model=model, source=source)
        return board, plots.llm_bars_svg(plots.llm_bars(board, metric), metric=metric)
    return snap.memo(("llm", stratum, model, source, metric), compute)


LLM_TAB = BoardTab(
    id="llm", title="OEIS-LLM", suites=("mdl",),
    controls=(
        Control("stratum", "MDL stratum", choices_key="stratum"),
        Control("model", "model", choices_key="llm_model", custom=True),
        Control("source", "source", choices=(ALL, *SOURCES)),
        Control("metric", "plotted metric", default="accuracy", choices=LLM_PLOT_METRICS),
    ),
    outputs=(
        Output("llm-table", "table", "Per model and stratum (Wilson 95 % intervals; failed calls not scored)"),
        Output("llm-bars", "html", "per stratum and model"),
    ),
    steps=(Step("llm_board", llm_view, ("stratum", "model", "source", "metric"), ("llm-table", "llm-bars")),),
)

#: The built-in tabs, in page order.
TABS: tuple[BoardTab, ...] = (ROTE_TAB, COGSCALE_TAB, REPRODUCTION_TAB, LLM_TAB)


# -- any other suite ---------------------------------------------------------------------------
def suite_tab(name: str) -> BoardTab:
    """The plain tab of registered suite ``name``: its unit's ``board`` over the served rows."""
    def view(snap: Snapshot) -> tuple:
        return (snap.memo(("suite-board", name), lambda: get_suite(name).board(snap.rows)),)

    return BoardTab(id=f"suite-{name}", title=name, suites=(name,), controls=(),
                    outputs=(Output(f"{name}-table", "table", f"{name}: the suite's board"),),
                    steps=(Step(f"{name}_board", view, (), (f"{name}-table",)),), button="Show board",
                    intro=get_suite(name).description)


def board_tabs() -> list[BoardTab]:
    """The built-in tabs, then one :func:`suite_tab` per registered suite that none of them shows."""
    covered = {s for tab in TABS for s in tab.suites}
    return [*TABS, *(suite_tab(name) for name in SUITES.names() if name not in covered)]


__all__ = ["BoardTab", "Control", "LLM_PLOT_METRICS", "Output", "PLOT_NOTE", "Step", "TABS", "board_tabs",
           "suite_tab"]

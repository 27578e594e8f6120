"""The leaderboard's plots read at a glance (issue 25): ours and the paper's told apart by marker,
line style and legend name; ticks at the data's values; nothing clipped; the models named on the
Pareto plot; integer horizons; radars as outlined small multiples."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pandas as pd
import pytest

from rote_hf.boards.tables import RUNS, rote_frame
from rote_hf.leaderboard import load_rows, plots, rote_board
from rote_hf.results.schema import SOURCES
from rote_hf.zoo.display import DISPLAY_NAMES
from tests.space.rows import make_store

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    make_store(root)
    return load_rows(root, repo="", shipped=False)  # our ROTE rows (GRU, LSTM at c 10, 30) + the paper's


@pytest.fixture(scope="module")
def frame(rows):
    return plots.one_track(rote_frame(rows))


@pytest.fixture(scope="module")
def lines(rows):
    board = rote_board(rows, table=RUNS)
    return plots.one_track(board[board["table"] == RUNS])


def svg_tree(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def texts(root: ET.Element, cls: str) -> list[str]:
    return [e.text or "" for e in root.iter(f"{SVG}text") if e.get("class") == cls]


def test_every_series_is_named_by_architecture_and_source(frame, lines):
    curves = plots.complexity_curves(frame)
    assert list(curves.columns) == plots.COMPLEXITY_COLUMNS
    assert list(curves["series"]) == [f"{m} ({s})" for m, s in zip(curves["model"], curves["source"])]
    assert {"GRU (ours)", "GRU (paper)", "LSTM (ours)", "LSTM (paper)"} <= set(curves["series"])
    params = plots.dl_vs_params(lines)
    assert set(params["series"]) == {plots.series_name(m, s) for m, s in zip(params["model"], params["source"])}


def test_source_series_colours_cover_every_architecture_and_source():
    colours = plots.source_series_colours(DISPLAY_NAMES.values())
    names = set(DISPLAY_NAMES.values())
    assert set(colours) == {plots.series_name(n, s) for n in names for s in SOURCES}
    for name in names:
        ours, paper = colours[f"{name} (ours)"], colours[f"{name} (paper)"]
        assert ours == plots.ARCHITECTURE_COLOURS[name] and paper != ours  # the paper's: a lighter tint
        assert sum(int(paper[i:i + 2], 16) for i in (1, 3, 5)) > sum(int(ours[i:i + 2], 16) for i in (1, 3, 5))


def test_ticks_at_the_data_values_and_a_padded_domain(frame):
    curves = plots.complexity_curves(frame)
    assert curves["c"].dtype == "int64"
    assert plots.data_ticks(curves["c"]) == [10.0, 30.0, 50.0, 70.0, 90.0]  # the paper's c values, not every 2
    lo, hi = plots.padded_limits(curves["c"])
    assert lo < 10 and hi > 90 and (lo, hi) == pytest.approx((10 - 0.06 * 80, 90 + 0.06 * 80))
    lo, hi = plots.padded_limits([100.0, 10_000.0], log=True)
    assert lo < 100 and hi > 10_000 and lo > 0
    assert plots.data_ticks(range(1, 21)) == [5.0, 10.0, 15.0, 20.0]  # many values: round ticks within them
    assert [plots.tick_text(v) for v in (10.0, 0.25, 150_000.0, 3_690_245.0)] == ["10", "0.25", "150k", "3.69M"]


def test_complexity_svg_tells_ours_from_the_paper(frame):
    curves = plots.complexity_curves(frame)
    root = svg_tree(plots.complexity_svg(curves, "DL"))
    assert texts(root, "x-tick") == ["10", "30", "50", "70", "90"]
    legend = texts(root, "chart-legend")
    assert legend == sorted(set(curves["series"]), key=lambda s: (s.split(" (")[0].lower(), s.endswith("(paper)")))
    lines = {e.find(f"{SVG}title").text: e for e in root.iter(f"{SVG}polyline") if e.get("class") == "series-line"}
    assert lines["GRU (ours)"].get("stroke-dasharray") is None  # ours solid
    assert lines["GRU (paper)"].get("stroke-dasharray") == plots.SOURCE_STYLES["paper"].dash  # the paper's dashed
    assert lines["GRU (ours)"].get("stroke") == lines["GRU (paper)"].get("stroke")  # one colour per architecture
    marks = [e for e in root.iter() if (e.get("class") or "").startswith("marker ")]
    ours = [e for e in marks if "(ours)" in (e.findtext(f"{SVG}title") or "")]
    paper = [e for e in marks if "(paper)" in (e.findtext(f"{SVG}title") or "")]
    assert ours and {e.tag for e in ours} == {f"{SVG}circle"} and all(e.get("fill") == e.get("stroke") for e in ours)
    assert paper and {e.tag for e in paper} == {f"{SVG}rect"} and {e.get("fill") for e in paper} == {"white"}


def test_nothing_is_drawn_outside_the_plot_area(frame, lines):
    for svg in (plots.complexity_svg(plots.complexity_curves(frame), "accuracy"), plots.pareto_svg(plots.pareto(lines)),
                plots.params_svg(plots.dl_vs_params(lines))):
        root = svg_tree(svg)
        area = next(e for e in root.iter(f"{SVG}rect") if e.get("stroke") == "#ccc")
        x0, y0 = float(area.get("x")), float(area.get("y"))
        x1, y1 = x0 + float(area.get("width")), y0 + float(area.get("height"))
        titled = [e for e in root.iter() if (e.get("class") or "").startswith("marker ") and e.find(f"{SVG}title") is not None]
        centres = [(float(e.get("cx")), float(e.get("cy"))) if e.tag == f"{SVG}circle"
                   else (float(e.get("x")) + float(e.get("width")) / 2, float(e.get("y")) + float(e.get("height")) / 2)
                   for e in titled]
        assert centres and all(x0 + 4 <= x <= x1 - 4 and y0 + 4 <= y <= y1 - 4 for x, y in centres)


def test_rollout_horizons_are_integers(frame):
    curves = plots.rollout_error_curves(frame)
    assert curves["horizon"].dtype == "int64" and list(curves.columns) == plots.ROLLOUT_COLUMNS
    assert plots.rollout_error_curves(frame.iloc[0:0])["horizon"].dtype == "int64"  # empty too
    assert set(curves["series"]) == {"GRU (ours)", "LSTM (ours)"}  # only our runs store rollouts
    ticks = texts(svg_tree(plots.rollout_svg(curves)), "x-tick")
    assert ticks and all(re.fullmatch(r"\d+", t) for t in ticks)


def test_the_pareto_plot_names_every_model(lines):
    points = plots.pareto(lines)
    assert list(points.columns) == plots.PARETO_COLUMNS
    assert list(points["label"]) == [f"{m} ({s})" for m, s in zip(points["model"], points["source"])]
    # ROTE's published Transformer is the encoder-decoder: it meets our transformer-ed's name
    assert {"GRU (ours)", "LSTM (ours)", "GRU (paper)", "TransformerEncDec (paper)"} <= set(points["label"])
    root = svg_tree(plots.pareto_svg(points))
    assert sorted(texts(root, "point-label")) == sorted(points["label"])
    front = [e for e in root.iter(f"{SVG}polyline") if e.get("class") == "joined"]
    assert len(front) == 1 and len(front[0].get("points").split()) == (points["pareto_front"] == "front").sum()


def test_radar_small_multiples_with_outlines(rows):
    from rote_hf.cogscale.tasks import TASKS

    both = plots.radar_data(rows, difficulty="small", source="both")
    assert set(both["source"]) == {"ours", "paper"}
    root = svg_tree(plots.radar_svg(both, title="small"))
    panels = [g for g in root.iter(f"{SVG}g") if g.get("class") == "radar-panel"]
    assert len(panels) == both["model"].nunique() == 7  # one panel per architecture
    for g in panels:
        outlines = [p for p in g.iter(f"{SVG}polygon") if p.get("class") == "radar-model"]
        filled = [p for p in outlines if p.get("fill") != "none"]
        assert len(filled) <= 1 and all(float(p.get("fill-opacity")) <= 0.2 for p in filled)  # a light fill at most
        assert all(p.get("stroke-width") == "2" for p in outlines)
        assert [p.get("stroke-dasharray") for p in outlines if "(paper)" in p.findtext(f"{SVG}title")] in ([], ["6 4"])
    assert [t.split(" ", 1)[1] for t in texts(root, "radar-task")] == list(TASKS)  # the key numbers all 14 tasks
    assert "paper: dashed outline" in texts(root, "radar-key")[0]
    long = svg_tree(plots.radar_svg(both, title=plots.radar_title("small", "both")))
    assert texts(long, "radar-title") == ["small", "accuracy = 1 - score at each model's best "
                                                   "(ours: best overall; paper: best published mean)"]  # fits: 2 lines
    with pytest.raises(ValueError):
        plots.radar_data(rows, difficulty="small", source="theirs")


def test_plots_of_no_rows_say_so():
    empty = pd.DataFrame(columns=plots.COMPLEXITY_COLUMNS)
    assert "no runs" in plots.complexity_svg(empty)
    assert "no runs" in plots.rollout_svg(pd.DataFrame(columns=plots.ROLLOUT_COLUMNS))
    assert "no runs" in plots.pareto_svg(pd.DataFrame(columns=plots.PARETO_COLUMNS))

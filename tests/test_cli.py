from tests.helpers import run_cli


def test_table1_reproduces_the_paper():
    out = run_cli("table1")
    assert out.returncode == 0, out.stderr
    for row in (
        "| 10 | 8 | 11.0 (10–18) | 3.0 (2–9) | 0 |",
        "| 30 | 8 | 42.0 (33–82) | 5.0 (4–12) | 0 |",
        "| 50 | 8 | 83.5 (65–171) | 6.0 (4–14) | 0 |",
        "| 70 | 8 | 127.5 (97–263) | 6.5 (4–16) | 0 |",
        "| 90 | 8 | 174.0 (127–365) | 7.0 (4–18) | 0 |",
    ):
        assert row in out.stdout


def test_seed_command_prints_the_seed_and_diagnostics():
    out = run_cli("seed", "-n", "4", "-c", "30", "--random-state", "3407")
    assert out.returncode == 0
    assert out.stdout.splitlines() == [
        "CBADADBCBDCCBDDCCBACBCAABCAACAABBDCBBDDADDCCABD",
        "length=47 complexity=30 exact=True r_star=5 alpha_100=0",
    ]


def test_bad_input_is_one_line_on_stderr_without_traceback(tmp_path):
    for args, needle in (
        (("seed", "-n", "53", "-c", "90"), "n_symbols must be in 1..52, got 53"),
        (("seed", "-n", "4", "-c", "3"), "complexity must be at least n_symbols"),
        (("seed", "-n", "four", "-c", "3"), "invalid int value"),
        (("build", "nope", "--root", str(tmp_path)), "invalid choice"),
    ):
        out = run_cli(*args)
        assert out.returncode == 2
        assert needle in out.stderr and "Traceback" not in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1


def test_help_everywhere():
    for args in (("--help",), ("build", "--help"), ("seed", "--help"), ("table1", "--help"), ("demo", "--help")):
        out = run_cli(*args)
        assert out.returncode == 0 and "usage: rote-hf" in out.stdout


def test_build_writes_the_mirror(tmp_path):
    out = run_cli("build", "rote-seeds", "--root", str(tmp_path), "--quiet")
    assert out.returncode == 0, out.stderr
    assert "paper: train 44" in out.stdout
    assert (tmp_path / "rote" / "rote-seeds" / "data" / "windows" / "test-00000-of-00001.parquet").is_file()

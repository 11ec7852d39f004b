"""Progress on stderr for long work (issue 41, item 5): the reporter's delay and throttle on
a fake clock, silence when not a terminal, under ``--quiet`` and in the API unless asked, and
outputs that are byte for byte the same with or without progress."""

from __future__ import annotations

import io
import sys
import time

import numpy as np
import pandas as pd
import pytest

from catembed import CDE, transform_file
from catembed._utils import _progress as progress_mod
from catembed._utils._progress import Progress, counted, echo, reporting, step
from catembed.cli import main


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _draws(text: str) -> list[str]:
    """The lines drawn on a terminal stream (carriage-return separated, blanks dropped)."""
    return [p.rstrip() for p in text.split("\r") if p.strip()]


# ---------------------------------------------------------------- the reporter
def test_delay_and_throttle_on_a_fake_clock():
    out, clock = Terminal(), Clock()
    p = Progress("catembed embed", stream=out, clock=clock, ticker=False, delay=1.0,
                 interval=0.5)
    assert p.enabled and p.live
    p.step("counting values", total=10, unit="rows")
    clock.now = 0.9
    p.update(2)
    assert out.getvalue() == ""  # nothing in the first second
    clock.now = 1.0
    p.update(1)
    assert _draws(out.getvalue()) == [
        "catembed embed: counting values: 3 of 10 rows (30%) (1 s)"]
    clock.now = 1.4
    p.update(1)
    p.tick()
    assert len(_draws(out.getvalue())) == 1  # throttled: 0.4 s after the last draw
    clock.now = 1.5
    p.tick()
    assert _draws(out.getvalue())[-1] == "catembed embed: counting values: 4 of 10 rows (40%) (2 s)"
    clock.now = 2.5
    p.step("fitting cde")  # a step that counts nothing: no count, its own seconds
    assert _draws(out.getvalue())[-1] == "catembed embed: fitting cde (0 s)"
    clock.now = 2.7
    p.step("embedding and writing", unit="rows")  # drawn at the next interval
    assert _draws(out.getvalue())[-1] == "catembed embed: fitting cde (0 s)"
    clock.now = 3.0
    p.update(1234567)
    assert _draws(out.getvalue())[-1] == (
        "catembed embed: embedding and writing: 1,234,567 rows (0 s)")
    n = len(out.getvalue())
    p.close()  # the line erased: spaces over it, the cursor back at the start
    assert out.getvalue()[n:] == "\r" + " " * len(_draws(out.getvalue())[-1]) + "\r"


def test_rows_give_the_total_of_a_counting_step():
    out, clock = Terminal(), Clock()
    p = Progress("x", stream=out, clock=clock, ticker=False, delay=0, interval=0)
    p.rows = 200
    p.step("counting values", unit="rows")
    p.update(50)
    assert _draws(out.getvalue())[-1] == "x: counting values: 50 of 200 rows (25%) (0 s)"
    p.step("fitting")  # not counting rows: no total
    assert _draws(out.getvalue())[-1] == "x: fitting (0 s)"


def test_a_shorter_line_covers_the_longer_one():
    out = Terminal()
    p = Progress("x", stream=out, clock=Clock(), ticker=False, delay=0, interval=0)
    p.step("a long step name")
    p.step("short")
    last = out.getvalue().rsplit("\r", 1)[-1]
    assert last.startswith("x: short (0 s)") and len(last) == len("x: a long step name (0 s)")


def test_not_a_terminal_draws_nothing_and_starts_no_thread():
    out = io.StringIO()
    with Progress("x", stream=out, delay=0, interval=0) as p:
        assert not p.enabled and p._thread is None
        p.step("counting", unit="rows")
        p.update(10)
        echo("a note", out)
    assert out.getvalue() == "a note\n"


def test_asked_for_on_a_log_whole_lines_per_step_and_throttled():
    out, clock = io.StringIO(), Clock()
    p = Progress("x", stream=out, enabled=True, clock=clock, ticker=False, delay=0)
    assert p.interval == progress_mod.LOG_INTERVAL
    p.step("counting", unit="rows")
    for _ in range(5):
        clock.now += 1
        p.update(1)
    assert out.getvalue() == "x: counting: 0 rows (0 s)\n"  # once per 10 s
    clock.now = 11
    p.update(1)
    p.step("fitting")  # a new step: its own line
    p.close()
    assert out.getvalue().splitlines() == ["x: counting: 0 rows (0 s)",
                                           "x: counting: 6 rows (11 s)", "x: fitting (0 s)"]
    assert "\r" not in out.getvalue()


def test_echo_erases_the_line_before_a_message():
    out = Terminal()
    with Progress("x", stream=out, clock=Clock(), ticker=False, delay=0, interval=0) as p:
        p.step("reading")
        echo("catembed: note: hello", out)
        assert out.getvalue().endswith("\r" + " " * len("x: reading (0 s)") + "\rcatembed: note: "
                                       "hello\n")
        p.tick()  # drawn again below the message
        assert out.getvalue().endswith("hello\n\rx: reading (0 s)")


def test_the_ticker_draws_a_step_that_counts_nothing():
    out = Terminal()
    with Progress("x", stream=out, delay=0, interval=0.05) as p:
        p.step("one long call")
        out_before = out.getvalue()
        for _ in range(200):  # at most 2 s; the thread draws every 0.05 s
            if out.getvalue() != out_before:
                break
            time.sleep(0.01)
    assert "x: one long call" in out.getvalue()
    assert p._thread is None  # stopped on exit


def test_without_a_reporter_the_hooks_do_nothing():
    assert progress_mod.active() is None
    step("anything", 10, "rows")
    chunks = [pd.DataFrame({"a": [1, 2]}), pd.DataFrame({"a": [3]})]
    assert list(counted(chunks, "counting")) is not None
    assert [len(c) for c in counted(chunks, "counting")] == [2, 1]
    with reporting(False) as p:
        assert p is None


# ---------------------------------------------------------------- the API
def _table(n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({f"a{j}": rng.choice(["x", "y", "z"], n) for j in range(4)})


def _chunks(df: pd.DataFrame):
    return lambda: (df.iloc[s : s + 100] for s in range(0, len(df), 100))


def test_fit_chunks_is_silent_unless_verbose(monkeypatch, capsys):
    monkeypatch.setattr(progress_mod, "DELAY", 0.0)
    df = _table()
    quiet = CDE(random_state=0).fit_chunks(_chunks(df))
    assert capsys.readouterr().err == ""
    loud = CDE(random_state=0).fit_chunks(_chunks(df), verbose=True)
    err = capsys.readouterr().err  # not a terminal: whole lines
    assert "CDE.fit_chunks: reading the first chunk" in err
    assert "CDE.fit_chunks: fitting CDE from the counts" in err
    np.testing.assert_array_equal(quiet.transform(df), loud.transform(df))


def test_fit_chunks_counts_rows_on_a_terminal(monkeypatch):
    monkeypatch.setattr(progress_mod, "DELAY", 0.0)
    monkeypatch.setattr(progress_mod, "INTERVAL", 0.0)
    out = Terminal()
    monkeypatch.setattr(sys, "stderr", out)
    CDE(random_state=0).fit_chunks(_chunks(_table()), verbose=True)
    draws = _draws(out.getvalue())
    assert any(d.startswith("CDE.fit_chunks: counting values: 400 rows") for d in draws)


def test_transform_file_is_silent_by_default(monkeypatch, tmp_path):
    monkeypatch.setattr(progress_mod, "DELAY", 0.0)
    monkeypatch.setattr(progress_mod, "INTERVAL", 0.0)
    out = Terminal()
    monkeypatch.setattr(sys, "stderr", out)
    df = _table()
    df.to_csv(tmp_path / "in.csv", index=False)
    est = CDE(random_state=0).fit(df)
    transform_file(est, tmp_path / "in.csv", tmp_path / "a.csv")
    assert out.getvalue() == ""
    transform_file(est, tmp_path / "in.csv", tmp_path / "b.csv", progress=True)
    assert "catembed transform_file: embedding and writing: 400 rows" in out.getvalue()
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


# ---------------------------------------------------------------- the command line
@pytest.fixture
def table_csv(tmp_path):
    rng = np.random.default_rng(1)
    n = 300
    df = pd.DataFrame({f"c{j}": rng.choice(["a", "b", "c", "d"], n) for j in range(5)})
    df["x"] = np.round(rng.normal(size=n), 3)
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    return path


def _run(argv: list[str], monkeypatch, terminal: bool) -> tuple[int, str, str]:
    """``main(argv)`` with stderr a terminal or not, progress drawn at once; (status,
    stdout, stderr)."""
    monkeypatch.setattr(progress_mod, "DELAY", 0.0)
    monkeypatch.setattr(progress_mod, "INTERVAL", 0.0)
    out, err = io.StringIO(), (Terminal() if terminal else io.StringIO())
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("extra", [[], ["--chunksize", "70"]], ids=["memory", "chunks"])
def test_embed_shows_progress_on_a_terminal_only(table_csv, tmp_path, monkeypatch, extra):
    base = ["embed", str(table_csv), "--numeric", "discretize", *extra]
    code, out, err = _run([*base, "-o", str(tmp_path / "tty.csv")], monkeypatch, True)
    assert code == 0
    draws = _draws(err)
    assert any(d.startswith("catembed embed: embedding and writing: 300 of 300 rows (100%)")
               for d in draws)
    if extra:  # per chunk, per pass
        assert any(d.startswith("catembed embed: counting values (pass 2 of 2): 70 of 300 rows")
                   for d in draws)
    else:
        assert "catembed embed: reading t.csv (0 s)" in draws
    assert err.endswith("\r")  # the line erased before the command ends
    assert out.startswith("catembed embed: cde on t: 300 rows")  # the summary, unchanged

    code, out_q, err_q = _run([*base, "-q", "-o", str(tmp_path / "quiet.csv")], monkeypatch,
                              True)
    assert (code, out_q, err_q) == (0, "", "")  # --quiet: nothing at all
    code, out_p, err_p = _run([*base, "-o", str(tmp_path / "pipe.csv")], monkeypatch, False)
    # not a terminal: no progress, only the one numeric-column note of the three commands
    assert code == 0 and "\r" not in out_p + err_p
    assert [ln.startswith("catembed: note: 1 numeric column(s) cut into 5 quantile bins")
            for ln in err_p.splitlines()] == [True]
    tty = (tmp_path / "tty.csv").read_bytes()
    assert tty == (tmp_path / "quiet.csv").read_bytes() == (tmp_path / "pipe.csv").read_bytes()

    # CSV on stdout: the same bytes with and without the progress line on stderr
    _, csv_tty, err_tty = _run(base, monkeypatch, True)
    _, csv_pipe, _ = _run(base, monkeypatch, False)
    assert csv_tty == csv_pipe and csv_tty.count("\n") == 301
    assert "embedding and writing" in err_tty


def test_notes_are_not_mixed_into_the_line(table_csv, tmp_path, monkeypatch):
    _, _, err = _run(["embed", str(table_csv), "-o", str(tmp_path / "o.csv")], monkeypatch,
                     True)
    notes = [line for line in err.split("\n") if "catembed: note:" in line]
    assert notes  # the numeric hint for column x
    for line in notes:  # erased before: the note starts at the line's start
        assert line.rsplit("\r", 1)[-1].startswith("catembed: note:")


def test_cluster_shows_its_steps(table_csv, tmp_path, monkeypatch):
    argv = ["cluster", str(table_csv), "-k", "2", "--members", "mca,idf"]
    code, out, err = _run([*argv, "-o", str(tmp_path / "a.csv")], monkeypatch, True)
    assert code == 0
    draws = _draws(err)
    for text in ("catembed cluster: reading t.csv", "catembed cluster: counting the values",
                 "catembed cluster: member 1 of 2 (mca): fit, 5 k-means runs",
                 "catembed cluster: member 2 of 2 (idf): fit, 5 k-means runs",
                 "catembed cluster: combining the members' runs", "catembed cluster: writing"):
        assert any(d.startswith(text) for d in draws), text
    code, out_q, err_q = _run([*argv, "-q", "-o", str(tmp_path / "b.csv")], monkeypatch, True)
    assert (code, out_q) == (0, "") and "\r" not in err_q
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_transform_shows_rows(table_csv, tmp_path, monkeypatch):
    model = tmp_path / "m.npz"
    assert _run(["embed", str(table_csv), "-q", "--save-model", str(model), "-o",
                 str(tmp_path / "e.csv")], monkeypatch, False)[0] == 0
    code, _, err = _run(["transform", str(model), str(table_csv), "-o",
                         str(tmp_path / "a.csv")], monkeypatch, True)
    assert code == 0
    assert any(d.startswith("catembed transform: embedding and writing: 300 rows")
               for d in _draws(err))
    code, _, err_q = _run(["transform", str(model), str(table_csv), "-q", "-o",
                           str(tmp_path / "b.csv")], monkeypatch, True)
    assert (code, err_q) == (0, "")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()

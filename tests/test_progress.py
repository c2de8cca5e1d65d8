"""The one progress display (answerkey.progress): a bar with elapsed time, rate and ETA, and an
elapsed-time line for steps that cannot count, on a terminal's standard error only."""

import io
import sys
import time

import pytest

from answerkey import progress as progress_module
from answerkey.cli import cli
from answerkey.progress import Activity, ProgressBar, clock_time, progress


class Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_bar_draws_count_rate_elapsed_and_eta(fake_terminal):
    """Drawn at once (0/N, elapsed only), then with the rate and ETA, and cleared at the end."""
    clock = Clock()
    with ProgressBar(300, "score", stream=fake_terminal, clock=clock) as bar:
        clock.now += 10
        bar.update(100)
        clock.now += 70
        bar.update(300)
    drawn = fake_terminal.text.split("\r")
    assert drawn[1].rstrip() == "score [                              ] 0/300  0:00 elapsed"
    assert drawn[2] == "score [##########                    ] 100/300  10/s  0:10 elapsed, ETA 0:20"
    assert drawn[3] == "score [##############################] 300/300  3.8/s  1:20 elapsed, ETA 0:00"
    assert drawn[4:] == [" " * len(drawn[3]), ""]


def test_bar_redraws_at_most_ten_times_a_second(fake_terminal):
    """Updates within 0.1 s of the last drawing are not drawn, but the last one is."""
    clock = Clock()
    bar = ProgressBar(500, "sql", stream=fake_terminal, clock=clock)
    for done in range(1, 500):
        bar.update(done)
    assert fake_terminal.text.count("\r") == 1  # the first drawing, 0/500
    bar.update(500)
    assert fake_terminal.text.count("\r") == 2
    assert "] 500/500" in fake_terminal.text


def test_a_long_line_is_wiped_by_a_shorter_one(fake_terminal):
    """A shorter redraw pads with spaces over what the longer one left."""
    clock = Clock()
    bar = ProgressBar(200, "sdmx", stream=fake_terminal, clock=clock)
    clock.now += 1000
    bar.update(10)  # a slow start: an ETA of hours
    clock.now += 1
    bar.update(200)
    first, second = fake_terminal.text.split("\r")[2:4]
    assert first == "sdmx [#                             ] 10/200  0.0/s  16:40 elapsed, ETA 5:16:40"
    assert second == "sdmx [##############################] 200/200  0.2/s  16:41 elapsed, ETA 0:00" + " " * 2
    assert len(second) == len(first)


@pytest.mark.parametrize(
    ("seconds", "shown"), [(0, "0:00"), (59.9, "0:59"), (61, "1:01"), (3600, "1:00:00"), (90061, "25:01:01")]
)
def test_clock_time(seconds, shown):
    """Durations read as a clock: m:ss below an hour, then h:mm:ss."""
    assert clock_time(seconds) == shown


def test_nothing_is_drawn_when_not_a_terminal_or_quiet(fake_terminal):
    """A stream that is no terminal gets nothing, nor a terminal with quiet; items pass through."""
    plain = io.StringIO()
    assert list(progress(range(300), total=300, label="score", stream=plain)) == list(range(300))
    assert list(progress(range(300), total=300, label="score", stream=fake_terminal, quiet=True)) == list(range(300))
    with Activity("reading", stream=plain, delay=0, interval=0.01) as activity:
        time.sleep(0.05)
    assert (plain.getvalue(), fake_terminal.text, activity.shown) == ("", "", False)


def test_below_the_threshold_nothing_is_drawn(fake_terminal):
    """A run shorter than its threshold finishes before a bar would help."""
    assert list(progress(range(5), total=5, label="answers", stream=fake_terminal, threshold=6)) == list(range(5))
    assert fake_terminal.text == ""
    list(progress(range(6), total=6, label="answers", stream=fake_terminal, threshold=6))
    assert "answers [##############################] 6/6" in fake_terminal.text


def test_activity_draws_elapsed_time_until_stopped(fake_terminal):
    """From its delay on, `label... m:ss elapsed`, redrawn; stopping clears the line."""
    activity = Activity("answerkey score: reading the inputs", stream=fake_terminal, delay=0, interval=0.01)
    with activity:
        deadline = time.monotonic() + 5
        while fake_terminal.text.count("\r") < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    drawn = fake_terminal.text.split("\r")
    assert drawn[1] == "answerkey score: reading the inputs... 0:00 elapsed"
    assert drawn[-2:] == [" " * len(drawn[1]), ""]
    text = fake_terminal.text
    time.sleep(0.05)
    assert fake_terminal.text == text  # stopped: nothing more


def test_activity_waits_for_its_delay(fake_terminal):
    """A step quicker than the delay shows nothing."""
    with Activity("reading", stream=fake_terminal, delay=5, interval=0.01):
        time.sleep(0.05)
    assert fake_terminal.text == ""


def test_a_bar_replaces_the_activity(fake_terminal):
    """A bar starting stops the activity being drawn: the two never interleave."""
    activity = Activity("reading", stream=fake_terminal, delay=0, interval=0.01).start()
    deadline = time.monotonic() + 5
    while "reading..." not in fake_terminal.text and time.monotonic() < deadline:
        time.sleep(0.01)
    bar = ProgressBar(300, "score", stream=fake_terminal)
    after = fake_terminal.text.split("score [")[1]
    time.sleep(0.05)
    bar.close()
    assert "reading" not in after and "reading" not in fake_terminal.text.split("score [")[-1]
    assert activity._thread is None


def test_a_run_too_short_for_a_bar_still_ends_the_activity(fake_terminal):
    """The run has begun when its (undrawn) bar is made: the reading line is cleared all the same."""
    activity = Activity("reading", stream=fake_terminal, delay=0, interval=0.01).start()
    deadline = time.monotonic() + 5
    while "reading..." not in fake_terminal.text and time.monotonic() < deadline:
        time.sleep(0.01)
    assert list(progress(range(3), total=3, label="score", stream=fake_terminal)) == [0, 1, 2]
    assert activity._thread is None and fake_terminal.text.endswith("\r")
    assert "score [" not in fake_terminal.text


@pytest.mark.parametrize(("quiet", "drawn"), [(False, True), (True, False)])
def test_a_command_shows_that_it_is_reading_its_inputs(monkeypatch, fake_terminal, quiet, drawn):
    """While a command reads its inputs (seconds for a large corpus), a terminal shows how long
    it has been at it, unless -q; the line is cleared before the summary and the warnings."""
    from answerkey.cli import score as score_command

    real_load = score_command.load_corpus

    def slow_load(*args, **kwargs):
        time.sleep(0.3)
        return real_load(*args, **kwargs)

    monkeypatch.setattr(score_command, "load_corpus", slow_load)
    monkeypatch.setattr(progress_module, "ACTIVITY_DELAY", 0)
    monkeypatch.setattr(progress_module, "ACTIVITY_INTERVAL", 0.05)
    monkeypatch.setattr(sys, "stderr", fake_terminal)
    with pytest.raises(SystemExit) as end:
        cli.main(
            [
                "score",
                "examples/personnel/corpus.yaml",
                "examples/personnel/answers.jsonl",
                "--json",
                "/dev/null",
                *(["-q"] if quiet else []),
            ],
            prog_name="answerkey",
        )
    assert end.value.code == 0
    line = "answerkey score: reading the inputs... 0:00 elapsed"
    assert (line in fake_terminal.text) is drawn
    if drawn:  # cleared, then the warning on a line of its own
        assert f"\r{' ' * len(line)}\rwarning: " in fake_terminal.text


def test_a_command_ending_in_error_clears_the_line_first(monkeypatch, fake_terminal, tmp_path):
    """An input error while the line is shown: cleared, then the one-line error."""
    from answerkey.cli import score as score_command

    corpus = tmp_path / "corpus.yaml"
    corpus.write_text("- {id: q1, answer: '((1))'}\n", encoding="utf-8")
    monkeypatch.setattr(progress_module, "ACTIVITY_DELAY", 0)
    monkeypatch.setattr(progress_module, "ACTIVITY_INTERVAL", 0.05)
    monkeypatch.setattr(sys, "stderr", fake_terminal)
    real_load = score_command.load_corpus

    def slow_then_real(*args, **kwargs):
        time.sleep(0.2)
        return real_load(*args, **kwargs)

    monkeypatch.setattr(score_command, "load_corpus", slow_then_real)
    with pytest.raises(SystemExit) as end:
        cli.main(["score", str(corpus), str(tmp_path / "missing.jsonl")], prog_name="answerkey")
    assert end.value.code == 2
    text = fake_terminal.text
    assert "reading the inputs... 0:00 elapsed" in text
    cleared = text.rindex("\r")
    assert "missing.jsonl" in text[cleared:] and "elapsed" not in text[cleared:]

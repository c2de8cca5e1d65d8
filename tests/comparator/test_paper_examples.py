"""`answerkey judge` on the paper's examples in examples/paper gives the paper's verdicts."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from answerkey.cli import cli

PAPER = Path(__file__).resolve().parents[2] / "examples" / "paper"


@pytest.mark.parametrize(
    "canonical, system, options, exit_code",
    [
        ("salary.cas", "salary-system.cas", [], 0),  # S-9: 53198.8 is within 5.32
        ("salary.cas", "salary-system-wrong.cas", [], 1),  # S-9: 53190.9 is not
        ("employees.cas", "employees-system.cas", [], 0),  # S-10: extra fields, any order
        ("clerk.cas", "clerk-system.cas", [], 0),  # 3.1: FALSE and ((false)) are the same answer
        ("clerk.cas", "clerk-loophole.cas", [], 1),  # 3.4: the loophole, closed by the ATIS rule
        ("clerk.cas", "clerk-loophole.cas", ["--scalars", "h89"], 0),  # ... and open in the 1989 reading
    ],
)
def test_paper_examples(canonical, system, options, exit_code):
    """Each bundled example pair gets the verdict the paper gives it."""
    result = CliRunner().invoke(cli, ["judge", *options, str(PAPER / canonical), str(PAPER / system)])
    assert result.exit_code == exit_code
    assert result.stdout == ("correct\n" if exit_code == 0 else "incorrect\n")

"""Every bound on input is documented where users look (the docs' Limits section), with the
option that sets it."""

from answerkey.limits import LIMITS


def test_every_limit_is_listed_in_the_docs(repo_root):
    """The list of docs/reports.md's Limits section holds each entry of answerkey.limits.LIMITS
    once, as it describes itself, and nothing else: none missing, none stale."""
    page = (repo_root / "docs" / "reports.md").read_text(encoding="utf-8")
    section = page.split("## Limits and hostile input", 1)[1].split("\n## ", 1)[0]
    listed = [line.removeprefix("- ") for line in section.splitlines() if line.startswith("- ")]
    assert sorted(listed) == sorted(limit.describe() for limit in LIMITS.values())


def test_limits_with_an_option_name_it():
    """A limit users may need to raise says which option (or argument) raises it."""
    described = {name: limit.describe() for name, limit in LIMITS.items()}
    assert "--max-chars" in described["cli_cas_chars"]
    assert "--timeout" in described["sql_timeout"] and "--max-result-bytes" in described["sql_bytes"]

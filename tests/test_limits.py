"""Every bound on input is documented where users look (the docs' Limits section), with the
option that sets it."""

from answerkey.limits import LIMITS


def test_every_limit_is_listed_in_the_docs(repo_root):
    """Each entry of answerkey.limits.LIMITS appears in docs/reports.md as it describes itself."""
    page = (repo_root / "docs" / "reports.md").read_text(encoding="utf-8")
    section = page.split("## Limits and hostile input", 1)[1].split("\n## ", 1)[0]
    for name, limit in LIMITS.items():
        assert f"- {limit.describe()}\n" in section, name


def test_limits_with_an_option_name_it():
    """A limit users may need to raise says which option (or argument) raises it."""
    described = {name: limit.describe() for name, limit in LIMITS.items()}
    assert "--max-chars" in described["cli_cas_chars"]
    assert "--timeout" in described["sql_timeout"] and "--max-result-bytes" in described["sql_bytes"]

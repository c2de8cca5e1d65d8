"""row_recall: the share of the target's distinct rows that the prediction holds, each cell
matched under the run's rule (reals within epsilon), columns in the target's order."""

from answerkey.comparator import MatchRule
from answerkey.metrics import register
from answerkey.metrics.table import DEFAULT_RULE, Table, table_rows


@register("row_recall", kind="table", needs=(), default_in=())
def row_recall(target: Table, prediction: Table, *, rule: MatchRule | None = None) -> float:
    """Share of the target's distinct rows found, cell for cell, among the prediction's rows
    (1.0 when neither table has rows, 0.0 when only the prediction has some)."""
    rule = rule or DEFAULT_RULE
    wanted = set(table_rows(target))
    found = table_rows(prediction)
    if not wanted:
        return 0.0 if found else 1.0

    def holds(row: tuple) -> bool:
        return any(len(other) == len(row) and all(map(rule.match, row, other)) for other in found)

    return sum(map(holds, wanted)) / len(wanted)

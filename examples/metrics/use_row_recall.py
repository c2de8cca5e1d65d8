"""row_recall from Python: importing its module registers it; then it is a metric like the others."""

from row_recall import row_recall

from answerkey.metrics import metrics_for, table_scores
from answerkey.score import ScoreOptions, load_answers, load_corpus, run_score

print(row_recall([["ADAMS", 40000], ["BAKER", 40000.0]], [["ADAMS", 40000]]))
print(table_scores([["a"], ["b"]], [["a"], ["c"]], metrics=["cell_recall", "row_recall"]))
print("row_recall" in metrics_for("sql"))
run = run_score(
    load_corpus("examples/personnel/corpus.yaml"),
    load_answers("examples/personnel/answers.jsonl"),
    ScoreOptions(metrics=("cell_recall", "row_recall")),
)
print(run.summary.metrics)

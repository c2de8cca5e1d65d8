"""test-suite-sql-eval's ``--plug_value`` in a run: the prediction as written and the
predictions made with the gold's values (``RewrittenPair.alternatives``), one of which must be
correct on every database (``exec_eval.py`` lines 203-242 at commit e97acc5).

The official script takes the predictions one by one and runs each on every database until
it fails; here the databases are taken one by one (as every other semantics of the item is
decided) and on each the predictions still correct so far are run, in order: the item is
correct under the same condition. On the last database the first correct one ends the search.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import replace

from answerkey.execution.semantics import Decision
from answerkey.execution.semantics._base import RewrittenPair
from answerkey.limits import MAX_PLUGGED_PREDICTIONS


def plugged_decision(
    as_written: Decision,
    pair: RewrittenPair,
    alive: MutableMapping[str, Sequence[int]],
    last: bool,
    run: Callable[..., object],
) -> Decision:
    """The decision of ``pair``'s semantics on one database under ``--plug_value``.

    ``as_written`` is the decision of the prediction as written (rank 0), ``alive`` maps the
    semantics to the ranks of the predictions correct on every database so far (0 for the
    prediction as written, ``k`` for ``pair.alternatives[k - 1]``), updated here; ``run(
    plugged=sql)`` decides one alternative on this database. Correct when one of them still
    is, with its reason and which prediction it was."""
    name = pair.semantics.name
    kept: list[int] = []
    reasons: dict[int, str] = {}
    for rank in alive[name]:
        if rank == 0:
            decision: object = as_written
        else:
            decision = run(plugged=pair.alternatives[rank - 1])
        if isinstance(decision, Decision) and decision.correct:
            kept.append(rank)
            reasons[rank] = decision.reason
            if last:
                break
    alive[name] = kept
    tried = _tried(pair)
    if not kept:
        if as_written.correct:  # correct here, but not on a database before
            why = f"the prediction as written is incorrect on an earlier database, and none of {tried} is correct"
        else:
            why = f"{as_written.reason}; and none of {tried} is correct"
        return replace(as_written, correct=False, reason=why)
    first = kept[0]
    if first == 0:
        return as_written
    sql = pair.alternatives[first - 1]
    which = f"prediction {first:,} of {len(pair.alternatives):,} with the gold's values plugged in"
    return replace(as_written, correct=True, reason=f"{reasons[first]}; {which}: {sql}")


def _tried(pair: RewrittenPair) -> str:
    made = len(pair.alternatives)
    if made == 1:
        return "the 1 prediction with the gold's values plugged in"
    if pair.plugged > made:
        shown = f"{pair.plugged:,}" if pair.plugged < 2**64 else f"more than {MAX_PLUGGED_PREDICTIONS:,}"
        return f"the first {made:,} of the {shown} predictions with the gold's values plugged in"
    return f"the {made:,} predictions with the gold's values plugged in"

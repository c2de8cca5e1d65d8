"""ordered_map: results in input order, workers forked with the parent's objects frozen."""

import gc
import multiprocessing
import operator

import pytest

from answerkey.parallel import batched, ordered_map, shared


def test_results_come_in_input_order_whatever_the_jobs():
    items = list(range(50))
    assert list(ordered_map(abs, [-i for i in items], jobs=2)) == items
    assert list(ordered_map(abs, [-i for i in items], jobs=1)) == items


def test_jobs_must_be_positive():
    with pytest.raises(ValueError, match="jobs must be at least 1"):
        list(ordered_map(abs, [1], jobs=0))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork here")
def test_forked_workers_see_the_parents_objects_frozen_and_the_parent_unfreezes():
    assert gc.get_freeze_count() == 0
    counts = list(ordered_map(operator.call, [gc.get_freeze_count] * 4, jobs=2))
    assert all(count > 0 for count in counts)
    assert gc.get_freeze_count() == 0
    assert gc.isenabled()


def test_batched():
    assert list(batched(range(5), 2)) == [[0, 1], [2, 3], [4]]


def shared_item(index: int) -> str:
    return shared()[index]


@pytest.mark.parametrize("jobs", [1, 2])
def test_shared_value_reaches_every_worker_once_and_items_index_it(jobs):
    letters = list("abcdefgh")
    assert list(ordered_map(shared_item, range(8), jobs=jobs, shared=letters)) == letters
    assert shared() is None

"""Execution rewards for a GRPO-style loop: many sampled queries per question, one judge.

Run it on a directory of Spider-layout databases (the bundled example has two):

    python examples/rewards/grpo_loop.py examples/sql/spider/database

The policy is a stand-in here (a fixed list of samples per question); in training it is the
model, and the advantages go into the policy's loss.
"""

import statistics
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

from answerkey.execution import ExecutionJudge

# (db_id, gold SQL) of each question, and what the policy sampled for it.
QUESTIONS = [
    ("concert_singer", "SELECT count(*) FROM singer"),
    ("concert_singer", "SELECT name FROM singer WHERE age > 40"),
    ("pets_1", "SELECT pettype, max(weight) FROM pets GROUP BY pettype"),
]
SAMPLES = [
    [
        "SELECT count(*) FROM singer",
        "SELECT count(name) FROM singer",
        "SELECT count(*) FROM concert",
        "DROP TABLE singer",
    ],
    [
        "SELECT name FROM singer WHERE age > 40",
        "SELECT name FROM singer WHERE age >= 40",
        "SELECT DISTINCT name FROM singer WHERE NOT age <= 40",
        "SELECT nam FROM singer",
    ],
    [
        "SELECT pettype, max(weight) FROM pets GROUP BY pettype",
        "SELECT max(weight), pettype FROM pets GROUP BY pettype",
        "SELECT pettype, max(weight) FROM pets GROUP BY pettype ORDER BY 1",
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n",
    ],
]


# What a step judges: each question with its samples.
TASKS = [(db_id, gold, samples) for (db_id, gold), samples in zip(QUESTIONS, SAMPLES)]


def advantages(rewards: list[float]) -> list[float]:
    """GRPO's group-relative advantage: each reward against the mean of its group."""
    mean = statistics.fmean(rewards)
    spread = statistics.pstdev(rewards) or 1.0
    return [round((reward - mean) / spread, 3) for reward in rewards]


def training_step(judge: ExecutionJudge) -> list[list[float]]:
    """One step: the rewards of every question's samples (in training: sampled anew each step)."""
    return [judge.rewards(db_id, gold, samples) for db_id, gold, samples in TASKS]


def reward_function(judge: ExecutionJudge) -> Callable[..., list[float]]:
    """A reward function of the form trainers call (TRL's GRPOTrainer): the completions, and
    the dataset's columns as keywords, one value per completion (here ``db_id`` and
    ``gold_sql``). A completion is taken to be the SQL itself; extract it first if not.
    ``judge_all`` judges the completions of each question together (one message each)."""

    def execution_reward(completions: list[str], db_id: list[str], gold_sql: list[str], **_: object) -> list[float]:
        return [judgement.reward for judgement in judge.judge_all(zip(db_id, gold_sql, completions))]

    return execution_reward


# Each worker process's judge, made once by the pool's initializer.
WORKER: dict[str, ExecutionJudge] = {}


def _start_worker(root: str) -> None:
    WORKER["judge"] = ExecutionJudge(root, semantics="bird", timeout=0.5)


def _rewards_here(task: tuple[str, str, list[str]]) -> list[float]:
    return WORKER["judge"].rewards(*task)


def rewards_in_processes(root: str, workers: int = 2) -> list[list[float]]:
    """The same rewards, the questions spread over worker processes (each with its judge)."""
    with ProcessPoolExecutor(workers, initializer=_start_worker, initargs=(root,)) as pool:
        return list(pool.map(_rewards_here, TASKS))


def rewards_in_threads(judge: ExecutionJudge, workers: int = 4) -> list[list[float]]:
    """The same rewards, the questions judged by threads sharing one judge."""
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda task: judge.rewards(*task), TASKS))


def main(root: str) -> None:
    # timeout=0.5: a sample that runs away (the recursive CTE) costs half a second, not thirty.
    with ExecutionJudge(root, semantics="bird", timeout=0.5) as judge:
        for step in range(2):
            rewards = training_step(judge)
            print(f"step {step}: rewards {rewards}")
            print(f"  advantages {[advantages(group) for group in rewards]}")
        print(judge.judge(*QUESTIONS[0], SAMPLES[0][3]))
        print(judge.judge(*QUESTIONS[2], SAMPLES[2][3]))
        print(f"gold queries run {judge.gold_runs}, found in memory {judge.gold_hits}")
        assert rewards_in_threads(judge) == rewards
        reward = reward_function(judge)
        db_id, gold = QUESTIONS[1]
        assert reward(SAMPLES[1], db_id=[db_id] * 4, gold_sql=[gold] * 4) == rewards[1]
    assert rewards_in_processes(root) == rewards
    print("threads and processes agree")


if __name__ == "__main__":
    main(sys.argv[1])

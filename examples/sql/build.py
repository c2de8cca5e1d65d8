"""Build the ``answerkey sql`` examples: small SQLite databases and the gold and predicted SQL
of a Spider-layout and a BIRD-layout run, each case chosen to show where the comparison rules
of the benchmarks disagree.

    python examples/sql/build.py        # rewrites every file below examples/sql/

The databases are committed (a fresh clone runs the README's examples as they are); this
script is how they were made, and remakes them byte for byte from the same SQLite version.

Spider layout (test-suite-sql-eval's files): ``spider/gold.sql`` (``SQL<TAB>db_id`` lines),
``spider/pred.sql`` (one SQL per line), ``spider/database/<db_id>/<db_id>.sqlite``.
``concert_singer`` is a test suite: two more databases beside the first, as
test-suite-sql-eval's distilled suites have, on which a prediction that is right by chance
on the first fails.

BIRD layout: ``bird/dev.json`` (questions with ``SQL`` and ``difficulty``),
``bird/predict_dev.json`` (position -> ``SQL\\t----- bird -----\\tdb_id``),
``bird/dev_databases/<db_id>/<db_id>.sqlite``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

HERE = Path(__file__).resolve().parent

SINGER_SCHEMA = """
CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER, net_worth REAL);
CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, concert_name TEXT, year INTEGER);
CREATE TABLE singer_in_concert (concert_id INTEGER, singer_id INTEGER);
"""
# The first database of the suite, then two more: the same schema, other rows.
SINGERS = [
    [
        (1, "Joe Sharp", "Netherlands", 52, 30.5),
        (2, "Timbaland", "United States", 32, 12.25),
        (3, "Justin Brown", "France", 29, None),
        (4, "Rose White", "France", 41, 8.1),
        (5, "John Nizinik", "France", 43, 20.0),
        (6, "Tribal King", "France", 25, 3.333),
        (7, "Joe Sharp", "United States", 32, 5.5),
        (8, "Ann Lee", "Japan", None, 1.0),
    ],
    [
        (1, "Mia Torres", "France", 33, 4.25),
        (2, "Ken Ito", "Japan", 45, 2.5),
        (3, "Lea Roux", "France", 48, None),
        (4, "Tom Baker", "United States", 38, 9.75),
        (5, "Tom Baker", "United States", 21, 1.5),
    ],
    [
        (1, "Ava Stone", "Netherlands", 61, 15.0),
        (2, "Luc Martin", "France", 27, 6.125),
        (3, "Eve Adams", "France", 27, 2.0),
        (4, "Sam Reed", "United States", 36, None),
    ],
]
CONCERTS = [(1, "Auditions", 2014), (2, "Super bootcamp", 2014), (3, "Home Visits", 2015)]
SINGER_IN_CONCERT = [(1, 2), (1, 3), (2, 1), (3, 4), (3, 7)]

PETS_SCHEMA = "CREATE TABLE pets (petid INTEGER PRIMARY KEY, pettype TEXT, pet_age INTEGER, weight REAL);"
PETS = [(2001, "cat", 3, 12.0), (2002, "dog", 2, 13.4), (2003, "dog", 1, 9.3), (2004, "cat", 5, 8.85)]

# (gold SQL, db_id, predicted SQL, what the case shows).
SPIDER_CASES = [
    ("SELECT count(*) FROM singer", "concert_singer", "SELECT count(*) FROM singer", "the same query"),
    (
        "SELECT country FROM singer WHERE age > 30",
        "concert_singer",
        "SELECT DISTINCT country FROM singer WHERE age > 30",
        "duplicate rows: a set (answerkey, BIRD) against a bag (test-suite with --test-suite-keep-distinct)",
    ),
    (
        "SELECT name FROM singer WHERE country = 'France' AND age > 40",
        "concert_singer",
        "SELECT name, age FROM singer WHERE country = 'France' AND age > 40",
        "an extra column: allowed by answerkey and Spider 2.0, not by test-suite or BIRD",
    ),
    (
        "SELECT avg(net_worth) FROM singer WHERE country = 'France'",
        "concert_singer",
        "SELECT round(avg(net_worth), 4) FROM singer WHERE country = 'France'",
        "reals: within answerkey's relative epsilon, unequal floats for test-suite and BIRD",
    ),
    (
        "SELECT name, net_worth FROM singer WHERE country = 'France' ORDER BY net_worth",
        "concert_singer",
        "SELECT name, net_worth FROM singer WHERE country = 'France' ORDER BY net_worth IS NULL, net_worth",
        "NULLs: sorted first by SQLite, last as PostgreSQL sorts them",
    ),
    (
        "SELECT name, age FROM singer WHERE age < 35 ORDER BY age DESC",
        "concert_singer",
        "SELECT name, age FROM singer WHERE age < 35 ORDER BY age DESC, name",
        "ties under ORDER BY: tied rows in another order",
    ),
    (
        "SELECT name FROM singer WHERE age > 40",
        "concert_singer",
        "SELECT name FROM singer WHERE age > 40 AND country != 'Japan'",
        "right by chance on the first database, wrong on concert_singer2.sqlite",
    ),
    (
        "SELECT name, age FROM singer WHERE country = 'Japan'",
        "concert_singer",
        "SELECT name, ifnull(age, 0) FROM singer WHERE country = 'Japan'",
        "NULLs: a missing age is not 0",
    ),
    (
        "SELECT name FROM singer WHERE singer_id = 1",
        "concert_singer",
        "SELECT nam FROM singer WHERE singer_id = 1",
        "a predicted query that fails",
    ),
    (
        "SELECT count(*) FROM concert",
        "concert_singer",
        "DROP TABLE concert",
        "a predicted query that tries to change the database: refused, the database unchanged",
    ),
    (
        "SELECT max(weight), pettype FROM pets GROUP BY pettype",
        "pets_1",
        "SELECT pettype, max(weight) FROM pets GROUP BY pettype",
        "columns in another order: allowed by answerkey, test-suite and Spider 2.0, not by BIRD",
    ),
    (
        "SELECT avg(pet_age) FROM pets",
        "pets_1",
        "SELECT avg(pet_age) FROM pets WHERE pettype = 'dog'",
        "a wrong prediction",
    ),
]

SCHOOL_SCHEMA = """
CREATE TABLE schools (
    cds_code TEXT PRIMARY KEY, name TEXT, county TEXT, enrollment INTEGER,
    free_meal_ratio REAL, charter INTEGER
);
"""
SCHOOLS = [
    ("01100170109835", "FAME Public Charter", "Alameda", 1034, 0.5921, 1),
    ("01100170112607", "Envision Academy", "Alameda", 420, 0.6637, 1),
    ("01316170131763", "Oakland High", "Alameda", 1710, 0.7124, 0),
    ("10621171030071", "Fresno Central", "Fresno", 880, 0.8412, 0),
    ("10621171030089", "Fresno West", "Fresno", 880, 0.7731, None),
    ("10621171030097", "Sunnyside", "Fresno", 655, 0.9118, 0),
    ("19647331932037", "Los Angeles Tech", "Los Angeles", 2310, 0.6045, None),
]

# (question, evidence, gold SQL, difficulty, predicted SQL or None (no prediction), add BIRD's separator).
BIRD_CASES = [
    (
        "How many schools are in Alameda county?",
        "",
        "SELECT count(*) FROM schools WHERE county = 'Alameda'",
        "simple",
        "SELECT count(*) FROM schools WHERE county = 'Alameda'",
        True,
    ),
    (
        "Which counties have schools with more than 500 students?",
        "",
        "SELECT county FROM schools WHERE enrollment > 500",
        "simple",
        "SELECT DISTINCT county FROM schools WHERE enrollment > 500",
        True,
    ),
    (
        "Name the charter schools.",
        "charter schools refers to charter = 1",
        "SELECT name FROM schools WHERE charter = 1",
        "moderate",
        "SELECT name, county FROM schools WHERE charter = 1",
        True,
    ),
    (
        "What is the average free meal percentage of Fresno's schools?",
        "percentage = free_meal_ratio * 100",
        "SELECT avg(free_meal_ratio) * 100 FROM schools WHERE county = 'Fresno'",
        "moderate",
        "SELECT round(avg(free_meal_ratio) * 100, 2) FROM schools WHERE county = 'Fresno'",
        True,
    ),
    (
        "Which schools do not say whether they are charter schools?",
        "",
        "SELECT name FROM schools WHERE charter IS NULL",
        "challenging",
        "SELECT name FROM schools WHERE charter = NULL",
        True,
    ),
    (
        "List Fresno's schools and their enrollment, largest first.",
        "",
        "SELECT name, enrollment FROM schools WHERE county = 'Fresno' ORDER BY enrollment DESC",
        "challenging",
        "SELECT name, enrollment FROM schools WHERE county = 'Fresno' ORDER BY enrollment DESC, name DESC",
        True,
    ),
    (
        "How many schools are there?",
        "",
        "SELECT count(*) FROM schools",
        "simple",
        "SELECT count(*) FROM schools",
        False,
    ),
    (
        "Which schools have more than 1000 students?",
        "",
        "SELECT name FROM schools WHERE enrollment > 1000",
        "moderate",
        "SELECT name FROM schools WHERE enrollment > 100",
        True,
    ),
]


def build_database(path: Path, schema: str, rows: dict[str, list[tuple]]) -> None:
    """A new SQLite file at ``path`` with ``schema`` and ``rows`` per table."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as db:
        db.executescript(schema)
        for table, values in rows.items():
            marks = ", ".join("?" * len(values[0]))
            db.executemany(f"INSERT INTO {table} VALUES ({marks})", values)
    db.close()


def build_spider(root: Path) -> None:
    database = root / "database"
    for number, singers in enumerate(SINGERS, start=1):
        name = "concert_singer.sqlite" if number == 1 else f"concert_singer{number}.sqlite"
        build_database(
            database / "concert_singer" / name,
            SINGER_SCHEMA,
            {"singer": singers, "concert": CONCERTS, "singer_in_concert": SINGER_IN_CONCERT},
        )
    build_database(database / "pets_1" / "pets_1.sqlite", PETS_SCHEMA, {"pets": PETS})
    (root / "gold.sql").write_text("".join(f"{gold}\t{db_id}\n" for gold, db_id, _, _ in SPIDER_CASES))
    (root / "pred.sql").write_text("".join(f"{predicted}\n" for _, _, predicted, _ in SPIDER_CASES))


def build_bird(root: Path) -> None:
    build_database(
        root / "dev_databases" / "school_finance" / "school_finance.sqlite", SCHOOL_SCHEMA, {"schools": SCHOOLS}
    )
    questions = [
        {
            "question_id": number,
            "db_id": "school_finance",
            "question": question,
            "evidence": evidence,
            "SQL": gold,
            "difficulty": difficulty,
        }
        for number, (question, evidence, gold, difficulty, _, _) in enumerate(BIRD_CASES)
    ]
    predictions = {
        str(number): (f"{predicted}\t----- bird -----\tschool_finance" if separated else predicted)
        for number, (_, _, _, _, predicted, separated) in enumerate(BIRD_CASES)
    }
    (root / "dev.json").write_text(json.dumps(questions, indent=4) + "\n")
    (root / "predict_dev.json").write_text(json.dumps(predictions, indent=4) + "\n")


if __name__ == "__main__":
    build_spider(HERE / "spider")
    build_bird(HERE / "bird")

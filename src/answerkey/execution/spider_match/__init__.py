"""Spider's exact-set-match and hardness, as test-suite-sql-eval's ``evaluation.py --etype match``.

A faithful reimplementation (commit e97acc54 of taoyds/test-suite-sql-eval; docs/sql.md cites
the line of each rule): the official tokenisation, the official parse against the database's
schema, values and DISTINCT dropped, foreign keys from Spider's ``tables.json`` followed, the
ten components and the official table per hardness level, with the official quirks.

>>> schema = SpiderSchema({"singer": ["singer_id", "name", "age"]})
>>> item = match_item("SELECT count(*) FROM singer", "select COUNT(*) from SINGER", schema, {})
>>> item.hardness, item.exact
('easy', True)
"""

from answerkey.execution.spider_match._item import (
    ItemMatch,
    match_item,
    read_foreign_keys as read_foreign_keys,
    schema_of_sqlite as schema_of_sqlite,
)
from answerkey.execution.spider_match._match import (
    COMPONENTS as COMPONENTS,
    HARDNESS_LEVELS as HARDNESS_LEVELS,
    ComponentScore as ComponentScore,
    hardness,
)
from answerkey.execution.spider_match._parse import (
    SpiderParseError as SpiderParseError,
    SpiderSchema,
    parse_query as parse_query,
)
from answerkey.execution.spider_match._table import (
    LEVELS as LEVELS,
    TURNS as TURNS,
    ComponentFigures as ComponentFigures,
    LevelFigures as LevelFigures,
    SpiderTable as SpiderTable,
    TableRow as TableRow,
    turn_name as turn_name,
)
from answerkey.execution.spider_match._tokens import tokenize as tokenize

# The documented surface; the other names above are the parts ``answerkey.execution.official``
# builds the table from, importable here but not promised.
__all__ = ["SpiderSchema", "match_item", "ItemMatch", "hardness"]

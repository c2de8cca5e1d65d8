-- The database of the examples: build databases/uk/uk.sqlite with
--   sqlite3 databases/uk/uk.sqlite < uk.sql
CREATE TABLE country (name TEXT PRIMARY KEY, capital TEXT, population INTEGER, area_km2 REAL);
INSERT INTO country VALUES
    ('England', 'London', 56536000, 130279.0),
    ('Scotland', 'Edinburgh', 5463300, 77910.0),
    ('Wales', 'Cardiff', 3152900, 20779.0),
    ('Northern Ireland', 'Belfast', 1895500, 14130.0);
CREATE TABLE city (name TEXT, country TEXT, population INTEGER);
INSERT INTO city VALUES
    ('London', 'England', 8866000),
    ('Birmingham', 'England', 1145000),
    ('Glasgow', 'Scotland', 632350),
    ('Edinburgh', 'Scotland', 526470),
    ('Aberdeen', 'Scotland', 198590),
    ('Cardiff', 'Wales', 372089),
    ('Swansea', 'Wales', 246466),
    ('Belfast', 'Northern Ireland', 345418);

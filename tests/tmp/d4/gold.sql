SELECT name FROM p	shop
SELECT name FROM p WHERE name = 'Ann'	shop

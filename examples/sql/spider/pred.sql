SELECT count(*) FROM singer
SELECT DISTINCT country FROM singer WHERE age > 30
SELECT name, age FROM singer WHERE country = 'France' AND age > 40
SELECT round(avg(net_worth), 4) FROM singer WHERE country = 'France'
SELECT name, net_worth FROM singer WHERE country = 'France' ORDER BY net_worth IS NULL, net_worth
SELECT name, age FROM singer WHERE age < 35 ORDER BY age DESC, name
SELECT name FROM singer WHERE age > 40 AND country != 'Japan'
SELECT name, ifnull(age, 0) FROM singer WHERE country = 'Japan'
SELECT nam FROM singer WHERE singer_id = 1
DROP TABLE concert
SELECT pettype, max(weight) FROM pets GROUP BY pettype
SELECT avg(pet_age) FROM pets WHERE pettype = 'dog'

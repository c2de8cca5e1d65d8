SELECT count(*) FROM singer	concert_singer
SELECT country FROM singer WHERE age > 30	concert_singer
SELECT name FROM singer WHERE country = 'France' AND age > 40	concert_singer
SELECT avg(net_worth) FROM singer WHERE country = 'France'	concert_singer
SELECT name, net_worth FROM singer WHERE country = 'France' ORDER BY net_worth	concert_singer
SELECT name, age FROM singer WHERE age < 35 ORDER BY age DESC	concert_singer
SELECT name FROM singer WHERE age > 40	concert_singer
SELECT name, age FROM singer WHERE country = 'Japan'	concert_singer
SELECT name FROM singer WHERE singer_id = 1	concert_singer
SELECT count(*) FROM concert	concert_singer
SELECT max(weight), pettype FROM pets GROUP BY pettype	pets_1
SELECT avg(pet_age) FROM pets	pets_1

SELECT a FROM t	mix

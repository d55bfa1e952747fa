-- bench/whole_program.sh's SQL workload for the sqlite3 shell: a table
-- of 300,000 rows made by a recursive query, an index, a grouping, a
-- join through the index, a sort of text, an update and a delete.
CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
INSERT INTO t SELECT i, (i * 7919) % 1000, printf('word%d', (i * 31) % 5000) FROM n;
CREATE INDEX t_b ON t(b);
SELECT b, count(*), sum(a) FROM t GROUP BY b ORDER BY 2 DESC, 1 LIMIT 5;
SELECT count(*), sum(y.b) FROM t x JOIN t y ON x.b = y.a WHERE x.c LIKE 'word1%';
SELECT c, count(*) FROM t GROUP BY c ORDER BY c DESC LIMIT 5;
UPDATE t SET c = upper(c) WHERE b < 100;
DELETE FROM t WHERE a % 3 = 0;
SELECT count(*), min(c), max(c) FROM t;

-- nDCG@10, AP, P@10, R@100 and RR over the run and qrels Parquet files, as an analyst writes them
-- for DuckDB (benchmarks/run.py's duckdb-handwritten tool replaces {run} and {qrels} by the paths).
-- trec_eval's definitions: documents ranked by score, ties by doc id descending (as text, also
-- for integer ids); relevant = grade >= 1; the ideal DCG from the qrels' grades; the queries are
-- the judged queries of the run.
WITH ranked AS (
    SELECT query_id, doc_id, ROW_NUMBER() OVER (
               PARTITION BY query_id ORDER BY score DESC, CAST(doc_id AS VARCHAR) DESC) AS rank
    FROM read_parquet('{run}')
), relevant AS (
    SELECT query_id, doc_id, relevance FROM read_parquet('{qrels}') WHERE relevance > 0
), hits AS (        -- the relevant documents retrieved, numbered down the ranking
    SELECT query_id, rank, relevance,
           ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY rank) AS nth
    FROM ranked JOIN relevant USING (query_id, doc_id)
), found AS (
    SELECT query_id,
           SUM(relevance / LOG2(rank + 1)) FILTER (WHERE rank <= 10) AS dcg,
           SUM(nth / rank) AS precisions,
           COUNT(*) FILTER (WHERE rank <= 10) AS hits_10,
           COUNT(*) FILTER (WHERE rank <= 100) AS hits_100,
           MIN(rank) AS first_rank
    FROM hits GROUP BY query_id
), judged AS (      -- the number relevant and the ideal DCG@10 of each query
    SELECT query_id, COUNT(*) AS n_relevant,
           SUM(relevance / LOG2(pos + 1)) FILTER (WHERE pos <= 10) AS ideal_dcg
    FROM (SELECT query_id, relevance,
                 ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY relevance DESC) AS pos
          FROM relevant)
    GROUP BY query_id
), queries AS (
    SELECT query_id FROM read_parquet('{qrels}')
    INTERSECT
    SELECT query_id FROM read_parquet('{run}')
)
SELECT AVG(COALESCE(dcg / ideal_dcg, 0)) AS "nDCG@10",
       AVG(COALESCE(precisions / n_relevant, 0)) AS "AP",
       AVG(COALESCE(hits_10, 0) / 10) AS "P@10",
       AVG(COALESCE(hits_100 / n_relevant, 0)) AS "R@100",
       AVG(COALESCE(1 / first_rank, 0)) AS "RR"
FROM queries LEFT JOIN found USING (query_id) LEFT JOIN judged USING (query_id)

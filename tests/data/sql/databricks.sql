WITH qrels_in AS (
  SELECT
    CAST(QID AS STRING) AS query_id,
    CAST(doc_id AS STRING) AS doc_id,
    CAST(`Label` AS DOUBLE) AS rel
  FROM `eval`.`qrels`
), run_in AS (
  SELECT
    CAST(QID AS STRING) AS query_id,
    CAST(doc_id AS STRING) AS doc_id,
    CAST(score AS DOUBLE) AS score,
    locale AS `locale`
  FROM main.eval.run
), ranked AS (
  SELECT
    `locale`,
    query_id,
    doc_id,
    ROW_NUMBER() OVER (PARTITION BY `locale`, query_id ORDER BY score DESC, doc_id DESC) AS rank
  FROM run_in
), judgments AS (
  SELECT
    query_id,
    SUM(CASE WHEN rel >= 1 THEN 1 ELSE 0 END) AS j0
  FROM qrels_in
  GROUP BY
    query_id
), judged AS (
  SELECT
    r.*,
    SUM(CASE WHEN rel >= 1 THEN 1 ELSE 0 END) OVER (
      PARTITION BY r.`locale`, r.query_id
      ORDER BY rank NULLS LAST
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS w0
  FROM (
    SELECT
      r.`locale`,
      r.query_id,
      r.rank,
      j.rel,
      s.j0
    FROM ranked AS r
    JOIN qrels_in AS j
      ON r.query_id = j.query_id AND r.doc_id = j.doc_id
    LEFT JOIN judgments AS s
      ON r.query_id = s.query_id
    WHERE
      j.rel >= -4611686018427387904
  ) AS r
), hits AS (
  SELECT
    `locale`,
    query_id,
    SUM(
      CASE
        WHEN rank <= 10
        THEN CASE
          WHEN rel IS NULL OR rel < 0
          THEN CAST(0.0 AS DOUBLE)
          ELSE CAST(rel AS DOUBLE)
        END / LOG2(rank + 1)
        ELSE CAST(0.0 AS DOUBLE)
      END
    ) AS h0,
    SUM(
      CASE
        WHEN rel >= 1 AND TRUE
        THEN CAST(w0 AS DOUBLE) / rank
        ELSE CAST(0.0 AS DOUBLE)
      END
    ) AS h1,
    MIN(CASE WHEN rel >= 1 AND TRUE THEN rank END) AS h2,
    SUM(CASE WHEN rel >= 1 AND rank <= 10 THEN 1 ELSE 0 END) AS h3,
    SUM(CASE WHEN rel >= 1 AND rank <= COALESCE(j0, 0) THEN 1 ELSE 0 END) AS h4,
    SUM(CASE WHEN NOT rel IS NULL AND rank <= 10 THEN 1 ELSE 0 END) AS h5
  FROM judged
  GROUP BY
    `locale`,
    query_id
), retrieved AS (
  SELECT
    `locale`,
    query_id,
    COUNT(*) AS n_ret
  FROM ranked
  GROUP BY
    `locale`,
    query_id
), ideal0_rows AS (
  SELECT
    query_id,
    g,
    ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY g DESC) AS pos
  FROM (
    SELECT
      query_id,
      CASE
        WHEN rel IS NULL OR rel < 0
        THEN CAST(0.0 AS DOUBLE)
        ELSE CAST(rel AS DOUBLE)
      END AS g
    FROM qrels_in
    WHERE
      rel >= 0
  ) AS i
  WHERE
    g > 0
), ideal0 AS (
  SELECT
    query_id,
    SUM(CASE WHEN pos <= 10 THEN g / LOG2(pos + 1) ELSE CAST(0.0 AS DOUBLE) END) AS ideal0_0
  FROM ideal0_rows
  GROUP BY
    query_id
), run_queries AS (
  SELECT DISTINCT
    `locale`,
    query_id
  FROM run_in
), qrels_queries AS (
  SELECT DISTINCT
    query_id
  FROM qrels_in
), queries AS (
  SELECT
    r.`locale`,
    r.query_id
  FROM run_queries AS r
  JOIN qrels_queries AS j
    ON r.query_id = j.query_id
  UNION ALL
  SELECT
    NULL AS `locale`,
    j.query_id
  FROM qrels_queries AS j
  LEFT JOIN (
    SELECT DISTINCT
      query_id,
      1 AS present
    FROM run_queries
  ) AS p
    ON j.query_id = p.query_id
  WHERE
    p.present IS NULL
), per_query AS (
  SELECT
    queries.`locale`,
    queries.query_id,
    COALESCE(
      CAST(COALESCE(h0, CAST(0.0 AS DOUBLE)) AS DOUBLE) / NULLIF(COALESCE(ideal0_0, 0), 0),
      CAST(0.0 AS DOUBLE)
    ) AS `m0`,
    COALESCE(
      CAST(COALESCE(h1, CAST(0.0 AS DOUBLE)) AS DOUBLE) / NULLIF(COALESCE(j0, 0), 0),
      CAST(0.0 AS DOUBLE)
    ) AS `m1`,
    COALESCE(CAST(1.0 AS DOUBLE) / h2, CAST(0.0 AS DOUBLE)) AS `m2`,
    CAST(COALESCE(h3, 0) AS DOUBLE) / 10 AS `m3`,
    COALESCE(
      CAST(COALESCE(h1, CAST(0.0 AS DOUBLE)) AS DOUBLE) / NULLIF(COALESCE(j0, 0), 0),
      CAST(0.0 AS DOUBLE)
    ) AS `m4`,
    COALESCE(CAST(COALESCE(h4, 0) AS DOUBLE) / NULLIF(COALESCE(j0, 0), 0), CAST(0.0 AS DOUBLE)) AS `m5`,
    COALESCE(
      CAST(COALESCE(h5, 0) AS DOUBLE) / NULLIF(LEAST(COALESCE(n_ret, 0), 10), 0),
      CAST(0.0 AS DOUBLE)
    ) AS `m6`
  FROM queries
  LEFT JOIN hits
    ON queries.`locale` IS NOT DISTINCT FROM hits.`locale`
    AND queries.query_id = hits.query_id
  LEFT JOIN retrieved
    ON queries.`locale` IS NOT DISTINCT FROM retrieved.`locale`
    AND queries.query_id = retrieved.query_id
  LEFT JOIN judgments
    ON queries.query_id = judgments.query_id
  LEFT JOIN ideal0
    ON queries.query_id = ideal0.query_id
), aggregated AS (
  SELECT
    `locale`,
    AVG(`m0`) AS `m0`,
    AVG(`m1`) AS `m1`,
    AVG(`m2`) AS `m2`,
    AVG(`m3`) AS `m3`,
    EXP(AVG(LN(GREATEST(`m4`, CAST(CAST(1e-05 AS DOUBLE) AS DOUBLE))))) AS `m4`,
    AVG(`m5`) AS `m5`,
    AVG(`m6`) AS `m6`
  FROM per_query
  GROUP BY
    `locale`
)
SELECT
  t.`locale` AS `locale`,
  m.measure,
  CASE m.i
    WHEN 0
    THEN t.`m0`
    WHEN 1
    THEN t.`m1`
    WHEN 2
    THEN t.`m2`
    WHEN 3
    THEN t.`m3`
    WHEN 4
    THEN t.`m4`
    WHEN 5
    THEN t.`m5`
    WHEN 6
    THEN t.`m6`
  END AS value
FROM aggregated AS t
CROSS JOIN VALUES
  (0, 'nDCG@10'),
  (1, 'AP'),
  (2, 'RR'),
  (3, 'P@10'),
  (4, 'GMAP'),
  (5, 'Rprec'),
  (6, 'Judged@10') AS m(i, measure)
/**
 * Flink SQL and the Table API: {@code 'connector' = 'kes'} ({@code KesTableSinkFactory}, found by
 * Flink's service loader) turns a table's changelog rows into {@link io.kes.connector.DocumentOperation}s
 * ({@code RowToDocument}) and writes them through the same {@link io.kes.connector.ElasticsearchSink}
 * as the DataStream API. Its options are {@code KesTableOptions} (docs/sql.md).
 */
package io.kes.connector.table;

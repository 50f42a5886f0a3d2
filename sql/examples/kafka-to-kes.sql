-- For Flink's own SQL client, against a running Flink 2.2 cluster, from the repository's root:
--   ./mvnw -pl sql -am package -DskipTests      (sql/target/kes-sql-connector.jar and flink-sql-connector-kafka.jar)
--   $FLINK_HOME/bin/sql-client.sh -f sql/examples/kafka-to-kes.sql
-- Orders from a Kafka topic of JSON lines into Elasticsearch, one document per order id.
-- SqlClientAndPyFlinkIT runs this file as it is, but for the topic, the servers and the index.

-- The two jars are shipped with the job to the cluster (no restart, nothing in its lib/).
ADD JAR 'sql/target/kes-sql-connector.jar';
ADD JAR 'sql/target/flink-sql-connector-kafka.jar';

-- The client waits for the INSERT's job to end (the source is bounded below), so the file
-- returns when the documents are written, and fails if the job does.
SET 'table.dml-sync' = 'true';

-- 'scan.bounded.mode': the job stops at the offsets that were the end when it started; without it
-- the job keeps following the topic.
CREATE TABLE orders (
  order_id BIGINT,
  customer STRING,
  amount   DECIMAL(10, 2)
) WITH (
  'connector' = 'kafka',
  'topic' = 'kes-example-orders',
  'properties.bootstrap.servers' = 'localhost:9092',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset',
  'format' = 'json'
);

-- The PRIMARY KEY makes the order id the document id: running the file again overwrites.
CREATE TABLE es_orders (
  order_id BIGINT,
  customer STRING,
  amount   DECIMAL(10, 2),
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
  'connector' = 'kes',
  'hosts' = 'http://localhost:9200',
  'index' = 'kes-example-orders'
);

INSERT INTO es_orders SELECT order_id, customer, amount FROM orders;

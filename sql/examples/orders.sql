-- bin/kes local up && bin/kes sql sql/examples/orders.sql
-- Sample orders into a Kafka topic, then from the topic into Elasticsearch twice: every order as
-- a document in a daily index (ids from Kafka coordinates), and a running total per customer
-- (an upsert table: one document per customer, updated as orders come in). docs/sql.md explains it.

SET 'parallelism.default' = '2';

-- The topic. Reads stop at the offsets that were the end when the job started (bounded), so
-- this file runs to its end; drop 'scan.bounded.mode' for a job that keeps following the topic.
CREATE TABLE orders (
  order_id   BIGINT,
  customer   STRING,
  amount     DECIMAL(10, 2),
  ts         TIMESTAMP_LTZ(3),
  `topic`     STRING METADATA VIRTUAL,
  `partition` INT    METADATA VIRTUAL,
  `offset`    BIGINT METADATA VIRTUAL
) WITH (
  'connector' = 'kafka',
  'topic' = 'kes-sql-orders',
  'properties.bootstrap.servers' = 'localhost:9092',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset',
  'format' = 'json',
  'json.timestamp-format.standard' = 'ISO-8601'
);

-- 10,000 sample orders from 50 customers.
CREATE TEMPORARY TABLE sample_orders (order_id BIGINT, customer_no INT, cents INT) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '10000',
  'fields.order_id.kind' = 'sequence', 'fields.order_id.start' = '1', 'fields.order_id.end' = '10000',
  'fields.customer_no.min' = '1', 'fields.customer_no.max' = '50',
  'fields.cents.min' = '100', 'fields.cents.max' = '100000'
);
INSERT INTO orders
SELECT order_id, CONCAT('customer-', CAST(customer_no AS STRING)), CAST(cents AS DECIMAL(10, 2)) / 100, CURRENT_TIMESTAMP
FROM sample_orders;

-- Every order, one document each, in a daily index. The three Kafka metadata columns make the
-- document ids, so running this file again overwrites instead of duplicating.
CREATE TABLE es_orders (
  order_id   BIGINT,
  customer   STRING,
  amount     DECIMAL(10, 2),
  ts         TIMESTAMP_LTZ(3),
  kafka_topic     STRING METADATA FROM 'kafka.topic',
  kafka_partition INT    METADATA FROM 'kafka.partition',
  kafka_offset    BIGINT METADATA FROM 'kafka.offset'
) WITH (
  'connector' = 'kes',
  'hosts' = 'http://localhost:9200',
  'index' = 'kes-sql-orders-{ts|yyyy.MM.dd}',
  'json.timestamp-format.standard' = 'ISO-8601'
);
INSERT INTO es_orders SELECT order_id, customer, amount, ts, `topic`, `partition`, `offset` FROM orders;

-- A running total per customer: the PRIMARY KEY makes this an upsert table; each new order of a
-- customer overwrites that customer's document.
CREATE TABLE es_customers (
  customer STRING,
  orders   BIGINT,
  total    DECIMAL(20, 2),
  PRIMARY KEY (customer) NOT ENFORCED
) WITH (
  'connector' = 'kes',
  'hosts' = 'http://localhost:9200',
  'index' = 'kes-sql-customers'
);
INSERT INTO es_customers SELECT customer, COUNT(*), SUM(amount) FROM orders GROUP BY customer;

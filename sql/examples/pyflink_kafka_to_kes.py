"""Orders from a Kafka topic into Elasticsearch through 'connector' = 'kes', from PyFlink's Table API.

The same tables as sql/examples/kafka-to-kes.sql. From the repository's root:

    ./mvnw -pl sql -am package -DskipTests      # sql/target/kes-sql-connector.jar, flink-sql-connector-kafka.jar
    env=$(sql/pyflink-env.sh)                   # a venv with apache-flink (made once)
    $env/bin/python sql/examples/pyflink_kafka_to_kes.py --bootstrap-servers localhost:9092

The job runs in this process's local Flink (PyFlink starts it); the two jars reach it through
'pipeline.jars'. The Kafka source is bounded, so the script ends when the documents are written.
SqlClientAndPyFlinkIT runs it against a real broker and Elasticsearch node.
"""

import argparse
import sys
from pathlib import Path

from pyflink.table import EnvironmentSettings, TableEnvironment

SQL_TARGET = Path(__file__).resolve().parent.parent / "target"
JARS = [SQL_TARGET / "kes-sql-connector.jar", SQL_TARGET / "flink-sql-connector-kafka.jar"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers", default="localhost:9092")
    parser.add_argument("--topic", default="kes-example-orders")
    parser.add_argument("--hosts", default="http://localhost:9200", help="Elasticsearch, as kes's 'hosts' option")
    parser.add_argument("--index", default="kes-example-orders")
    args = parser.parse_args()

    missing = [str(jar) for jar in JARS if not jar.is_file()]
    if missing:
        sys.exit(f"missing {', '.join(missing)}: build them with ./mvnw -pl sql -am package -DskipTests")

    tables = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    # A list option: the jars' file: URLs separated by ';'.
    tables.get_config().set("pipeline.jars", ";".join(jar.as_uri() for jar in JARS))

    tables.execute_sql(f"""
        CREATE TABLE orders (
          order_id BIGINT,
          customer STRING,
          amount   DECIMAL(10, 2)
        ) WITH (
          'connector' = 'kafka',
          'topic' = '{args.topic}',
          'properties.bootstrap.servers' = '{args.bootstrap_servers}',
          'scan.startup.mode' = 'earliest-offset',
          'scan.bounded.mode' = 'latest-offset',
          'format' = 'json'
        )""")
    tables.execute_sql(f"""
        CREATE TABLE es_orders (
          order_id BIGINT,
          customer STRING,
          amount   DECIMAL(10, 2),
          PRIMARY KEY (order_id) NOT ENFORCED
        ) WITH (
          'connector' = 'kes',
          'hosts' = '{args.hosts}',
          'index' = '{args.index}'
        )""")
    # wait(): the job ends with the bounded source; a failed job raises here, with Flink's error.
    tables.execute_sql("INSERT INTO es_orders SELECT order_id, customer, amount FROM orders").wait()
    print(f"pyflink_kafka_to_kes: {args.topic} written to {args.index}")


if __name__ == "__main__":
    main()

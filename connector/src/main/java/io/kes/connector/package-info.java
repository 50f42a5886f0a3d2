/**
 * kes's sink API: build an {@link io.kes.connector.ElasticsearchSink} with
 * {@link io.kes.connector.ElasticsearchSinkBuilder} (or from {@link io.kes.connector.ElasticsearchSinkOptions}),
 * feed it {@link io.kes.connector.DocumentOperation}s, and choose what happens to writes Elasticsearch
 * refuses with a {@link io.kes.connector.FailureHandler}. Classes marked
 * {@link org.apache.flink.annotation.PublicEvolving} are the API; {@link org.apache.flink.annotation.Internal}
 * ones may change in any release. docs/architecture.md draws how the packages below fit together.
 */
package io.kes.connector;

/**
 * Shard prediction: Elasticsearch's own routing formula ({@code IndexRouting}, {@code Murmur3},
 * {@code RoutingFunction}), calibrated per index against the node ({@code RoutingCalibrator}), cached
 * per concrete index and layout ({@code IndexRoutingTable}, {@code IndexLayout}; its parts
 * {@code TargetNames}, {@code Calibrations} with {@code IndexCalibrator}, {@code PipelineVerdicts},
 * {@code UnpredictableIndices}, refreshed through {@code BackgroundReads}) and asked per
 * document ({@code ShardPredictor}). Reads the cluster through {@code cluster}; knows nothing of
 * bulks or checkpoints.
 */
package io.kes.connector.routing;

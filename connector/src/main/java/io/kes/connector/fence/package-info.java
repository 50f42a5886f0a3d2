/**
 * The checkpoint fence: a checkpoint completes only once every write before its barrier is
 * acknowledged ({@code Epochs}), fsynced past by its primary, and held by a primary whose term has
 * not moved since ({@code AcknowledgedWrites}, {@code CheckpointFence}); {@code EpochFinisher} does
 * this off the task thread. Depends on {@code routing} (what a write was predicted with) and
 * {@code cluster} (what the cluster says now), never on the write path.
 */
package io.kes.connector.fence;

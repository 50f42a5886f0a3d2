#!/usr/bin/env bash
# Entry point of the compose stack's jobmanager: starts the kes job in Flink application mode
# (standalone-job) and, when a completed checkpoint is retained on the flink-state volume, restores
# from it. This is how `docker compose restart`, `docker compose up` after `down`, a crashed
# container or a host reboot resume where the job was.
#
# Why a script and not Flink HA: open-source Flink has no file-system HA service (only ZooKeeper and
# Kubernetes), so without HA a fresh application-mode JobManager always submits the job from scratch.
# Flink writes each completed checkpoint to <checkpoint dir>/<job id>/chk-<n>/_metadata and each
# savepoint to <savepoint dir>/savepoint-<id>/_metadata; _metadata is written last, so a folder that
# holds one is complete. The newest of them (a savepoint taken by `flink stop` is newer than the
# last checkpoint) goes to --fromSavepoint, which restores the Kafka offsets it recorded.
#
# Environment (all optional):
#   KES_CONFIG            the mapping file passed to the job as --config (default /opt/kes/mapping.yaml)
#   KES_CHECKPOINT_DIR    where to look for retained checkpoints (default /flink-data/checkpoints,
#                         the local path of execution.checkpointing.dir)
#   KES_SAVEPOINT_DIR     where to look for savepoints (default /flink-data/savepoints,
#                         the local path of execution.checkpointing.savepoint-dir)
#   KES_JOB_ID            fixed job id (32 hex digits), so every start writes under the same folder
#   KES_RESTORE_PATH      restore from this checkpoint or savepoint instead of the newest one
#                         (e.g. file:///flink-data/savepoints/savepoint-6b6573-0123456789ab)
#   KES_RESTORE_LATEST    true (default) | false: false starts without state (Kafka committed offsets)
#   KES_DRY_RUN           1: print the command instead of running it (used by the tests)
set -euo pipefail

config=${KES_CONFIG:-/opt/kes/mapping.yaml}
checkpoint_dir=${KES_CHECKPOINT_DIR:-/flink-data/checkpoints}
checkpoint_dir=${checkpoint_dir#file://}
savepoint_dir=${KES_SAVEPOINT_DIR:-/flink-data/savepoints}
savepoint_dir=${savepoint_dir#file://}
job_id=${KES_JOB_ID:-6b657300000000000000000000000000}
restore=${KES_RESTORE_PATH:-}

# The newest complete snapshot, by _metadata time: <checkpoint dir>/<job id>/chk-<n> (any job id) or
# <savepoint dir>/savepoint-*.
latest_snapshot() {
    {
        [ ! -d "$checkpoint_dir" ] || find "$checkpoint_dir" -mindepth 3 -maxdepth 3 -type f -path '*/chk-*/_metadata' -printf '%T@ %h\n'
        [ ! -d "$savepoint_dir" ] || find "$savepoint_dir" -mindepth 2 -maxdepth 2 -type f -path '*/savepoint-*/_metadata' -printf '%T@ %h\n'
    } 2>/dev/null | sort -n | tail -n 1 | cut -d' ' -f2-
}

if [ -z "$restore" ] && [ "${KES_RESTORE_LATEST:-true}" = "true" ]; then
    restore=$(latest_snapshot)
fi

args=(standalone-job --job-classname io.kes.jobs.KesJob --job-id "$job_id")
if [ -n "$restore" ]; then
    echo "[kes] restoring from $restore"
    args+=(--fromSavepoint "$restore")
else
    echo "[kes] no checkpoint under $checkpoint_dir nor savepoint under $savepoint_dir: starting from the Kafka group's committed offsets"
fi
# Everything after "--" goes to KesJob.main untouched. Without it the entry point's option parser,
# which accepts abbreviated long options, would read the job's --config as its own --configDir.
args+=(-- --config "$config")

if [ "${KES_DRY_RUN:-0}" = "1" ]; then
    printf '%s\n' "${args[@]}"
    exit 0
fi
exec /docker-entrypoint.sh "${args[@]}"

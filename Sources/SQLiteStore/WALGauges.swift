import Foundation
import Storage
import Tracking

/// The write-ahead log's gauges for `GET /metrics` (see `WALBound`).
enum WALGauges {
    static func gauges(_ wal: WALStatus) -> [StoreGauge] {
        [
            StoreGauge("fod_wal_bytes", "Size of the write-ahead log file (-wal) on disk.", Double(wal.fileBytes)),
            StoreGauge("fod_wal_limit_bytes", "Bound of the write-ahead log (--wal-limit-mib); exceeded by at most one commit.", Double(wal.limitBytes)),
            StoreGauge("fod_wal_log_bytes", "Bytes of log frames written since the log last started over.", Double(wal.logBytes)),
            StoreGauge("fod_wal_checkpoint_lag_bytes", "Bytes of log frames not yet copied into the database file.", Double(wal.lagBytes)),
            StoreGauge("fod_wal_last_complete_checkpoint_timestamp_seconds",
             "Unix time when a checkpoint last found every log frame copied into the database (0: not since start).",
             wal.lastCompleteCheckpoint?.timeIntervalSince1970 ?? 0),
            StoreGauge("fod_wal_restarts_total", "Checkpoints between commits that made the log start over.", Double(wal.restarts)),
            StoreGauge("fod_wal_early_restarts_total", "Of those, restarts before half the bound, taken only when no one had to wait.",
             Double(wal.earlyRestarts)),
            StoreGauge("fod_wal_truncations_total", "Truncations of the log file to zero bytes after writes paused.", Double(wal.truncations)),
            StoreGauge("fod_wal_writer_checkpoint_seconds_total", "Time the writer spent in checkpoints (writes wait meanwhile).",
             wal.writerCheckpointSeconds),
            StoreGauge("fod_wal_written_bytes_total", "Bytes of log frames written by all commits since start.", Double(wal.writtenBytes)),
            StoreGauge("fod_wal_largest_commit_bytes", "The most log bytes one commit has added since start.", Double(wal.largestCommitBytes)),
            StoreGauge("fod_wal_holding_seconds", "How long writes have been held at the bound waiting for old readers (0: not now).",
             wal.holdingSeconds),
        ]
    }
}

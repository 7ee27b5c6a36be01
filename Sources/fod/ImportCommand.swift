import Foundation
import JSONCore
import LocationFormats
import Timestamps
import SQLiteStore
import Tracking

/// `fod import --device <id> <file>`: GeoJSON, GPX or CSV history into a device, through the
/// same validation and deduplication as live ingest, with a progress bar and a summary.
enum ImportCommand {
    static let chunk = 5_000

    static func run(_ arguments: Arguments, environment: [String: String]) async throws -> Int32 {
        try arguments.rejectUnknown(["data", "device", "format"])
        guard let deviceID = arguments.options["device"].map(DeviceID.init(rawValue:)), let path = arguments.positionals.dropFirst().first else {
            throw UsageError("usage: fod import --device <id> <file.geojson|file.gpx|file.csv> [--data <dir>] [--format geojson|gpx|csv]")
        }
        guard let kind = arguments.options["format"].flatMap(HistoryFile.Kind.init(rawValue:)) ?? HistoryFile.kind(ofPath: path) else {
            throw UsageError("cannot tell the format of \(path); pass --format geojson|gpx|csv")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read \(path)") }
        let directory = arguments.options["data"] ?? environment["FOD_DATA"] ?? "./fod-data"
        let backend = try SQLiteBackend.open(directory: directory)
        defer { backend.close() }
        guard let ownerID = try backend.deviceOwner(deviceID: deviceID) else { throw UsageError("no device \(deviceID) in \(directory)") }
        let service = LocationService(store: backend, directory: backend)
        let credential = Credential.device(deviceID: deviceID, ownerID: ownerID)
        let objects = try HistoryFile.fixes(from: Array(data), kind: kind)
        var summary = ImportSummary(total: objects.count)
        let progress = ProgressBar(total: objects.count)
        var start = 0
        while start < objects.count {
            let slice = Array(objects[start..<min(start + chunk, objects.count)])
            var batch = try NativeFormat.parse(.object(["locations": .array(slice)]), now: Timestamp.nowMilliseconds(), rules: service.rules)
            // History without a time cannot be placed (and would all collapse onto "now").
            let undated = batch.fixes.filter { !$0.fix.timestampWasGiven }
            batch.fixes.removeAll { !$0.fix.timestampWasGiven }
            batch.rejected += undated.map { ($0.index, FixError(code: "missing_timestamp", message: "the record has no timestamp")) }
            let outcome = try await service.ingest(batch.fixes.map(\.fix), deviceID: deviceID, credential: credential, countsAsRequest: false)
            summary.add(outcome, rejected: batch.rejected.sorted { $0.index < $1.index }, offset: start)
            start += slice.count
            progress.update(start)
        }
        progress.finish()
        print(summary.report(file: path))
        return 0
    }
}

/// Counts of an import and its rejection reasons (grouped, with the first rows of each).
struct ImportSummary {
    let total: Int
    var accepted = 0, duplicates = 0, rejected = 0
    var reasons: [String: (count: Int, rows: [Int])] = [:]

    mutating func add(_ outcome: IngestOutcome, rejected list: [(index: Int, error: FixError)], offset: Int) {
        accepted += outcome.accepted
        duplicates += outcome.duplicates
        rejected += list.count
        for r in list {
            var entry = reasons[r.error.message] ?? (0, [])
            entry.count += 1
            if entry.rows.count < 5 { entry.rows.append(offset + r.index + 1) }
            reasons[r.error.message] = entry
        }
    }

    func report(file: String) -> String {
        var lines = ["imported \(file): \(total) fixes — accepted \(accepted), duplicates \(duplicates), rejected \(rejected)"]
        for (message, entry) in reasons.sorted(by: { $0.value.count > $1.value.count }) {
            lines.append("  \(entry.count) × \(message) (records \(entry.rows.map(String.init).joined(separator: ", "))\(entry.count > entry.rows.count ? ", …" : ""))")
        }
        return lines.joined(separator: "\n")
    }
}

/// A one-line progress bar on standard error (redrawn in place on a terminal).
final class ProgressBar {
    let total: Int
    let interactive = isatty(2) != 0
    private var lastPercent = -1

    init(total: Int) { self.total = total }

    func update(_ done: Int) {
        let percent = total == 0 ? 100 : done * 100 / total
        // On a terminal redraw every percent; in a log, a line every 10 %.
        guard percent != lastPercent, interactive || percent / 10 != lastPercent / 10 || percent == 100 else { return }
        lastPercent = percent
        let width = 30
        let filled = percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line = "[\(bar)] \(percent)% \(done)/\(total)"
        FileHandle.standardError.write(Data((interactive ? "\r" + line : line + "\n").utf8))
    }

    func finish() { if interactive { FileHandle.standardError.write(Data("\n".utf8)) } }
}

import Foundation
import LocationFormats
import Tracking

/// `fod import --device <id> <path>`: a history file of any supported format (detected from the
/// content: Google Takeout Records.json, Semantic Location History, the phone's Timeline export,
/// GPX, GeoJSON, CSV, this server's JSON and NDJSON, OwnTracks Recorder `.rec` files) — or the
/// Recorder month files of one device in a directory or a `.tar` / `.tar.gz` (`ImportSource`) —
/// into a device, streamed, through the same service as `POST /v1/devices/{id}/import`: a
/// progress line on standard error, then a summary with the rejections grouped by reason. On
/// the embedded database it refuses to run while a server holds the data directory
/// (`DataDirectoryLock`; a running server takes the same file over HTTP); with `--database` (or
/// `$FOD_DATABASE_URL`) it writes into the PostgreSQL database that running nodes share.
enum ImportCommand {
    static func run(_ arguments: Arguments, environment: [String: String]) async throws -> Int32 {
        try arguments.rejectUnknown(["data", "database", "device"])
        guard let deviceID = arguments.options["device"].map(DeviceID.init(rawValue:)), let path = arguments.positionals.dropFirst().first else {
            throw UsageError("usage: fod import --device <id> <file | directory of .rec files | .tar[.gz] of them> [--data <dir> | --database <url>]")
        }
        let offline = try OfflineStore.open(arguments, environment: environment, purpose: "fod import",
                                            advice: "stop it first, or import over HTTP: POST /v1/devices/{id}/import (or the web app)")
        defer { offline.close() }
        let backend = offline.store, place = offline.place
        guard let ownerID = try backend.deviceOwner(deviceID: deviceID) else { throw UsageError("no device \(deviceID) in \(place)") }
        let locations = LocationService(store: backend, directory: backend)
        let imports = HistoryImportService(locations: locations, store: backend)
        let credential = Credential.device(deviceID: deviceID, ownerID: ownerID)
        try imports.admit(deviceID: deviceID, credential: credential, countsAsRequest: false)
        let source = try ImportSource.open(path)
        let progress = ImportProgressLine(totalBytes: source.totalBytes)
        let report = try await imports.run(deviceID: deviceID, credential: credential, read: { try source.next() },
                                           progress: { progress.update($0) })
        withExtendedLifetime(source.resources) {}
        progress.finish()
        print(ImportReportText.render(report, file: source.label))
        return report.summary.format == nil ? 1 : 0
    }
}

/// The summary `fod import` prints: counts, then each rejection reason with its count and the
/// first points it hit, then where reading stopped (if it did).
enum ImportReportText {
    static func render(_ report: HistoryImportService.Report, file: String) -> String {
        let summary = report.summary
        let format = summary.format?.rawValue ?? "unknown format"
        var lines = ["imported \(file) (\(format), \(ByteCount.text(report.bytes))): \(summary.points) points — "
            + "accepted \(report.accepted), duplicates \(report.duplicates), rejected \(summary.rejected)"
            + (summary.skipped > 0 ? "; \(summary.skipped) records without a location skipped" : "")]
        for (code, count) in summary.rejectedByCode.sorted(by: { ($0.value, $1.key.rawValue) > ($1.value, $0.key.rawValue) }) {
            let samples = summary.samples.filter { $0.error.code == code }
            let message = samples.first.map { ": " + $0.error.message } ?? ""
            let points = samples.map { String($0.index) }.joined(separator: ", ")
            lines.append("  \(count) × \(code)\(message)" + (points.isEmpty ? "" : " (points \(points)\(count > samples.count ? ", …" : ""))"))
        }
        if let stop = summary.stopped {
            lines.append("  reading stopped at byte \(stop.offset): \(stop.error.code): \(stop.error.message) (everything before it was imported)")
        }
        return lines.joined(separator: "\n")
    }
}

/// Byte counts for people (1,000-based: "1.73 GB").
enum ByteCount {
    static func text(_ bytes: Int) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(bytes), unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(bytes) B" : String(format: "%.2f %@", value, units[unit])
    }
}

/// One progress line on standard error: percent of the file read, points, accepted (redrawn in
/// place on a terminal; in a log, a line every 10 %).
final class ImportProgressLine: @unchecked Sendable {
    // @unchecked: used from the one task running the import.
    let totalBytes: Int
    let interactive = isatty(2) != 0
    private var lastPercent = -1

    init(totalBytes: Int) { self.totalBytes = totalBytes }

    func update(_ progress: HistoryImportService.Progress) {
        let percent = totalBytes > 0 ? min(100, progress.bytesRead * 100 / totalBytes) : 100
        guard percent != lastPercent, interactive || percent / 10 != lastPercent / 10 else { return }
        lastPercent = percent
        let line = "\(percent)% of \(ByteCount.text(totalBytes)): \(progress.points) points, \(progress.accepted) accepted, "
            + "\(progress.duplicates) duplicates, \(progress.rejected) rejected"
        FileHandle.standardError.write(Data((interactive ? "\r\u{1B}[K" + line : line + "\n").utf8))
    }

    func finish() { if interactive && lastPercent >= 0 { FileHandle.standardError.write(Data("\n".utf8)) } }
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

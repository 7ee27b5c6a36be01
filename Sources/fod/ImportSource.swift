import Foundation

/// What `fod import` reads: one history file (any format the import detects; gzip-compressed
/// too), or the OwnTracks Recorder's month files (`*.rec`) of one device, from a directory
/// (searched recursively) or a tar archive (`.tar`; a `.tar.gz` is inflated to a temporary file
/// first), read one after another in name order (`YYYY-MM.rec` sorts by month) as one stream of
/// lines.
///
/// A directory or archive whose `.rec` files lie in several directories holds several devices'
/// histories (the Recorder keeps `rec/<user>/<device>/`): it is refused with the list, since
/// importing them into one device would mix them.
struct ImportSource {
    /// The next chunk of the stream, nil at its end.
    let next: () throws -> [UInt8]?
    /// Bytes the stream will deliver (for the progress line).
    let totalBytes: Int
    /// What is read, for the summary ("a.rec, b.rec in rec/ann/phone").
    let label: String
    /// Kept alive while the stream is read (an archive's handle, a temporary file).
    let resources: [AnyObject]

    static let chunkBytes = 1 << 20

    static func open(_ path: String) throws -> ImportSource {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw UsageError("cannot read \(path)") }
        if isDirectory.boolValue { return try directory(path) }
        guard let file = FileHandle(forReadingAtPath: path) else { throw UsageError("cannot read \(path)") }
        let head = [UInt8](try file.read(upToCount: Int(TarArchive.blockSize)) ?? Data())
        if GzipFile.isGzip(head) {
            try file.close()
            let inflated = try GzipFile.inflateToTemporaryFile(path)
            if TarArchive.isTarHeader(inflated.head) { return try archive(inflated.path, label: path, keeping: [inflated]) }
            // A compressed history file (Records.json.gz, a .rec.gz): the file inside.
            return try single(inflated.path, label: path, keeping: [inflated])
        }
        if TarArchive.isTarHeader(head) {
            try file.close()
            return try archive(path, label: path, keeping: [])
        }
        try file.close()
        return try single(path, label: path, keeping: [])
    }

    /// One history file, as it is.
    static func single(_ path: String, label: String, keeping: [AnyObject]) throws -> ImportSource {
        guard let file = FileHandle(forReadingAtPath: path) else { throw UsageError("cannot read \(path)") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        return ImportSource(next: {
            let data = try file.read(upToCount: chunkBytes) ?? Data()
            return data.isEmpty ? nil : [UInt8](data)
        }, totalBytes: size, label: label, resources: [file] + keeping)
    }

    /// The `.rec` files under `path`, as one stream.
    static func directory(_ path: String) throws -> ImportSource {
        guard let walker = FileManager.default.enumerator(atPath: path) else { throw UsageError("cannot read \(path)") }
        var names: [String] = []
        while let relative = walker.nextObject() as? String {
            if relative.hasSuffix(".rec") { names.append(relative) }
        }
        let files = try names.sorted().compactMap { relative -> (String, Int)? in
            let full = (path as NSString).appendingPathComponent(relative)
            let attributes = try FileManager.default.attributesOfItem(atPath: full)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { return nil }
            return (relative, (attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
        try requireOneDevice(files.map(\.0), in: path)
        var streams = files.makeIterator()
        let pieces = RecordFileChain {
            guard let (relative, _) = streams.next() else { return nil }
            let full = (path as NSString).appendingPathComponent(relative)
            guard let handle = FileHandle(forReadingAtPath: full) else { throw UsageError("cannot read \(full)") }
            return {
                let data = try handle.read(upToCount: chunkBytes) ?? Data()
                if data.isEmpty { try handle.close() }
                return data.isEmpty ? nil : [UInt8](data)
            }
        }
        return ImportSource(next: pieces.next, totalBytes: files.map(\.1).reduce(0, +) + files.count,
                            label: label(files.map(\.0), in: path), resources: [pieces])
    }

    /// The `.rec` entries of a tar archive, as one stream.
    static func archive(_ path: String, label place: String, keeping: [AnyObject]) throws -> ImportSource {
        let tar = try TarArchive(path: path)
        let entries = try tar.entries().filter { $0.name.hasSuffix(".rec") }.sorted { $0.name < $1.name }
        try requireOneDevice(entries.map(\.name), in: place)
        var remaining = entries.makeIterator()
        let pieces = RecordFileChain {
            remaining.next().map { tar.chunks(of: $0, chunkBytes: chunkBytes) }
        }
        return ImportSource(next: pieces.next, totalBytes: Int(entries.map(\.size).reduce(0, +)) + entries.count,
                            label: label(entries.map(\.name), in: place), resources: [tar, pieces] + keeping)
    }

    /// Refuses `.rec` files of several directories (several devices), and none at all.
    static func requireOneDevice(_ names: [String], in place: String) throws {
        let directories = Set(names.map { ($0 as NSString).deletingLastPathComponent })
        guard !names.isEmpty else { throw ImportSourceError("no OwnTracks Recorder .rec files in \(place)") }
        guard directories.count == 1 else {
            let list = directories.sorted().map { $0.isEmpty ? "." : $0 }.joined(separator: ", ")
            throw ImportSourceError("\(place) holds the .rec files of \(directories.count) devices (\(list)): import one device's directory at a time")
        }
    }

    static func label(_ names: [String], in place: String) -> String {
        let first = names.first.map { ($0 as NSString).lastPathComponent } ?? ""
        let last = names.last.map { ($0 as NSString).lastPathComponent } ?? ""
        return "\(place): \(names.count) month file\(names.count == 1 ? "" : "s") (\(first)\(names.count > 1 ? " … \(last)" : ""))"
    }
}

/// Several files read one after another as one stream of lines: a line break is added after a
/// file that does not end with one, so its last line never runs into the next file's first.
final class RecordFileChain {
    /// The reader of the next file (nil: none left); each reader returns chunks, nil at its end.
    private let nextFile: () throws -> (() throws -> [UInt8]?)?
    private var current: (() throws -> [UInt8]?)?
    private var endedWithNewline = true

    init(_ nextFile: @escaping () throws -> (() throws -> [UInt8]?)?) {
        self.nextFile = nextFile
    }

    func next() throws -> [UInt8]? {
        while true {
            if current == nil {
                guard let reader = try nextFile() else { return nil }
                current = reader
            }
            if let chunk = try current?(), !chunk.isEmpty {
                endedWithNewline = chunk.last == 10
                return chunk
            }
            current = nil
            if !endedWithNewline {
                endedWithNewline = true
                return [10]
            }
        }
    }
}

import Foundation

/// A tar archive on disk (POSIX ustar, with GNU long names and pax `path` records), read by
/// seeking: `entries` lists the regular files with where their bytes are, `read` streams one.
///
/// Checks what it reads: a header whose checksum is wrong, a size that is not a number, or an
/// entry that runs past the end of the file throws `ImportSourceError` with the offset. Memory
/// holds one 512-byte header and one chunk. The handle is this object's, closed in `deinit`.
final class TarArchive {
    struct Entry: Sendable, Equatable {
        /// The path inside the archive (`rec/ann/phone/2024-05.rec`).
        let name: String
        /// Where its bytes start in the archive, and how many there are.
        let offset: UInt64
        let size: UInt64
    }

    static let blockSize: UInt64 = 512
    private let file: FileHandle
    let path: String
    let fileSize: UInt64

    init(path: String) throws {
        guard let file = FileHandle(forReadingAtPath: path) else { throw ImportSourceError("cannot read \(path)") }
        self.file = file
        self.path = path
        fileSize = (try? file.seekToEnd()) ?? 0
    }

    deinit { try? file.close() }

    /// Whether `header` (a file's first 512 bytes) is a tar header: `ustar` at offset 257 and a
    /// correct checksum.
    static func isTarHeader(_ header: [UInt8]) -> Bool {
        header.count >= Int(blockSize) && Array(header[257..<262]) == Array("ustar".utf8) && checksumMatches(header)
    }

    /// Every regular file of the archive, in archive order.
    func entries() throws -> [Entry] {
        var entries: [Entry] = []
        var offset: UInt64 = 0
        var longName: String?
        while offset + Self.blockSize <= fileSize {
            let header = try read(at: offset, count: Int(Self.blockSize))
            if header.allSatisfy({ $0 == 0 }) { break }  // the end-of-archive blocks
            guard Self.checksumMatches(header) else { throw ImportSourceError("\(path): damaged tar header at byte \(offset)") }
            guard let size = Self.number(header[124..<136]) else { throw ImportSourceError("\(path): bad size in the tar header at byte \(offset)") }
            let dataOffset = offset + Self.blockSize
            let (padded, overflow) = size.addingReportingOverflow((Self.blockSize - size % Self.blockSize) % Self.blockSize)
            guard !overflow, dataOffset <= fileSize, padded <= fileSize - dataOffset else {
                throw ImportSourceError("\(path): the entry at byte \(offset) runs past the end of the archive (cut short?)")
            }
            switch header[156] {
            case UInt8(ascii: "L"):  // GNU: the next entry's long name
                longName = Self.text(try read(at: dataOffset, count: Int(min(size, 65_536)))[...])
            case UInt8(ascii: "x"):  // pax: records of the next entry, `path` among them
                longName = Self.paxPath(try read(at: dataOffset, count: Int(min(size, 65_536)))) ?? longName
            case UInt8(ascii: "0"), 0, UInt8(ascii: "7"):
                let name = longName ?? Self.headerName(header)
                entries.append(Entry(name: name, offset: dataOffset, size: size))
                longName = nil
            default:  // directories, links, devices, global pax headers
                longName = nil
            }
            offset = dataOffset + padded
        }
        return entries
    }

    /// Reads `entry` in chunks of up to `chunkBytes`: the next chunk, nil after its last byte.
    func chunks(of entry: Entry, chunkBytes: Int) -> () throws -> [UInt8]? {
        var done: UInt64 = 0
        return { [self] in
            guard done < entry.size else { return nil }
            let count = Int(min(UInt64(chunkBytes), entry.size - done))
            let bytes = try read(at: entry.offset + done, count: count)
            done += UInt64(count)
            return bytes
        }
    }

    private func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        try file.seek(toOffset: offset)
        let data = try file.read(upToCount: count) ?? Data()
        guard data.count == count else { throw ImportSourceError("\(path): cut short at byte \(offset + UInt64(data.count))") }
        return [UInt8](data)
    }

    // MARK: Header fields

    /// POSIX ustar's `prefix/name`, or the plain name (GNU's format, magic `ustar  `, keeps
    /// other fields where POSIX has the prefix, and long names in `L` entries).
    static func headerName(_ header: [UInt8]) -> String {
        let name = text(header[0..<100])
        let prefix = Array(header[257..<263]) == Array("ustar".utf8) + [0] ? text(header[345..<500]) : ""
        return prefix.isEmpty ? name : prefix + "/" + name
    }

    /// A NUL-terminated field as text.
    static func text(_ field: ArraySlice<UInt8>) -> String {
        String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// An octal number field (spaces and NULs around it allowed), or GNU's base-256 form (high
    /// bit of the first byte set) for sizes of 8 GiB and more.
    static func number(_ field: ArraySlice<UInt8>) -> UInt64? {
        if let first = field.first, first & 0x80 != 0 {
            var value: UInt64 = UInt64(first & 0x7F)
            for byte in field.dropFirst() {
                guard value >> 56 == 0 else { return nil }
                value = value << 8 | UInt64(byte)
            }
            return value
        }
        let digits = field.drop { $0 == 32 || $0 == 0 }.prefix { $0 != 32 && $0 != 0 }
        guard !digits.isEmpty else { return 0 }
        var value: UInt64 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(byte), value >> 60 == 0 else { return nil }
            value = value << 3 | UInt64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The header checksum: the sum of its bytes with the checksum field counted as spaces.
    static func checksumMatches(_ header: [UInt8]) -> Bool {
        guard header.count >= Int(blockSize), let stored = number(header[148..<156]) else { return false }
        var sum: UInt64 = 0
        for (i, byte) in header.prefix(Int(blockSize)).enumerated() { sum += (148..<156).contains(i) ? 32 : UInt64(byte) }
        return sum == stored
    }

    /// The `path` of pax extended-header records (`<length> path=<value>\n`).
    static func paxPath(_ records: [UInt8]) -> String? {
        var rest = records[...]
        while let space = rest.firstIndex(of: 32), let length = Int(String(decoding: rest[..<space], as: UTF8.self)), length > 0,
              length <= rest.count {
            let record = rest[rest.startIndex..<(rest.startIndex + length)]
            let body = record[(space + 1)...].dropLast()  // without the newline
            if body.starts(with: Array("path=".utf8)) { return String(decoding: body.dropFirst(5), as: UTF8.self) }
            rest = rest[(rest.startIndex + length)...]
        }
        return nil
    }
}

/// A history source `fod import` cannot read (a damaged archive, several devices' files): the
/// command's error, exit status 1.
struct ImportSourceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

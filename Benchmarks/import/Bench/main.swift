import Dispatch
import Glibc
import LocationFormats
import Timestamps

// fod-import-bench <file> [--chunk-kib 1024] [--batch 5000]
// fod-import-bench <file> --store <new dir> [--batch 5000] [--index-buffer N]
//
// Streams a history file through `HistoryImporter` (the parser and validation, no storage) and
// reports fixes/s, MB/s and memory: resident set size before reading (idle) and its peak
// (VmHWM), read from /proc/self/status. With `--store`, the raw batched ingest of the same rows
// instead (`StoreBaseline`): the baseline of Benchmarks/import/run.sh.

func statusKiB(_ field: String) -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix(field + ":") {
            return Int(text.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? -1
        }
    }
    return -1
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let path = arguments.first else { print("usage: fod-import-bench <file> [--chunk-kib N] [--batch N]"); exit(2) }
func option(_ name: String, _ fallback: Int, in arguments: [String]) -> Int {
    guard let i = arguments.firstIndex(of: "--" + name), i + 1 < arguments.count, let v = Int(arguments[i + 1]) else { return fallback }
    return v
}
let chunkSize = option("chunk-kib", 1024, in: arguments) * 1024
if let i = arguments.firstIndex(of: "--store"), i + 1 < arguments.count {
    let directory = arguments[i + 1]
    let buffer = arguments.contains("--index-buffer") ? option("index-buffer", 0, in: arguments) : nil
    let batch = option("batch", 5000, in: arguments)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { try await StoreBaseline.run(path: path, directory: directory, batchSize: batch, indexBuffer: buffer) } catch { print("store baseline failed: \(error)") }
        done.signal()
    }
    done.wait()
    exit(0)
}
let idle = statusKiB("VmRSS")
let fd = open(path, O_RDONLY)
guard fd >= 0 else { print("cannot open \(path)"); exit(1) }
var importer = HistoryImporter(options: ImportOptions(now: Timestamp.nowMilliseconds(), batchSize: option("batch", 5000, in: arguments)))
var chunk = [UInt8](repeating: 0, count: chunkSize)
var fixes = 0, bytes = 0, checksum = 0.0
let t0 = Timestamp.monotonicNanoseconds()
while true {
    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, chunkSize) }
    if n <= 0 { break }
    bytes += n
    chunk.withUnsafeBytes { importer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    while let batch = importer.nextBatch() { fixes += batch.count; checksum += batch[0].latitude }
}
close(fd)
importer.finish()
while let batch = importer.nextBatch() { fixes += batch.count; checksum += batch[0].latitude }
let seconds = Double(Timestamp.monotonicNanoseconds() - t0) / 1e9
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
let peak = statusKiB("VmHWM")
let s = importer.summary
print("import: \(path): format \(s.format?.rawValue ?? "none"), \(s.points) points, \(fixes) fixes, \(s.rejected) rejected\(s.stopped.map { ", stopped: \($0)" } ?? "")")
print("import: \(fixed(seconds, 2)) s wall, \(fixed(Double(fixes) / seconds, 0)) fixes/s, \(fixed(Double(bytes) / seconds / 1e6, 1)) MB/s; \(fixed(cpu, 2)) s CPU, \(fixed(Double(fixes) / cpu, 0)) fixes/s per CPU second")
print("import: RSS idle \(idle / 1024) MiB, peak \(peak / 1024) MiB, growth \((peak - idle) / 1024) MiB (checksum \(Int(checksum) % 1000))")

/// `value` with `digits` decimals (printf's %.*f).
func fixed(_ value: Double, _ digits: Int) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    _ = withVaList([Int32(digits), value]) { vsnprintf(&buffer, buffer.count, "%.*f", $0) }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

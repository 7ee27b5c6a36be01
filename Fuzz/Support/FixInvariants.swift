/// What every format parser in LocationFormats promises about the fixes it returns.
import JSONCore
import LocationFormats

/// 2023-11-14T22:13:20Z, the "now" the format targets parse with (as in the tests).
let fuzzNow: Int64 = 1_700_000_000_000

/// A returned fix is in range: coordinates within MongoDB's bounds, a timestamp inside the
/// window (or `now` when none was given), every measurement finite and in its documented range,
/// a client id of 1…`maxClientIDBytes` bytes.
func checkFix(_ fix: Fix, rules: FixRules = .standard, now: Int64 = fuzzNow, context: @autoclosure () -> String) {
    require(fix.longitude.isFinite && fix.latitude.isFinite && fix.longitude.magnitude <= 180
            && fix.latitude.magnitude <= 90, "position out of range: \(fix) in \(context())")
    if fix.timestampWasGiven {
        let (limit, overflow) = now.addingReportingOverflow(rules.maxFutureMilliseconds)
        require(fix.timestamp >= rules.minTimestamp && (overflow || fix.timestamp <= limit),
                "timestamp \(fix.timestamp) outside the window in \(context())")
    } else {
        require(fix.timestamp == now, "a fix without a timestamp is not at now: \(fix.timestamp)")
    }
    func inRange(_ value: Double?, _ range: ClosedRange<Double>, _ name: String) {
        guard let value else { return }
        require(range.contains(value), "\(name) \(value) outside \(range) in \(context())")
    }
    inRange(fix.accuracy, 0...rules.maxAccuracy, "accuracy")
    inRange(fix.altitude, rules.altitudeRange, "altitude")
    inRange(fix.speed, 0...rules.maxSpeed, "speed")
    inRange(fix.heading, 0...360, "heading")
    inRange(fix.battery, 0...100, "battery")
    if let id = fix.clientID {
        require(!id.isEmpty && id.utf8.count <= rules.maxClientIDBytes, "client id of \(id.utf8.count) bytes")
    }
}

/// An error is ready for the API's error body: a snake_case code and a message.
func checkError(_ error: FixError, context: @autoclosure () -> String) {
    require(!error.code.isEmpty && error.code.utf8.allSatisfy { $0 == UInt8(ascii: "_") || (97...122).contains($0) },
            "error code \(error.code) is not snake_case in \(context())")
    require(!error.message.isEmpty, "error \(error.code) without a message in \(context())")
}

/// A batch accounts for every submitted element exactly once, in ascending order, and each of
/// its fixes and errors is sound. A single-fix body has exactly one outcome, at index 0.
func checkBatch(_ batch: FixBatch, submitted: Int?, rules: FixRules = .standard, now: Int64 = fuzzNow,
                context: @autoclosure () -> String) {
    let fixIndices = batch.fixes.map(\.index), rejectedIndices = batch.rejected.map(\.index)
    require(fixIndices == fixIndices.sorted() && rejectedIndices == rejectedIndices.sorted(),
            "indices not ascending in \(context())")
    let all = (fixIndices + rejectedIndices).sorted()
    require(all == Array(0..<all.count), "indices do not cover 0..<\(all.count) once each in \(context())")
    if let submitted {
        require(batch.count == submitted, "\(batch.count) outcomes for \(submitted) elements in \(context())")
    }
    if batch.isSingle {
        require(batch.count == 1, "a single-fix body with \(batch.count) outcomes")
    }
    require(batch.count <= rules.maxBatch, "a batch of \(batch.count) fixes passed the limit")
    for (_, fix) in batch.fixes { checkFix(fix, rules: rules, now: now, context: context()) }
    for (_, error) in batch.rejected { checkError(error, context: context()) }
}

/// The input parsed as JSON with the API's default limits, or nil when it is not JSON (the
/// JSON target covers that).
func jsonBody(_ bytes: [UInt8]) -> JSONValue? {
    try? JSONParser.parse(bytes)
}

/// What a phone app's request read for the ingest promises: its fixes and errors are sound,
/// every sample within its bound, the battery a percentage, region events inside the window.
func checkPayload(_ payload: AppPayload, rules: FixRules = .standard, now: Int64 = fuzzNow, context: @autoclosure () -> String) {
    for fix in payload.fixes { checkFix(fix, rules: rules, now: now, context: context()) }
    for unusable in payload.unusable {
        checkError(unusable.error, context: context())
        require(unusable.sample.utf8.count <= UnusableMessage.maxSampleBytes, "a sample of \(unusable.sample.utf8.count) bytes")
    }
    if let battery = payload.battery {
        require((0...100).contains(battery.percent), "battery \(battery.percent) in \(context())")
    }
    for transition in payload.transitions {
        require(transition.timestamp >= rules.minTimestamp && transition.timestamp <= now + rules.maxFutureMilliseconds,
                "a region event at \(transition.timestamp) in \(context())")
        require(transition.region.utf8.count <= RegionTransition.maxRegionBytes, "a region name of \(transition.region.utf8.count) bytes")
    }
}

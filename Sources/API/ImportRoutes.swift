import HTTPServer
import JSONCore
import LocationFormats
import Tracking

/// `POST /v1/devices/{id}/import`: a history file as the body (any size up to
/// `Services.Configuration.importMaxBytes`), read while it arrives. That device's own token
/// only — or an import token of that device (`ImportTokenService`), used up by this import —
/// checked before any of the body is read; a device runs at most `importsPerDevice` imports at
/// once (429 past it) and the node `concurrentImports` (503 past it).
struct ImportRoutes {
    let imports: HistoryImportService
    let slots: ImportSlots
    let importTokens: ImportTokenService
    /// Largest history file (bytes; `Services.Configuration.importMaxBytes`).
    let maxBytes: Int
    let access: RouteAccess

    var routes: [Route] {
        let imports = self.imports
        let slots = self.slots
        let importTokens = self.importTokens
        let authentication = access.authentication
        let group = RouteGroup(access: access)
        return [
            // `.anyone`: the credential is resolved here, since an import token is one only here.
            group.streaming("POST", "/v1/devices/{id}/import", .anyone, maxBodyBytes: maxBytes) { request, _ in
                let deviceID: DeviceID = request.id()
                let importToken = Authentication.bearerToken(request).flatMap { ImportTokenService.isImportToken($0) ? $0 : nil }
                let credential = try importToken.map { try importTokens.credential(token: $0, deviceID: deviceID) }
                    ?? authentication.credential(request)
                try imports.admit(deviceID: deviceID, credential: credential)
                let slot = try slots.claim(deviceID)
                return { _, body in
                    defer { slot.release() }
                    if let importToken { try await importTokens.redeem(token: importToken, deviceID: deviceID) }
                    let report = try await imports.run(deviceID: deviceID, credential: credential) { try await body.next() }
                    return try Self.reply(report)
                }
            },
        ]
    }

    /// 200 with the counts; a body in which no format could be recognised (empty, not a history
    /// file) is a 400 with the reader's code (`empty_file`, `unknown_format`, `invalid_file`).
    static func reply(_ report: HistoryImportService.Report) throws -> Response {
        let summary = report.summary
        if summary.format == nil || (summary.points == 0 && summary.stopped != nil), let stop = summary.stopped {
            throw TrackingError.invalid(stop.error.message, code: stop.error.code)
        }
        return .json(document(report))
    }

    /// `{format, accepted, duplicates, rejected, rejectedSamples, points, rejectedByCode, skipped,
    /// bytes, stopped?}` (`skipped`: records that hold no location, e.g. Recorder lines of another
    /// `_type`).
    static func document(_ report: HistoryImportService.Report) -> JSONValue {
        let summary = report.summary
        var object: JSONObject = [
            "format": summary.format.map { .string($0.rawValue) } ?? .null,
            "accepted": .number(JSONNumber(report.accepted)),
            "duplicates": .number(JSONNumber(report.duplicates)),
            "rejected": .number(JSONNumber(summary.rejected)),
            "rejectedSamples": .array(summary.samples.map { sample in
                ["index": .number(JSONNumber(sample.index)), "error": Self.error(sample.error)]
            }),
            "points": .number(JSONNumber(summary.points)),
            "rejectedByCode": .object(JSONObject(summary.rejectedByCode.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key.rawValue, .number(JSONNumber($0.value))) })),
            "skipped": .number(JSONNumber(summary.skipped)),
            "bytes": .number(JSONNumber(report.bytes)),
        ]
        if let stop = summary.stopped {
            object["stopped"] = ["code": .string(stop.error.code.rawValue), "message": .string(stop.error.message), "offset": .number(JSONNumber(stop.offset))]
        }
        return .object(object)
    }

    static func error(_ error: FixError) -> JSONValue {
        ["code": .string(error.code.rawValue), "message": .string(error.message)]
    }
}

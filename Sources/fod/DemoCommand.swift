import API
import Foundation
import HTTPServer
import LocationFormats
import Timestamps
import Tracking

/// `fod demo`: serve, and fill a demo group with the 295 vessels of a real AIS hour in New York
/// Harbor (Data/), replayed through the real ingest path (`LocationService.ingest`: the same
/// validation, deduplication and live events as HTTP ingest), sped up, looping.
enum DemoCommand {
    static let email = "demo@example.org"
    static let password = "demo-password"
    static let groupName = "New York Harbor"

    /// One AIS record: vessel, time offset from the hour's start (ms), position, speed, course.
    struct Record { let mmsi: String; let name: String; let offset: Int64; let lon: Double; let lat: Double; let knots: Double?; let course: Double? }

    static func loadRecords(dataDirectory: String) throws -> [Record] {
        let path = dataDirectory + "/ny-harbor-ais-2020-06-30T00.csv"
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("demo data missing: \(path)") }
        var records: [Record] = []
        var start: Int64?
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).dropFirst() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 8, let ts = Timestamp.parseRFC3339(f[0]), let lon = Double(f[3]), let lat = Double(f[4]) else { continue }
            start = min(start ?? ts, ts)
            records.append(Record(mmsi: f[1], name: f[2].isEmpty ? "MMSI \(f[1])" : f[2], offset: ts, lon: lon, lat: lat,
                                  knots: Double(f[5]), course: Double(f[7]).flatMap { (0...360).contains($0) ? $0 : nil }))
        }
        let t0 = start ?? 0
        return records.map { Record(mmsi: $0.mmsi, name: $0.name, offset: $0.offset - t0, lon: $0.lon, lat: $0.lat, knots: $0.knots, course: $0.course) }
            .sorted { $0.offset < $1.offset }
    }

    /// Creates (or finds) the demo user, one account and device per vessel, and the group.
    /// Returns the device credential of each vessel.
    static func prepare(_ services: Services, records: [Record], logger: Logger) async throws -> [String: Credential] {
        let demo: User
        if let existing = try services.accounts.user(email: email) {
            demo = existing
        } else {
            // Whatever the sign-up policy: the demo is the operator's own tool.
            demo = try await services.accounts.addAccount(email: email, displayName: "Harbor office", password: password, isAdmin: false).user
        }
        var office = try services.devices.list(ownerID: demo.id).first?.id
        if office == nil { office = try await services.devices.add(ownerID: demo.id, name: "Harbor office", platformID: nil).0.id }
        let profile = try services.groups.profile(userID: demo.id)
        let groupID = try await {
            if let g = profile.memberships.first(where: { $0.groupName == groupName && $0.isOwner }) { return g.groupID }
            guard let office else { throw UsageError("the demo office device is missing") }
            return try await services.groups.create(userID: demo.id, name: groupName, deviceID: office).record.id
        }()
        var vessels: [String: String] = [:]
        for r in records where vessels[r.mmsi] == nil { vessels[r.mmsi] = r.name }
        var credentials: [String: Credential] = [:]
        for (mmsi, name) in vessels.sorted(by: { $0.key < $1.key }) {
            let user = try await services.accounts.ensureAccountWithoutPassword(email: "\(mmsi)@vessels.example.org", displayName: name)
            var existing = try services.devices.list(ownerID: user.id).first?.id
            if existing == nil { existing = try await services.devices.add(ownerID: user.id, name: name, platformID: "AIS \(mmsi)").0.id }
            guard let device = existing else { continue }
            if try !services.store.isMember(userID: user.id, groupID: groupID) {
                try await services.groups.invite(groupID: groupID, by: demo.id, email: user.email, countsAgainstLimit: false)
                _ = try await services.groups.accept(groupID: groupID, userID: user.id, deviceID: device)
            }
            credentials[mmsi] = .device(deviceID: device, ownerID: user.id)
        }
        logger.info("demo: group \"\(groupName)\" (\(groupID)) with \(credentials.count) vessels; sign in as \(email) / \(password)")
        return credentials
    }

    /// Replays the records `speed` times faster than real time, stamping each fix with the
    /// time it is replayed at; loops until cancelled.
    static func replay(_ services: Services, records: [Record], credentials: [String: Credential], speed: Double, logger: Logger) async {
        guard let hour = records.last?.offset, hour > 0 else { return }
        var round = 0
        while !Task.isCancelled {
            let start = Timestamp.nowMilliseconds()
            var index = 0
            while index < records.count && !Task.isCancelled {
                let due = start + Int64(Double(records[index].offset) / speed)
                let wait = due - Timestamp.nowMilliseconds()
                if wait > 0 { try? await Task.sleep(for: .milliseconds(wait)) }
                let now = Timestamp.nowMilliseconds()
                var byVessel: [String: [Fix]] = [:]
                while index < records.count && start + Int64(Double(records[index].offset) / speed) <= now {
                    let r = records[index]
                    byVessel[r.mmsi, default: []].append(Fix(longitude: r.lon, latitude: r.lat, timestamp: now,
                                                             speed: r.knots.map { $0 * 1852 / 3600 }, heading: r.course))
                    index += 1
                }
                for (mmsi, fixes) in byVessel {
                    guard let credential = credentials[mmsi], case .device(let deviceID, _) = credential else { continue }
                    // One fix per vessel per tick: the newest (equal timestamps would be duplicates).
                    _ = try? await services.locations.ingest([fixes[fixes.count - 1]], deviceID: deviceID, credential: credential, countsAsRequest: false)
                }
            }
            round += 1
            logger.info("demo: replayed the AIS hour \(round) time(s)")
        }
    }
}

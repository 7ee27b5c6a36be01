import GeoKit
import Timeline
import Timestamps

/// A stay's place: a group place containing it, else the nearest town (GeoNames).
public struct StayPlace: Sendable, Equatable {
    public enum Source: String, Sendable { case place, geonames }
    public let name: String
    public let source: Source
    /// ISO 3166-1 alpha-2, for towns.
    public let country: String?

    public init(name: String, source: Source, country: String? = nil) {
        self.name = name
        self.source = source
        self.country = country
    }
}

/// One segment of a timeline as served: a stay with its place, or a trip.
public enum TimelineEntry: Sendable, Equatable {
    case stay(Stay, place: StayPlace?)
    case trip(Trip)
}

/// A group place that may name stays: its name and region.
public struct NamedPlace: Sendable {
    public let name: String
    public let region: PlaceRegion

    public init(name: String, region: PlaceRegion) {
        self.name = name
        self.region = region
    }
}

/// Group places a timeline may name stays after (API.md: "a group place containing it").
public protocol StayPlaceLookup: Sendable {
    /// The places of the groups through which `credential` reads the device (every group of the
    /// device for its owner), in group-id order, each group's oldest first.
    func places(deviceID: DeviceID, credential: Credential) throws -> [NamedPlace]
}

/// The places module's places as stay names (`StayPlaceLookup` over a `PlaceStore`).
public struct GroupPlaceNames: StayPlaceLookup {
    let store: any PlaceStore

    public init(store: any PlaceStore) { self.store = store }

    public func places(deviceID: DeviceID, credential: Credential) throws -> [NamedPlace] {
        guard case .user(let viewer) = credential else { return [] }
        return try store.readPlaces { tx in
            let isOwner = try tx.device(id: deviceID)?.ownerID == viewer
            var named: [NamedPlace] = []
            for membership in try tx.memberships(deviceID: deviceID).sorted(by: { $0.groupID < $1.groupID }) {
                guard try isOwner || tx.membership(groupID: membership.groupID, userID: viewer) != nil else { continue }
                for place in try tx.places(groupID: membership.groupID) {
                    guard let shape = try? place.shape() else { continue }
                    named.append(NamedPlace(name: place.name, region: shape.region))
                }
            }
            return named
        }
    }
}

/// `GET /v1/devices/{id}/timeline`: the stays and trips of what the caller may read of a
/// device's history (API.md, "Visibility of history": each readable window is segmented on its
/// own, so nothing is inferred across a time the caller may not see), with place names.
///
/// Range: `to` defaults to now, `from` to 24 h before `to`; at most `maxRangeDays` (366) long.
/// Cost: one pass over the range's fixes, read in pages of 10,000 (memory: one page plus the
/// segments); a year of one-minute fixes takes well under a second to segment.
public final class TimelineService: Sendable {
    let store: any LocationStore
    let directory: any DirectoryStore
    let towns: NearestPlace?
    let places: (any StayPlaceLookup)?
    public static let maxRangeDays = 366
    public static let defaultRangeMilliseconds: Int64 = 86_400_000
    /// Meters: the farthest a town may be to name a stay.
    public static let townRadius = 20_000.0
    static let pageSize = 10_000

    public init(store: any LocationStore, directory: any DirectoryStore, towns: NearestPlace?, places: (any StayPlaceLookup)? = nil) {
        self.store = store
        self.directory = directory
        self.towns = towns
        self.places = places
    }

    /// The validated range: `to` default now, `from` default `to` − 24 h, `from` ≤ `to`, at
    /// most `maxRangeDays` long.
    public static func range(from: Int64?, to: Int64?, now: Int64) throws -> ClosedRange<Int64> {
        let upper = to ?? now
        let lower = from ?? (upper - defaultRangeMilliseconds)
        guard lower <= upper else { throw TrackingError.invalid("from must not be after to", code: .invalidRange) }
        guard upper - lower <= Int64(maxRangeDays) * 86_400_000 else {
            throw TrackingError.invalid("a timeline covers at most \(maxRangeDays) days: narrow from and to", code: .invalidRange)
        }
        return lower...upper
    }

    /// The segments, oldest first, of the caller's readable part of `range`; 404 when the
    /// caller may not read the device.
    public func timeline(deviceID: DeviceID, credential: Credential, range: ClosedRange<Int64>,
                         parameters: TimelineParameters) throws -> [TimelineEntry] {
        let windows = try PartitionRules(facts: directory).historyWindows(credential, deviceID: deviceID)
            .clipped(from: range.lowerBound, to: range.upperBound)
        var segments: [TimelineSegment] = []
        for window in windows.intervals {
            var segmenter = TimelineSegmenter(parameters: parameters)
            var cursor: HistoryCursor?
            repeat {
                let page = try store.history(deviceID: deviceID, from: window.lowerBound, to: window.upperBound,
                                             after: cursor, limit: Self.pageSize)
                for stored in page.fixes {
                    let f = stored.fix
                    segmenter.add(TimelineFix(timestamp: f.timestamp, longitude: f.longitude, latitude: f.latitude, accuracy: f.accuracy))
                }
                segments += segmenter.takeSegments()
                cursor = page.next
            } while cursor != nil
            segmenter.finish()
            segments += segmenter.takeSegments()
        }
        let groupPlaces = segments.isEmpty ? [] : try places?.places(deviceID: deviceID, credential: credential) ?? []
        return segments.map { segment in
            switch segment {
            case .trip(let trip): return .trip(trip)
            case .stay(let stay): return .stay(stay, place: place(of: stay, among: groupPlaces))
            }
        }
    }

    /// The fixes along a trip of a timeline this service returned, strictly between its start
    /// and end (those are its `from` and `to`; its span lies inside one readable window),
    /// oldest first, at most `limit`.
    public func path(of trip: Trip, deviceID: DeviceID, limit: Int = 100_000) throws -> [StoredFix] {
        var fixes: [StoredFix] = []
        var cursor: HistoryCursor?
        let (from, fromOverflow) = trip.start.addingReportingOverflow(1)
        let (to, toOverflow) = trip.end.subtractingReportingOverflow(1)
        guard !fromOverflow, !toOverflow, from <= to else { return [] }
        repeat {
            let page = try store.history(deviceID: deviceID, from: from, to: to, after: cursor,
                                         limit: min(Self.pageSize, limit - fixes.count))
            fixes += page.fixes
            cursor = page.next
        } while cursor != nil && fixes.count < limit
        return fixes
    }

    /// The first group place containing the stay's centre, else the nearest town.
    func place(of stay: Stay, among groupPlaces: [NamedPlace]) -> StayPlace? {
        let centre = LatLng(degreesLatitude: stay.location.latitude, longitude: stay.location.longitude).toPoint()
        if let named = groupPlaces.first(where: { $0.region.contains(centre) }) {
            return StayPlace(name: named.name, source: .place)
        }
        guard let match = towns?.nearest(to: stay.location, within: Self.townRadius) else { return nil }
        return StayPlace(name: match.place.name, source: .geonames, country: match.place.country)
    }
}

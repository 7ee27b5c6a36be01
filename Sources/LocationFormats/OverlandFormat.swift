import JSONCore
import Timestamps

/// Overland (iOS): batches of GeoJSON Point features.
///
/// ```json
/// {"locations": [{"type": "Feature",
///                 "geometry": {"type": "Point", "coordinates": [-122.030581, 37.331800]},
///                 "properties": {"timestamp": "2015-10-01T08:00:00-0700", "altitude": 0,
///                                "speed": 4, "horizontal_accuracy": 30, "vertical_accuracy": -1,
///                                "motion": ["driving"], "battery_state": "unplugged",
///                                "battery_level": 0.89, "wifi": "", "device_id": "phone"}}],
///  "current": {...}, "trip": {...}}
/// ```
/// - A body that is not an object or has no `locations` array throws `invalid_body`; more than
///   `FixRules.maxBatch` features throws `batch_too_large`; an empty array is a valid empty batch
///   (the app still deserves `{"result": "ok"}`). `current` and `trip` are ignored.
/// - Each feature must be a `"Feature"` with a `"Point"` geometry (GeoJSON types are
///   case-sensitive) whose `coordinates` follow MongoDB's point rules; a numeric third coordinate
///   is the altitude when `properties.altitude` is absent.
/// - `properties.timestamp` is required: ISO 8601 with a zone (`Z`, `-07:00` or `-0700`).
/// - `altitude` (m); `speed` (m/s), `horizontal_accuracy` (m) and `course` (degrees, sent by some
///   versions) with negative values meaning unknown → nil; `battery_level` 0…1 → percent,
///   negative → nil. `vertical_accuracy`, `motion`, `battery_state`, `wifi`, `device_id` (the
///   Bearer token identifies the device) and everything else are ignored.
/// - A bad feature goes into `rejected` with its index; the others are still returned.
/// - `clientID` is nil: the app resends whole batches unchanged, and the server's (device,
///   timestamp) rule makes every resent point a duplicate.
public enum OverlandFormat {
    /// Reads a batch for the ingest endpoint, never failing: each bad feature is unusable with
    /// the feature as its sample; a body that is not a batch is one unusable message.
    public static func read(_ body: JSONValue, now: Int64, rules: FixRules = .standard) -> AppPayload {
        let batch: FixBatch
        do {
            batch = try parse(body, now: now, rules: rules)
        } catch {
            return AppPayload(unusable: [UnusableMessage(error: error, json: body)])
        }
        var payload = AppPayload(fixes: batch.fixes.map(\.fix))
        for (index, error) in batch.rejected {
            payload.unusable.append(UnusableMessage(error: error, json: body["locations"]?[index] ?? .null))
        }
        return payload
    }

    public static func parse(_ body: JSONValue, now: Int64, rules: FixRules = .standard) throws(FixError) -> FixBatch {
        guard case .object(let root) = body else {
            throw .invalidBody("an Overland body must be an object {\"locations\": [...]}, not \(body.typeWithArticle)")
        }
        guard case .array(let features)? = root["locations"] else {
            throw .invalidBody("an Overland body must have a locations array of GeoJSON Point features")
        }
        guard features.count <= rules.maxBatch else { throw .batchTooLarge(count: features.count, rules: rules) }
        var batch = FixBatch(isSingle: false)
        batch.fixes.reserveCapacity(features.count)
        for (index, feature) in features.enumerated() {
            do {
                batch.fixes.append((index, try fix(feature, now: now, rules: rules)))
            } catch {
                batch.rejected.append((index, error))
            }
        }
        return batch
    }

    static func fix(_ value: JSONValue, now: Int64, rules: FixRules) throws(FixError) -> Fix {
        guard case .object(let feature) = value, case .string("Feature")? = feature["type"] else {
            throw .invalidFix("each element of locations must be a GeoJSON Feature {\"type\": \"Feature\", \"geometry\": ..., \"properties\": ...}")
        }
        guard case .object(let geometry)? = feature["geometry"], case .string("Point")? = geometry["type"] else {
            throw .invalidLocation("geometry must be a GeoJSON Point {\"type\": \"Point\", \"coordinates\": [longitude, latitude]}")
        }
        let point = try FixCheck.coordinates(
            geometry["coordinates"], notArray: .invalidLocation("Point coordinates must be an array [longitude, latitude]"))

        guard case .object(let properties)? = feature["properties"],
              case .string(let text)? = properties["timestamp"] else {
            throw .invalidTimestamp("properties.timestamp (ISO 8601) is required")
        }
        guard let ms = Timestamp.parseRFC3339(text) else {
            throw .invalidTimestamp("properties.timestamp must be an ISO 8601 date-time with a zone (2015-10-01T08:00:00-0700)")
        }
        let timestamp = try FixCheck.window(ms, now: now, rules: rules)

        var altitude = try Measure.altitude(rules: rules).value(properties["altitude"])
        if altitude == nil, let third = point.third {
            altitude = try Measure.altitude("coordinates[2] (altitude)", rules: rules).value(third)
        }
        return Fix(
            longitude: point.longitude, latitude: point.latitude, timestamp: timestamp, timestampWasGiven: true,
            accuracy: try Measure.accuracy("horizontal_accuracy", rules: rules, app: true).value(properties["horizontal_accuracy"]),
            altitude: altitude,
            speed: try Measure.speed(rules: rules, app: true).value(properties["speed"]),
            heading: try Measure.heading("course", app: true).value(properties["course"]),
            battery: try Measure.battery("battery_level", fraction: true, app: true).value(properties["battery_level"]),
            clientID: nil)
    }
}

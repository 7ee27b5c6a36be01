import JSONCore
import LocationFormats
import Tracking

/// The documents of `GET /v1/devices/{id}/rejections` and `GET /v1/devices/{id}/events`.
enum DeviceLogDocuments {
    /// `{at, source, reason, message, sample, count}`.
    static func rejection(_ rejection: IngestRejection) -> JSONValue {
        ["at": .string(Time.format(rejection.at)), "source": .string(rejection.source.rawValue),
         "reason": .string(rejection.reason.rawValue), "message": .string(rejection.message), "sample": .string(rejection.sample),
         "count": .number(JSONNumber(rejection.count))]
    }

    /// `{type: "transition", event, region, timestamp, receivedAt, location?, accuracy?, trigger?}`.
    static func event(_ event: DeviceEvent) -> JSONValue {
        let t = event.transition
        var object: JSONObject = ["type": "transition", "event": .string(t.event.rawValue), "region": .string(t.region),
                                  "timestamp": .string(Time.format(t.timestamp)), "receivedAt": .string(Time.format(event.receivedAt))]
        if let longitude = t.longitude, let latitude = t.latitude { object["location"] = Documents.position(longitude, latitude) }
        if let accuracy = t.accuracy { object["accuracy"] = .number(JSONNumber(accuracy)) }
        if let trigger = t.trigger { object["trigger"] = .string(trigger) }
        return .object(object)
    }
}

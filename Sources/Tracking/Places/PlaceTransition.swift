import GeoKit

/// Whether a device is inside a place, as the server remembers it.
public enum PlacePresence: String, Sendable, Equatable {
    case inside, outside
}

/// A crossing of a place's edge.
public enum PlaceCrossing: String, Sendable, Equatable {
    case enter, exit
}

/// The arrival rule of API.md, "Places (geofences) and arrivals", as a pure function.
///
/// - A fix whose `accuracy` is worse than the place allows (its radius; 1,000 m for a polygon)
///   changes nothing.
/// - With no remembered presence (the device's first known position, a new place), the fix
///   sets it silently: no `enter` for a car that was already parked.
/// - Inside means within the region (boundary included). From inside, the device has left only
///   when it is more than `max(25 m, accuracy)` outside (hysteresis: no flapping at the edge);
///   from outside, it enters as soon as it is inside.
///
/// Fixes that are not the device's newest (late backfills) must not be passed here at all.
public struct PlaceTransition: Sendable, Equatable {
    /// The presence to remember after the fix (nil: keep what was remembered).
    public let presence: PlacePresence?
    /// The crossing to log (nil: none).
    public let crossing: PlaceCrossing?

    public static func evaluate(region: PlaceRegion, remembered: PlacePresence?, point: S2Point,
                                accuracyMeters: Double?) -> PlaceTransition {
        let accuracy = accuracyMeters ?? 0
        if accuracy > region.accuracyLimitMeters { return PlaceTransition(presence: nil, crossing: nil) }
        let outside = region.metersOutside(point)
        switch remembered {
        case nil:
            return PlaceTransition(presence: outside <= 0 ? .inside : .outside, crossing: nil)
        case .outside:
            return outside <= 0 ? PlaceTransition(presence: .inside, crossing: .enter) : PlaceTransition(presence: nil, crossing: nil)
        case .inside:
            return outside > max(PlaceRegion.minimumExitMargin, accuracy)
                ? PlaceTransition(presence: .outside, crossing: .exit) : PlaceTransition(presence: nil, crossing: nil)
        }
    }
}

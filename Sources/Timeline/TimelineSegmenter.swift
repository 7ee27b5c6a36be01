import GeoKit

/// Splits a device's history into stays and trips, one fix at a time (see docs/timeline.md).
///
/// **Input**: fixes in ascending time order. A fix that is older than the previous one, has
/// impossible coordinates or time (beyond ±2⁵³ ms), or whose accuracy is worse than `maxAccuracy`
/// is ignored (counted in `ignoredFixes`); equal timestamps are fine.
///
/// **Algorithm** (deterministic, O(n) time, memory bounded by the fixes of one not-yet-confirmed
/// stay, i.e. those of the last `stayMinutes`):
/// 1. *Inside.* A fix is inside a circle of centre c when `distance(fix, c) − slack ≤ stayRadius`,
///    with `slack = min(accuracy, stayRadius / 2)`: an inaccurate fix that may be inside counts as
///    inside, but no fix can stretch a stay by more than half its radius. Centres are
///    accuracy-weighted means of unit vectors (weight 1 / max(accuracy, 10 m)², 25 m when
///    unknown), so a precise GPS fix outweighs a vague cell-tower one; distances are great-circle
///    meters on MongoDB's sphere (R = 6,378,100 m, GeoKit's `Earth`).
/// 2. *Candidate.* While moving, the most recent fixes that are all inside the circle around
///    their centre form the candidate: a new fix that is not inside pushes the oldest members out
///    (into the current trip) until it is. When the candidate spans `stayMinutes` it becomes a stay
///    — with one fix every 10 minutes, two fixes at the same place already make one.
/// 3. *Stay.* Fixes inside the stay's (updated) centre extend it. A fix outside starts an
///    excursion; if a fix comes back inside within `maxOutlierFixes` + 1 fixes, the excursion was
///    noise (a GPS jump, a Wi-Fi position) and is absorbed into the stay. Otherwise the stay ends
///    at its last inside fix and the excursion's fixes start the next trip.
/// 4. *Gaps.* More than `maxGapMinutes` without fixes ends a trip (the next one starts after the
///    gap). A stay — or a candidate — survives a silent gap of up to `maxStayGapHours` when the
///    first fix after it is inside: the device did not move (phones stop reporting when still).
///    Fixes outside a stay just before a silence (an excursion the first fix after it does not
///    end inside the stay) mean the stay ended there: they are replayed as moving fixes, so they
///    become the candidate that survives the silence — a short trip, then hours at the
///    destination without a fix, is trip then stay, not a trip ending in a lone fix. The same
///    replay runs at the end of the input.
/// 5. *Merge.* A stay, a trip of at most `4 × (maxOutlierFixes + 1)` fixes lasting at most
///    `stayMinutes`, then a stay whose centre is within `stayRadius` of the first: one stay (a
///    longer burst of bad fixes inside a stay). The last stay and the trips on either side of it
///    wait in a one-stay buffer for this, so that both trips meet the stay at its final centre.
/// 6. *Trips* are what lies between: from the end of the previous stay (its centre) through the
///    moving fixes to the start of the next stay (its centre); beside a gap a trip starts or ends
///    at its own first or last fix. Two stays seen back to back give a trip with 0 fixes.
///
/// Every fix that is not ignored lands in exactly one segment, so the segments' `fixes` add up
/// to the fixes given minus `ignoredFixes`, except that a lone fix between two gaps is a trip of
/// one fix and distance 0.
public struct TimelineSegmenter: Sendable {
    public let parameters: TimelineParameters
    /// Fixes not used: out of order, invalid coordinates, or accuracy worse than `maxAccuracy`.
    public private(set) var ignoredFixes = 0

    var candidate = StayCandidate()
    var trip = TripBuilder(from: nil)
    var stay: StayBuilder?
    var excursion: [Sample] = []
    var last: Sample?
    var merger: SegmentMerger

    public init(parameters: TimelineParameters = TimelineParameters()) {
        self.parameters = parameters
        merger = SegmentMerger(parameters: parameters)
    }

    /// Segments of the whole input (a convenience over `add`, `finish` and `takeSegments`).
    public static func segments(of fixes: some Sequence<TimelineFix>,
                                parameters: TimelineParameters = TimelineParameters()) -> [TimelineSegment] {
        var segmenter = TimelineSegmenter(parameters: parameters)
        for fix in fixes { segmenter.add(fix) }
        segmenter.finish()
        return segmenter.takeSegments()
    }

    /// Segments that are final, oldest first; each is returned once.
    public mutating func takeSegments() -> [TimelineSegment] {
        let out = merger.output
        merger.output.removeAll(keepingCapacity: true)
        return out
    }

    /// Timestamps beyond ±2⁵³ ms (±285,000 years) are ignored, so no difference of two can overflow.
    static let maxTimestampMagnitude: UInt64 = 1 << 53

    /// Adds the next fix (see the type's documentation for what is ignored).
    public mutating func add(_ fix: TimelineFix) {
        guard fix.latitude.isFinite, fix.longitude.isFinite, fix.latitude.magnitude <= 90, fix.longitude.magnitude <= 180,
              (fix.accuracy ?? 0) <= parameters.maxAccuracy, !(fix.accuracy?.isNaN ?? false),
              fix.timestamp.magnitude <= Self.maxTimestampMagnitude, fix.timestamp >= (last?.time ?? Int64.min) else {
            ignoredFixes += 1
            return
        }
        let sample = Sample(fix, stayRadius: parameters.stayRadius)
        defer { last = sample }
        if let last, sample.time - last.time > parameters.maxGapMilliseconds {
            afterGap(sample, silence: sample.time - last.time)
        } else {
            step(sample)
        }
    }

    /// Ends the input: the open stay or trip is final.
    public mutating func finish() {
        // Fixes outside the last stay may be a stay of their own (two fixes at the destination).
        while stay != nil && !excursion.isEmpty { replayExcursion() }
        endStay()
        flushCandidateIntoTrip()
        endTrip()
        merger.flush()
    }

    // MARK: Steps

    func isInside(_ s: Sample, _ centre: S2Point) -> Bool {
        meters(s.point, centre) - s.slack <= parameters.stayRadius
    }

    mutating func step(_ s: Sample) {
        if stay != nil { stayStep(s) } else { movingStep(s) }
    }

    mutating func movingStep(_ s: Sample) {
        while !candidate.isEmpty && !isInside(s, candidate.centre) {
            if let oldest = candidate.removeFirst() { trip.add(oldest) }
        }
        candidate.append(s)
        if candidate.span >= parameters.stayMilliseconds { confirmCandidate() }
    }

    mutating func stayStep(_ s: Sample) {
        guard var current = stay else { return }
        if isInside(s, current.centre) {
            // Back inside: what was outside meanwhile was noise.
            current.fixes += excursion.count
            excursion.removeAll(keepingCapacity: true)
            current.add(s)
            stay = current
            return
        }
        excursion.append(s)
        guard excursion.count > parameters.maxOutlierFixes else { return }
        replayExcursion()
    }

    /// Ends the stay at its last inside fix and replays the fixes outside it as if they arrived
    /// now: they may start a stay of their own (once one of them confirms a new stay, the rest
    /// are that stay's: moving steps after it would replace the stay and lose its fixes). A
    /// stay they confirm may have an excursion in turn, always shorter than this one.
    mutating func replayExcursion() {
        let moved = excursion
        excursion.removeAll(keepingCapacity: true)
        endStay()
        for m in moved { step(m) }
    }

    mutating func afterGap(_ s: Sample, silence: Int64) {
        let stillThere = silence <= parameters.maxStayGapMilliseconds
        // The device left the stay (the excursion's fixes) and went silent where it went: the
        // stay ended before the silence, and the fixes after it may be the start of the next stay,
        // which survives the silence below when the fix after it is inside (a short trip, then
        // hours at the destination without a fix: OwnTracks' significant-changes mode, an
        // imported visit's two fixes).
        while let current = stay, !excursion.isEmpty, !(stillThere && isInside(s, current.centre)) {
            replayExcursion()
        }
        if let current = stay {
            if stillThere && isInside(s, current.centre) {
                stayStep(s)
                return
            }
            endStay()  // at the silence; nothing is outside it any more (the loop above)
        } else if stillThere && !candidate.isEmpty && isInside(s, candidate.centre) {
            movingStep(s)
            return
        }
        flushCandidateIntoTrip()
        endTrip()
        merger.gap()
        movingStep(s)
    }

    // MARK: Segment boundaries

    mutating func confirmCandidate() {
        let confirmed = StayBuilder(candidate)
        candidate.removeAll()
        // The trip so far ends where this stay starts; the merger completes it with the
        // stay's final centre once the stay ends.
        merger.addTripToNextStay(trip)
        trip = TripBuilder(from: nil)
        stay = confirmed
    }

    mutating func endStay() {
        guard let current = stay else { return }
        stay = nil
        merger.add(current)
        trip = TripBuilder(from: current.departure)
        excursion.removeAll(keepingCapacity: true)
    }

    mutating func flushCandidateIntoTrip() {
        while let oldest = candidate.removeFirst() { trip.add(oldest) }
    }

    /// Ends the current trip at a gap or at the end of the input.
    mutating func endTrip() {
        merger.add(trip)
        trip = TripBuilder(from: nil)
    }
}

/// Holds the last stay with the trips on either side of it until the next stay is final, so that
/// a stay interrupted by a short burst of bad fixes can be merged back and both trips end at
/// the held stay's final centre (after any merge); everything else passes straight to `output`.
/// Holds at most one stay and two trips.
struct SegmentMerger: Sendable {
    let parameters: TimelineParameters
    var output: [TimelineSegment] = []
    var heldStay: StayBuilder?
    /// The trip that ends at `heldStay`: its end waits for that stay's final centre.
    var tripIntoHeld: TripBuilder?
    /// The trip after `heldStay` that ends at the stay added next (its `to` is not final yet).
    var heldTrip: TripBuilder?

    init(parameters: TimelineParameters) { self.parameters = parameters }

    var maxMergeFixes: Int { 4 * (parameters.maxOutlierFixes + 1) }

    /// `trip` starting at the held stay as it is now (it may have absorbed a stay since the
    /// segmenter began the trip at its old centre).
    func fromHeldStay(_ trip: TripBuilder) -> TripBuilder {
        guard let held = heldStay else { return trip }
        return trip.starting(at: held.departure)
    }

    /// A stay that is complete.
    mutating func add(_ next: StayBuilder) {
        let between = heldTrip.map(fromHeldStay)
        heldTrip = nil
        if var held = heldStay {
            let tentative = between?.trip(to: next.arrival)
            let short = tentative.map { $0.fixes <= maxMergeFixes && $0.end - $0.start <= parameters.stayMilliseconds } ?? true
            if short && meters(held.centre, next.centre) <= parameters.stayRadius {
                held.absorb(tripFixes: between?.fixes ?? 0, then: next)
                heldStay = held
                return
            }
            emitHeldStay()
        }
        tripIntoHeld = between
        heldStay = next
    }

    /// A trip that ends at the stay added next.
    mutating func addTripToNextStay(_ trip: TripBuilder) {
        heldTrip = trip
    }

    /// A trip that ends at a gap or at the end of the input.
    mutating func add(_ trip: TripBuilder) {
        let finished = fromHeldStay(trip).trip(to: nil)
        flush()
        if let finished { output.append(.trip(finished)) }
    }

    /// A gap: nothing before it merges with anything after it.
    mutating func gap() { flush() }

    mutating func flush() {
        let after = heldTrip.map(fromHeldStay)?.trip(to: nil)
        emitHeldStay()
        if let after { output.append(.trip(after)) }
        heldTrip = nil
    }

    /// Writes the trip into the held stay, ending at its final centre, and the stay itself.
    mutating func emitHeldStay() {
        if let held = heldStay {
            if let into = tripIntoHeld?.trip(to: held.arrival) { output.append(.trip(into)) }
            output.append(.stay(held.stay))
        } else if let into = tripIntoHeld?.trip(to: nil) {
            output.append(.trip(into))
        }
        heldStay = nil
        tripIntoHeld = nil
    }
}

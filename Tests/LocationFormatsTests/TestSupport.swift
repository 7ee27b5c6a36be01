import ErrorCodes
import JSONCore
import LocationFormats
import Testing

extension FixError {
    /// The error with the code written as text, for tables of expected errors.
    init(code: String, message: String) {
        self.init(code: ErrorCode(rawValue: code), message: message)
    }
}

/// 2023-11-14T22:13:20Z, the "now" of every test.
let testNow: Int64 = 1_700_000_000_000

/// Parses JSON text written in a test (a parse failure is a bug in the test).
func json(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    do {
        return try JSONParser.parse(text)
    } catch {
        Issue.record("test JSON does not parse: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// Runs a throwing parse and returns its `FixError`, or nil when it did not throw.
func fixError<T>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) -> FixError? {
    do {
        _ = try body()
        return nil
    } catch let error as FixError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Equal within a relative tolerance (for unit conversions such as knots → m/s).
func approximatelyEqual(_ a: Double?, _ b: Double?, tolerance: Double = 1e-9) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case let (x?, y?): return (x - y).magnitude <= tolerance * max(1, y.magnitude)
    default: return false
    }
}

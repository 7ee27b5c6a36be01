// Codes of location bodies (every ingest format) and of history imports. All are 400s: per
// fix in a batch's `rejected` list, or for the whole body.

extension ErrorCode {
    // MARK: Fixes

    /// The whole body has the wrong shape; nothing in it was looked at further (400).
    public static let invalidBody = ErrorCode("invalid_body")
    /// A batch element that is not an object or not a GeoJSON Feature (400).
    public static let invalidFix = ErrorCode("invalid_fix")
    /// A position that is not `[longitude, latitude]` of finite numbers in range (400).
    public static let invalidLocation = ErrorCode("invalid_location")
    /// A time that cannot be read (400).
    public static let invalidTimestamp = ErrorCode("invalid_timestamp")
    /// A time before the earliest a fix may have (400).
    public static let timestampTooOld = ErrorCode("timestamp_too_old")
    /// A time further in the future than clock skew explains (400).
    public static let timestampInFuture = ErrorCode("timestamp_in_future")
    /// A batch with more fixes than allowed (400).
    public static let batchTooLarge = ErrorCode("batch_too_large")
    /// A batch with no fixes (400).
    public static let emptyBatch = ErrorCode("empty_batch")
    /// A client fix id that is not a string of 1 to the allowed number of bytes (400).
    public static let invalidID = ErrorCode("invalid_id")
    /// An accuracy that is not a number in range (400).
    public static let invalidAccuracy = ErrorCode("invalid_accuracy")
    /// An altitude that is not a number in range (400).
    public static let invalidAltitude = ErrorCode("invalid_altitude")
    /// A speed that is not a number in range (400).
    public static let invalidSpeed = ErrorCode("invalid_speed")
    /// A heading that is not a number from 0 to 360 (400).
    public static let invalidHeading = ErrorCode("invalid_heading")
    /// A battery level that is not a number in range (400).
    public static let invalidBattery = ErrorCode("invalid_battery")
    /// An OsmAnd/Traccar parameter given twice with different values (400).
    public static let duplicateParameter = ErrorCode("duplicate_parameter")
    /// An OsmAnd/Traccar request without the device token (400).
    public static let missingDeviceID = ErrorCode("missing_device_id")
    /// An OsmAnd/Traccar fix the device itself marked `valid=false` (400).
    public static let fixNotValid = ErrorCode("fix_not_valid")
    /// A form body with a bad percent escape or not UTF-8 after decoding (400).
    public static let invalidForm = ErrorCode("invalid_form")

    static let fixes: [ErrorCode] = [
        invalidBody, invalidFix, invalidLocation, invalidTimestamp, timestampTooOld, timestampInFuture, batchTooLarge,
        emptyBatch, invalidID, invalidAccuracy, invalidAltitude, invalidSpeed, invalidHeading, invalidBattery,
        duplicateParameter, missingDeviceID, fixNotValid, invalidForm,
    ]

    // MARK: Phone apps (reasons of `GET /v1/devices/{id}/rejections`, never a status)

    /// An OwnTracks `encrypted` message from a device whose owner set no `owntracksSecret`.
    public static let encryptionNotConfigured = ErrorCode("encryption_not_configured")
    /// An OwnTracks `encrypted` message that does not open with the device's secret (another
    /// passphrase on the phone, or not base64 of nonce, MAC and ciphertext).
    public static let decryptionFailed = ErrorCode("decryption_failed")
    /// A phone-app message of a type the server does not know (an OwnTracks `_type`).
    public static let unsupportedMessage = ErrorCode("unsupported_message")
    /// An element of a Traccar Client batch that names another device than the request's token.
    public static let deviceIDMismatch = ErrorCode("device_id_mismatch")

    static let phoneApps: [ErrorCode] = [encryptionNotConfigured, decryptionFailed, unsupportedMessage, deviceIDMismatch]

    // MARK: History imports

    /// A history file that cannot be read as the format it claims (400, or `stopped` of an import).
    public static let invalidFile = ErrorCode("invalid_file")
    /// A history point without a time (counted in `rejectedByCode`).
    public static let missingTimestamp = ErrorCode("missing_timestamp")
    /// A history record larger than the record limit, skipped (counted in `rejectedByCode`).
    public static let recordTooLarge = ErrorCode("record_too_large")
    /// A history element of none of the known shapes (counted in `rejectedByCode`).
    public static let invalidRecord = ErrorCode("invalid_record")
    /// A file in none of the formats the importer reads (400, or `stopped`).
    public static let unknownFormat = ErrorCode("unknown_format")
    /// An empty file (400).
    public static let emptyFile = ErrorCode("empty_file")
    /// A file cut short inside a record (`stopped`, or 400 when nothing was read).
    public static let truncatedFile = ErrorCode("truncated_file")
    /// A GPX element longer than the record limit (`stopped`, or 400 when nothing was read).
    public static let limitExceeded = ErrorCode("limit_exceeded")
    /// A file that mixes formats (`stopped`, or 400 when nothing was read).
    public static let mixedFormats = ErrorCode("mixed_formats")

    static let imports: [ErrorCode] = [
        invalidFile, missingTimestamp, recordTooLarge, invalidRecord, unknownFormat, emptyFile, truncatedFile,
        limitExceeded, mixedFormats,
    ]
}

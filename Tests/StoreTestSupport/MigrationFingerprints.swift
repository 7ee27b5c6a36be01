/// Fingerprints of schema migrations, so a test can hold every applied migration to the text it
/// was applied with ("append only; never edit an applied one"): a database that ran version N
/// never runs it again, so an edited migration would leave old and new databases different.
public enum MigrationFingerprints {
    /// FNV-1a (64 bits) of `sql`'s UTF-8 bytes, as 16 hex digits.
    public static func of(_ sql: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sql.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

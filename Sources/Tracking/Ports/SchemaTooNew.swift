/// A database written by a newer release of the program: its schema version is above the
/// newest migration this binary knows. A store refuses to open it before changing anything (no
/// migration runs, nothing is written), because this binary cannot know what the newer schema
/// means; the message says what to do instead.
public struct SchemaTooNew: Error, Sendable, CustomStringConvertible {
    /// Which database, for the message (a file path, or "the PostgreSQL database").
    public let database: String
    /// The schema version stored in the database.
    public let found: Int64
    /// The newest schema version this binary knows.
    public let known: Int64

    public init(database: String, found: Int64, known: Int64) {
        self.database = database
        self.found = found
        self.known = known
    }

    public var description: String {
        "\(database) has schema version \(found), newer than this fod knows (\(known)): it was written by a newer release. "
            + "Run that release or a newer one, or restore a backup made with this release; the database was left unchanged"
    }
}

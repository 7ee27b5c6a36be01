/// Input rules shared by the services. Each returns the normalised value or throws a 400.
enum Validate {
    static func normalizedEmail(_ raw: String) -> String {
        raw.trimmingWhitespace().lowercased()
    }

    static func email(_ raw: String) throws -> String {
        let email = normalizedEmail(raw)
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard AccountLimits.emailBytes.contains(email.utf8.count), parts.count == 2,
              !parts[0].isEmpty, !parts[1].isEmpty,
              !email.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7f })
        else { throw TrackingError.invalid("email must look like name@example.org (at most 254 bytes)", code: .invalidEmail) }
        return email
    }

    /// A new password: 8 to 256 characters (and at most 1,024 UTF-8 bytes). Existing passwords
    /// are checked whatever their length (accounts made when the rule was 8 to 1,024 bytes).
    static func password(_ password: String, field: String = "password") throws {
        guard password.utf8.count <= AccountLimits.maxPasswordBytes, AccountLimits.passwordCharacters.contains(password.count) else {
            throw TrackingError.invalid("\(field) must be 8 to 256 characters long", code: .invalidPassword)
        }
    }

    static func displayName(_ raw: String) throws -> String {
        try name(raw, field: "displayName")
    }

    /// A trimmed name of 1–100 characters without control characters.
    static func name(_ raw: String, field: String) throws -> String {
        let name = raw.trimmingWhitespace()
        guard AccountLimits.displayNameCharacters.contains(name.count),
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw TrackingError.invalid("\(field) must be 1 to 100 characters without control characters", code: .invalidName) }
        return name
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[start...end])
    }
}

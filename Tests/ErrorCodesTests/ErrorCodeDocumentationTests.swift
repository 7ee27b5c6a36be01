import ErrorCodes
import Foundation
import GeoQuery
import Testing

/// The codes the server can send and the codes the contract documents are the same set.
@Suite struct ErrorCodeDocumentationTests {
    /// The repository root (this file is `Tests/ErrorCodesTests/…`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every code a response can carry: ours and GeoQuery's operator codes.
    static let known = Set(ErrorCode.all.map(\.rawValue)).union(GeoQueryError.Code.allCases.map(\.rawValue))

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Whether `text` has the shape of a code: lower-case letters with single underscores between words.
    static func isCodeShaped(_ text: String) -> Bool {
        !text.isEmpty && text.split(separator: "_", omittingEmptySubsequences: false)
            .allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (97...122).contains($0) } }
    }

    /// The words in backticks of `text` that have the shape of a code.
    static func backticked(_ text: Substring, needUnderscore: Bool) -> Set<String> {
        var words: Set<String> = []
        for (index, piece) in text.split(separator: "`", omittingEmptySubsequences: false).enumerated() where index % 2 == 1 {
            let word = String(piece)
            if isCodeShaped(word) && (!needUnderscore || word.contains("_")) { words.insert(word) }
        }
        return words
    }

    @Test func everyCodeIsSnakeCaseAndListedOnce() {
        #expect(Set(ErrorCode.all).count == ErrorCode.all.count)
        for code in ErrorCode.all {
            #expect(Self.isCodeShaped(code.rawValue), "\(code)")
            #expect(ErrorCode(rawValue: code.rawValue) == code && code.description == code.rawValue)
        }
    }

    @Test func apiDocumentListsExactlyTheKnownCodes() throws {
        let document = try Self.text("docs/API.md")
        let start = try #require(document.range(of: "\n## Error codes\n"))
        let rest = document[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        let documented = Self.backticked(section, needUnderscore: false)
        #expect(documented.subtracting(Self.known).sorted() == [], "documented in docs/API.md but unknown to the server")
        #expect(Self.known.subtracting(documented).sorted() == [], "known to the server but missing from docs/API.md")
    }

    @Test func openAPIDocumentNamesOnlyKnownCodes() throws {
        let document = try Self.text("docs/openapi.yaml")
        // Snake_case words in backticks that are parameter names of the phone apps' protocols, not codes.
        let parameterNames: Set<String> = ["battery_state", "created_at", "device_id", "is_moving", "vertical_accuracy"]
        let mentioned = Self.backticked(document[...], needUnderscore: true).subtracting(parameterNames)
        #expect(mentioned.subtracting(Self.known).sorted() == [], "named in docs/openapi.yaml but unknown to the server")
        var examples: Set<String> = []
        for line in document.split(separator: "\n") {
            guard let range = line.range(of: "code: ") else { continue }
            let word = line[range.upperBound...].prefix { $0 == "_" || ("a"..."z").contains($0) }
            if !word.isEmpty { examples.insert(String(word)) }
        }
        #expect(!examples.isEmpty)
        #expect(examples.subtracting(Self.known).sorted() == [], "in an example of docs/openapi.yaml but unknown to the server")
    }
}

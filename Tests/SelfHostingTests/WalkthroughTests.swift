import Foundation
import HTTPTestSupport
import ProcessTestSupport
import Testing

/// docs/walkthrough.md, run as written against a fresh `fod serve`: every `sh` block, in order,
/// in one shell, and every output it shows (`# → ` lines after a command) compared with what
/// the server answered. `…` in a shown output stands for anything (ids, tokens, times); a
/// command without a shown output must print nothing. So the page cannot drift from what the
/// server does. The README's example block is run the same way.
@Suite struct WalkthroughTests {
    /// The page's own name for the server it talks to.
    static let documentedBase = "http://localhost:8080"

    @Test func everyExampleGivesTheOutputItShows() throws {
        try Self.run("docs/walkthrough.md", .allShellBlocks, leastSteps: 20)
    }

    /// The README's taste of the API: its block that says it runs.
    @Test func theReadmeExampleGivesTheOutputItShows() throws {
        try Self.run("README.md", .markedShellBlocks, leastSteps: 2)
    }

    static func run(_ page: String, _ selection: WalkthroughPage.Selection, leastSteps: Int) throws {
        let markdown = try String(contentsOfFile: "\(packageRoot)/\(page)", encoding: .utf8)
        let steps = WalkthroughPage(markdown: markdown, selection: selection).steps
        #expect(steps.count >= leastSteps, "\(page) lost its examples")
        let directory = try scratchDirectory("fod-walkthrough-")
        defer { removeScratch(directory) }
        // The default sign-up policy, as a new server has it (test servers otherwise let anyone sign up).
        let server = try FodProcess(dataDirectory: directory + "/data", extraArguments: ["--heartbeat-seconds", "1", "--signup", ""])
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        let outputs = try WalkthroughPage.run(steps, base: base, documentedBase: documentedBase, in: directory)
        for (step, output) in zip(steps, outputs) {
            #expect(step.matches(output), """
                \(page) line \(step.line): the output differs.
                command:
                \(step.commands)
                shown:
                \(step.expected.joined(separator: "\n"))
                got:
                \(output)
                """)
        }
    }
}

/// The shell examples of a Markdown page, as steps: commands and the output the page shows for them.
struct WalkthroughPage {
    struct Step {
        /// The page's line where the step's commands begin (1-based).
        let line: Int
        var commands: String
        /// The shown output, a line each (`# → ` removed); empty: it prints nothing.
        var expected: [String]

        /// Whether `output` is what the page shows: the same text, `…` standing for any run of characters.
        func matches(_ output: String) -> Bool {
            let pattern = expected.joined(separator: "\n").components(separatedBy: "…")
                .map { NSRegularExpression.escapedPattern(for: $0) }.joined(separator: "[\\s\\S]*?")
            guard let regex = try? NSRegularExpression(pattern: "^" + pattern + "$") else { return false }
            return regex.firstMatch(in: output, range: NSRange(output.startIndex..., in: output)) != nil
        }
    }

    /// Which `sh` blocks of a page run: all, or only those right after a line starting with
    /// `<!-- run by` (a page whose other blocks need files or root).
    enum Selection { case allShellBlocks, markedShellBlocks }

    static let outputMarker = "# → "
    static let runMarker = "<!-- run by"
    let steps: [Step]

    init(markdown: String, selection: Selection) {
        var steps: [Step] = []
        var current: Step?
        var inShell = false
        var previous = ""
        for (number, line) in markdown.components(separatedBy: "\n").enumerated() {
            defer { previous = line }
            if line.hasPrefix("```") {
                inShell = !inShell && line == "```sh" && (selection == .allShellBlocks || previous.hasPrefix(Self.runMarker))
                if let finished = current { steps.append(finished) }
                current = nil
                continue
            }
            guard inShell else { continue }
            if line.hasPrefix(Self.outputMarker) || line == Self.outputMarker.trimmingCharacters(in: .whitespaces) {
                current?.expected.append(String(line.dropFirst(Self.outputMarker.count)))
            } else if current == nil || !(current?.expected.isEmpty ?? true) {
                if let finished = current { steps.append(finished) }
                current = Step(line: number + 1, commands: line, expected: [])
            } else {
                current?.commands += "\n" + line
            }
        }
        self.steps = steps
    }

    /// Runs `steps` in order in one bash in `directory`, the page's `documentedBase` replaced by
    /// `base`; returns each step's output (standard output and error, trimmed, `base` written as
    /// `documentedBase` again).
    static func run(_ steps: [Step], base: String, documentedBase: String, in directory: String) throws -> [String] {
        let marker = "@@walkthrough-step"
        var script = "cd \(directory)\nexec 2>&1\n"
        for (index, step) in steps.enumerated() {
            script += "printf '\\n\(marker) \(index)\\n'\n" + step.commands.replacingOccurrences(of: documentedBase, with: base) + "\n"
        }
        script += "printf '\\n\(marker) end\\n'\n"
        try script.write(toFile: directory + "/walkthrough.sh", atomically: true, encoding: .utf8)
        let (_, output) = try runToCompletion("/bin/bash", [directory + "/walkthrough.sh"], limitSeconds: 300)
        let text = output.replacingOccurrences(of: base, with: documentedBase)
        var outputs: [String] = []
        for index in steps.indices {
            let start = "\n\(marker) \(index)\n", end = index + 1 < steps.count ? "\n\(marker) \(index + 1)\n" : "\n\(marker) end\n"
            guard let from = text.range(of: start), let to = text.range(of: end, range: from.upperBound..<text.endIndex) else {
                outputs.append("(the script stopped before this step)\n" + text.suffix(2000))
                continue
            }
            outputs.append(String(text[from.upperBound..<to.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return outputs
    }
}

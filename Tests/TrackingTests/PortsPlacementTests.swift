import Foundation
import Testing

/// Issue #48: the domain's ports live in `Sources/Tracking/Ports/`, one file each, named after
/// the protocol (see `docs/ARCHITECTURE.md`, "Ports"). These tests read the sources.
@Suite struct PortsPlacementTests {
    /// Public protocols of Tracking that are not ports, each with the reason it stays where it is.
    static let notPorts: [String: String] = [
        "EntityID": "the shape every typed id shares (Identifiers.swift); nothing outside implements it for the domain",
        "StayPlaceLookup": "a seam of the timeline: its implementation, GroupPlaceNames, is the domain's own over PlaceStore",
    ]

    /// The package root, found from this file's path.
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Every `public protocol` declared in Tracking: (protocol name, path relative to `Sources/Tracking`).
    static func publicProtocols() throws -> [(name: String, path: String)] {
        let root = packageRoot.appendingPathComponent("Sources/Tracking")
        let pattern = try Regex(#"^\s*(@\w+\s+)*public\s+protocol\s+(\w+)"#)
        var found: [(name: String, path: String)] = []
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" {
            let path = String(file.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
                guard let match = try pattern.firstMatch(in: line), let name = match.output[2].substring else { continue }
                found.append((String(name), path))
            }
        }
        return found
    }

    @Test func theSourcesAreFound() throws {
        let protocols = try Self.publicProtocols()
        #expect(protocols.contains { $0.name == "TrackingStore" && $0.path == "Ports/TrackingStore.swift" })
        #expect(protocols.contains { $0.name == "EntityID" })
    }

    @Test func everyPublicProtocolOutsidePortsIsAllowListed() throws {
        let outside = try Self.publicProtocols().filter { !$0.path.hasPrefix("Ports/") }
        for declaration in outside {
            #expect(Self.notPorts[declaration.name] != nil,
                    "\(declaration.name) (Sources/Tracking/\(declaration.path)) is public: move it to Sources/Tracking/Ports/\(declaration.name).swift with its contract, or add it to notPorts with the reason")
        }
    }

    @Test func eachPortHasItsOwnFileNamedAfterIt() throws {
        for port in try Self.publicProtocols() where port.path.hasPrefix("Ports/") {
            #expect(port.path == "Ports/\(port.name).swift", "\(port.name) is declared in Sources/Tracking/\(port.path)")
        }
    }

    @Test func theAllowListHoldsNoPort() throws {
        let inPorts = Set(try Self.publicProtocols().filter { $0.path.hasPrefix("Ports/") }.map(\.name))
        for name in Self.notPorts.keys {
            #expect(!inPorts.contains(name), "\(name) is in Ports/ and in the allow-list")
        }
    }
}

// swift-tools-version:6.0
import PackageDescription

/// Find Our Devices: a self-hosted location server.
///
/// C libraries come only from Debian packages, through system-library targets; everything else
/// is this package's own Swift. Arrows point down only: API → Tracking → Crypto/GeoKit/GeoQuery;
/// the stores (SQLiteStore on Storage, PostgresStore on PostgresClient) implement Tracking's ports and are chosen by `fod`;
/// ErrorCodes (the `ErrorCode` every layer throws) sits below HTTPServer, LocationFormats and Tracking;
/// only Storage, HTTPServer, Crypto, PlanarGeometry, PostgresClient, GeoKit and ThreadControl import the C modules
/// (CMalloc: glibc's allocator, for Storage; CLibPQ: libpq, for PostgresClient; CMath: glibc's
/// `sincos`, for GeoKit; CThreadControl: thread names and scheduling, for ThreadControl).
let package = Package(
    name: "FindOurDevices",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "fod", targets: ["fod"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CMath"),
        .systemLibrary(name: "CThreadControl"),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        .target(name: "Timestamps"),
        .target(name: "ThreadControl", dependencies: ["CThreadControl"]),
        .target(name: "ErrorCodes"),
        .target(name: "JSONCore"),
        .target(name: "GeoKit", dependencies: ["CMath"]),
        .target(name: "LocationFormats", dependencies: ["ErrorCodes", "JSONCore", "Timestamps"]),
        .target(name: "GeoQuery", dependencies: ["GeoKit", "JSONCore"]),
        .target(name: "Exports", dependencies: ["JSONCore", "Timestamps", "GeoKit"]),
        .target(name: "Timeline", dependencies: ["GeoKit"]),
        .target(name: "PlanarGeometry", dependencies: ["CGEOS"]),
        .target(name: "CSQLiteLog", dependencies: ["CSQLite"], linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(name: "Storage", dependencies: ["CSQLite", "CSQLiteLog", "CMalloc", "ThreadControl"]),
        .target(name: "HTTPServer", dependencies: ["ErrorCodes", "CMicroHTTPD", "Timestamps", "ThreadControl"]),
        .target(name: "Crypto", dependencies: ["CSodium"]),
        .target(name: "PostgresClient", dependencies: ["CLibPQ"]),
        .target(name: "Outbound", dependencies: ["CCurl", "Timestamps"]),
        .target(name: "SQLCore", dependencies: ["ErrorCodes", "Tracking", "GeoKit", "JSONCore", "LocationFormats", "Timestamps"]),
        .target(name: "Tracking", dependencies: ["ErrorCodes", "ThreadControl", "Crypto", "Timestamps", "GeoKit", "GeoQuery", "LocationFormats", "JSONCore", "Timeline"]),
        .target(name: "SQLiteStore", dependencies: ["Tracking", "SQLCore", "Storage", "ThreadControl", "GeoKit", "LocationFormats", "JSONCore", "Timestamps"]),
        .target(name: "PostgresStore", dependencies: ["Tracking", "SQLCore", "PostgresClient", "ThreadControl", "GeoKit", "LocationFormats", "JSONCore", "Timestamps"]),
        .target(name: "API", dependencies: ["ErrorCodes", "Tracking", "Outbound", "HTTPServer", "JSONCore", "Timestamps", "LocationFormats", "GeoKit", "GeoQuery", "Crypto", "Exports", "PlanarGeometry", "Timeline"]),
        .executableTarget(name: "fod", dependencies: ["API", "Tracking", "SQLiteStore", "PostgresStore", "HTTPServer", "Storage", "Crypto", "LocationFormats", "GeoKit", "GeoQuery", "JSONCore", "Timestamps", "Exports", "Timeline"]),

        .executableTarget(name: "fod-ingest-baseline", dependencies: ["Storage", "GeoKit", "Tracking", "SQLiteStore"], path: "Benchmarks/ingest/Baseline"),
        .executableTarget(name: "fod-geo-bench", dependencies: ["Storage", "GeoKit", "GeoQuery", "JSONCore", "Tracking", "SQLiteStore"], path: "Benchmarks/geo/Bench"),
        .executableTarget(name: "fod-engine-bench", dependencies: ["GeoQuery", "JSONCore", "Tracking", "SQLiteStore", "PostgresStore"], path: "Benchmarks/report/Engine"),
        .executableTarget(name: "fod-timeline-bench", dependencies: ["Timeline", "Timestamps"], path: "Benchmarks/timeline/Bench"),
        .executableTarget(name: "fod-postgres-bench", dependencies: ["PostgresClient"], path: "Benchmarks/postgres/Bench"),
        .executableTarget(name: "fod-import-bench", dependencies: ["LocationFormats", "Timestamps", "Tracking", "SQLiteStore"], path: "Benchmarks/import/Bench"),
        .executableTarget(name: "fod-owntracks-bench", dependencies: ["API", "Tracking", "SQLiteStore", "Storage", "HTTPServer", "HTTPTestSupport"],
                          path: "Benchmarks/owntracks/Bench"),
        .executableTarget(name: "fod-places-bench", dependencies: ["Tracking", "SQLiteStore", "PostgresStore", "PostgresClient", "Storage", "GeoKit", "JSONCore", "LocationFormats", "TestRandom"], path: "Benchmarks/places/Bench"),
        .executableTarget(name: "fod-polygon-bench", dependencies: ["GeoKit", "GeoQuery", "JSONCore"], path: "Benchmarks/geo/PolygonBench"),
        .target(name: "ProcessTestSupport", path: "Tests/ProcessTestSupport"),
        .target(name: "HTTPTestSupport", dependencies: ["ProcessTestSupport"], path: "Tests/HTTPTestSupport"),
        .target(name: "TestRandom", dependencies: ["GeoKit"], path: "Tests/TestRandom"),
        .target(name: "PostgresTestSupport", dependencies: ["ProcessTestSupport"], path: "Tests/PostgresTestSupport"),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "CSQLite"]),
        .testTarget(name: "ThreadControlTests", dependencies: ["ThreadControl"]),
        .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore", "TestRandom"]),
        .testTarget(name: "TimestampsTests", dependencies: ["Timestamps"]),
        .testTarget(name: "ErrorCodesTests", dependencies: ["ErrorCodes", "GeoQuery"]),
        .testTarget(name: "GeoKitTests", dependencies: ["GeoKit", "TestRandom"]),
        .testTarget(name: "LocationFormatsTests", dependencies: ["ErrorCodes", "LocationFormats", "JSONCore", "Timestamps", "ProcessTestSupport"]),
        .testTarget(name: "GeoQueryTests", dependencies: ["GeoQuery", "GeoKit", "JSONCore", "TestRandom"]),
        .testTarget(name: "ExportsTests", dependencies: ["Exports", "JSONCore", "Timestamps", "GeoKit", "ProcessTestSupport"]),
        .testTarget(name: "PlanarGeometryTests", dependencies: ["PlanarGeometry"]),
        .testTarget(name: "TimelineTests", dependencies: ["Timeline", "GeoKit", "TestRandom"]),
        .testTarget(name: "PostgresClientTests", dependencies: ["PostgresClient", "PostgresTestSupport"]),
        .target(name: "ReceiverTestSupport", dependencies: ["HTTPServer", "ErrorCodes"], path: "Tests/ReceiverTestSupport"),
        .testTarget(name: "OutboundTests", dependencies: ["Outbound", "ReceiverTestSupport", "Timestamps"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["ErrorCodes", "HTTPServer", "HTTPTestSupport", "TestRandom"]),
        .target(name: "TrackingTestSupport", dependencies: ["Tracking"], path: "Tests/TrackingTestSupport"),
        .testTarget(name: "TrackingTests", dependencies: ["Timestamps", "Tracking", "TrackingTestSupport", "GeoKit", "GeoQuery", "JSONCore", "LocationFormats", "Timeline", "TestRandom"]),
        .testTarget(name: "StoreConformanceTests", dependencies: ["Timestamps", "Tracking", "GeoQuery", "SQLCore", "SQLiteStore", "Storage", "PostgresStore", "PostgresClient", "PostgresTestSupport", "GeoKit", "JSONCore", "LocationFormats", "TestRandom"]),
        .testTarget(name: "SelfHostingTests", dependencies: ["HTTPTestSupport", "ProcessTestSupport", "PostgresTestSupport", "PostgresClient", "Storage"]),
        .testTarget(name: "ClusterTests", dependencies: ["HTTPTestSupport", "ReceiverTestSupport", "PostgresClient", "PostgresTestSupport", "Timestamps"]),
        .testTarget(name: "APITests", dependencies: ["API", "ReceiverTestSupport", "ProcessTestSupport", "Tracking", "SQLiteStore", "Storage", "PostgresStore", "PostgresClient", "PostgresTestSupport", "TrackingTestSupport", "HTTPServer", "HTTPTestSupport", "TestRandom", "Timeline"]),
    ],
    swiftLanguageModes: [.v6]
)

@testable import API
import GeoQuery
import HTTPTestSupport
import JSONCore
import Testing
import Tracking

/// Geo queries are tried on the server's thread within a work budget (`QueryRoutes.inlineBudget`)
/// and run again from a task when they need more: both ways must give the same answer, and a
/// budget must stop a query that needs more than it allows.
@Suite struct QueryWorkBudgetTests {
    static func request(_ location: String, limit: Int = 10_000) throws -> GeoQueryRequest {
        GeoQueryRequest(filter: try GeoFilter.parse(try JSONParser.parse(location)), scope: .history(from: nil, to: nil), limit: limit)
    }

    /// 1,200 fixes in the seeded world, 600 of them readable by Ann.
    static let everything = #"{"$geoWithin":{"$centerSphere":[[2.35,48.85],0.1]}}"#
    static let small = #"{"$geoWithin":{"$centerSphere":[[2.35,48.85],0.0005]}}"#
    static let nearest = #"{"$near":{"$geometry":{"type":"Point","coordinates":[2.35,48.85]}}}"#

    @Test func aBudgetStopsAQueryThatNeedsMoreAndChangesNothingForOneThatFits() throws {
        try TestApp.with { app in
            let s = try GeoQueryAPITests.seededWorld(app)
            let ann = Credential.user(userID: UserID(s.world.users["ann"]!.id))
            let group = GroupID(s.world.groupID)
            let queries = app.services.queries
            // More rows than the budget: stopped, whichever kind of query.
            for (location, limit) in [(Self.everything, 10_000), (Self.nearest, 500)] {
                #expect(throws: WorkBudget.Exceeded.self) {
                    try queries.query(groupID: group, credential: ann, try Self.request(location, limit: limit), budget: WorkBudget(units: 50))
                }
                let unbounded = try queries.query(groupID: group, credential: ann, try Self.request(location, limit: limit)).0
                #expect(unbounded.count == min(limit, 600))
                let roomy = try queries.query(groupID: group, credential: ann, try Self.request(location, limit: limit), budget: WorkBudget(units: 100_000)).0
                #expect(roomy == unbounded)
            }
            // A small radius fits the route's budget and answers as without one.
            let fits = try queries.query(groupID: group, credential: ann, try Self.request(Self.small), budget: WorkBudget(units: 1_000)).0
            #expect(fits == (try queries.query(groupID: group, credential: ann, try Self.request(Self.small)).0))
        }
    }

    @Test func polygonQueriesSkipTheAttemptOnTheServersThread() throws {
        let polygon = #"{"$geoWithin":{"$geometry":{"type":"Polygon","coordinates":[[[2.2,48.7],[2.5,48.7],[2.35,49.0],[2.2,48.7]]]}}}"#
        let flat = #"{"$geoWithin":{"$polygon":[[2.2,48.7],[2.5,48.7],[2.35,49.0]]}}"#
        #expect(!GeoFilter.coversCheaply(try JSONParser.parse(polygon)))
        #expect(!GeoFilter.coversCheaply(try JSONParser.parse(flat)))
        for cheap in [Self.everything, Self.nearest, #"{"$geoWithin":{"$box":[[2.3,48.8],[2.4,48.9]]}}"#] {
            #expect(GeoFilter.coversCheaply(try JSONParser.parse(cheap)))
        }
    }

    @Test func overHTTPQueriesOnBothSidesOfTheInlineBudgetAnswerInFull() throws {
        try TestApp.with { app in
            let s = try GeoQueryAPITests.seededWorld(app)
            let ann = Credential.user(userID: UserID(s.world.users["ann"]!.id))
            let group = GroupID(s.world.groupID)
            // The small query once more with a body over 16 KiB (white space), which goes to the
            // task without an attempt on the server's thread.
            let padding = String(repeating: " ", count: 20_000)
            for (location, pad) in [(Self.everything, ""), (Self.small, ""), (Self.small, padding)] {
                let expected = try app.services.queries.query(groupID: group, credential: ann, try Self.request(location)).0
                let reply = try app.client().request("POST", "/v1/groups/\(s.world.groupID)/query", token: s.world.users["ann"]!.token,
                                                     json: #"{"filter":{"location":\#(location)},\#(pad)"scope":"history","limit":10000}"#)
                #expect(reply.status == 200, "\(reply.text)")
                let got = reply.json["results"].array.compactMap { $0["location"].array.first?.double }
                #expect(got.count == expected.count)
                // The same fixes in the same order (JSON numbers round-trip to within an ulp).
                #expect(zip(got, expected).allSatisfy { abs($0 - $1.longitude) < 1e-12 })
            }
            // The everything query reads 1,200 index rows, more than the inline budget: it was
            // answered from a task, with all 600 readable fixes.
            #expect(QueryRoutes.inlineBudget.units < 1_200)
        }
    }
}

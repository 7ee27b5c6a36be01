import JSONCore
import Testing

@Suite("JSONValue, JSONObject, JSONNumber")
struct JSONValueTests {
    @Test func accessors() {
        let value: JSONValue = [
            "s": "text", "d": 2.5, "i": 42, "b": true, "n": nil, "a": [1, "two"], "o": ["k": "v"],
        ]
        #expect(value["s"]?.stringValue == "text")
        #expect(value["d"]?.doubleValue == 2.5)
        #expect(value["d"]?.int64Value == nil)
        #expect(value["i"]?.int64Value == 42)
        #expect(value["i"]?.intValue == 42)
        #expect(value["i"]?.doubleValue == 42)
        #expect(value["b"]?.boolValue == true)
        #expect(value["n"]?.isNull == true)
        #expect(value["s"]?.isNull == false)
        #expect(value["a"]?.arrayValue?.count == 2)
        #expect(value["a"]?[1]?.stringValue == "two")
        #expect(value["a"]?[-1] == nil)
        #expect(value["a"]?[2] == nil)
        #expect(value["o"]?.objectValue?["k"] == "v")
        #expect(value["o"]?["k"] == "v")
        // Wrong-type access yields nil rather than trapping.
        #expect(value["s"]?.doubleValue == nil)
        #expect(value["s"]?["k"] == nil)
        #expect(value["s"]?[0] == nil)
        #expect(value[0] == nil)
        #expect(value["i"]?.stringValue == nil)
        #expect(value["n"]?.boolValue == nil)
        #expect(value["b"]?.arrayValue == nil)
        #expect(value["a"]?.objectValue == nil)
        #expect(value["missing"] == nil)
    }

    @Test func typeNames() throws {
        let names = try ["null", "true", "1", "\"s\"", "[]", "{}"].map { try parseJSON($0).typeName }
        #expect(names == ["null", "boolean", "number", "string", "array", "object"])
    }

    @Test func literalsAndInitializers() {
        #expect(JSONValue(true) == .bool(true))
        #expect(JSONValue("s") == .string("s"))
        #expect(JSONValue(3) == .number(JSONNumber(3 as Int64)))
        #expect(JSONValue(3 as Int64) == 3)
        #expect(JSONValue(3.0) == 3)  // 3.0 is an integer: same number as 3
        #expect(JSONValue(2.5) == 2.5)
        #expect(JSONValue([1, 2]) == [1, 2])
        #expect(JSONValue(JSONObject([("a", 1)])) == ["a": 1])
        let null: JSONValue = nil
        #expect(null == .null)
        #expect(JSONValue(JSONNumber(7)) == 7)
    }

    @Test func numberRepresentation() {
        #expect(JSONNumber(7 as Int64).int64 == 7)
        #expect(JSONNumber(7.0).int64 == 7)
        #expect(JSONNumber(7.5).int64 == nil)
        #expect(JSONNumber(-0.0).int64 == 0)
        #expect(JSONNumber(-0.0) == JSONNumber(0.0))
        #expect(JSONNumber(9_007_199_254_740_992.0).int64 == 9_007_199_254_740_992)
        #expect(JSONNumber(18_014_398_509_481_984.0).int64 == nil)  // 2^54: beyond the exact range
        #expect(JSONNumber(Double.nan).int64 == nil)
        #expect(JSONNumber(Double.infinity).int64 == nil)
        #expect(JSONNumber(Double.nan).isInteger == false)
        #expect(JSONNumber(Int64.max).double == 9_223_372_036_854_775_808)
        #expect(JSONNumber(Int64.max) != JSONNumber(Double(Int64.max)))
        #expect(JSONNumber(1e300).isInteger)
        #expect(!JSONNumber(0.5).isInteger)
        let literal: JSONNumber = 12
        let floatLiteral: JSONNumber = 1.25
        #expect(literal.int64 == 12)
        #expect(floatLiteral.double == 1.25)
        #expect(Set([JSONNumber(1), JSONNumber(1.0), JSONNumber(0.0), JSONNumber(-0.0)]).count == 2)
    }

    @Test func objectKeepsInsertionOrderAndUniqueness() {
        var object: JSONObject = ["b": 1, "a": 2, "c": 3]
        #expect(object.keys == ["b", "a", "c"])
        #expect(object.values == [1, 2, 3])
        object["a"] = 20  // replace in place
        #expect(object.keys == ["b", "a", "c"])
        #expect(object["a"] == 20)
        object["d"] = 4  // append
        #expect(object.keys == ["b", "a", "c", "d"])
        object["b"] = nil  // remove
        #expect(object.keys == ["a", "c", "d"])
        #expect(object.removeValue(forKey: "zz") == nil)
        #expect(object.updateValue(5, forKey: "d") == 4)
        #expect(object.count == 3)
        #expect(!object.isEmpty)
        #expect(object.map(\.key) == ["a", "c", "d"])
        #expect(object[1].key == "c")

        let duplicates = JSONObject([("x", 1), ("y", 2), ("x", 3)])
        #expect(duplicates.keys == ["x", "y"])
        #expect(duplicates["x"] == 3)
        let literal: JSONValue = ["x": 1, "x": 2]
        #expect(literal.objectValue?.count == 1)
        #expect(literal["x"] == 2)
    }

    @Test func objectIndexSurvivesGrowthAndRemoval() {
        var object = JSONObject()
        for i in 0..<40 {
            object["k\(i)"] = .number(JSONNumber(i))
            for j in 0...i {
                #expect(object["k\(j)"] == .number(JSONNumber(j)))
            }
        }
        for i in stride(from: 0, to: 40, by: 2) {
            #expect(object.removeValue(forKey: "k\(i)") == .number(JSONNumber(i)))
        }
        #expect(object.count == 20)
        for i in 0..<40 {
            #expect(object["k\(i)"] == (i % 2 == 0 ? nil : .number(JSONNumber(i))))
            #expect(object.index(forKey: "k\(i)") == (i % 2 == 0 ? nil : i / 2))
        }
        while let key = object.keys.first {
            object[key] = nil
            #expect(object[key] == nil)
        }
        #expect(object.isEmpty)
    }

    @Test func objectEqualityIgnoresOrder() throws {
        let a: JSONValue = ["x": 1, "y": [1, 2], "z": ["q": nil]]
        let b: JSONValue = ["z": ["q": nil], "y": [1, 2], "x": 1]
        #expect(a == b)
        #expect(a != ["x": 1, "y": [2, 1], "z": ["q": nil]])
        #expect(a != ["x": 1, "y": [1, 2]])
        #expect(a != ["x": 1, "y": [1, 2], "w": ["q": nil]])
        #expect(try parseJSON(#"{"a":1,"b":2}"#) == ["b": 2, "a": 1])
        let big1 = JSONObject((0..<20).map { ("k\($0)", JSONValue(Int64($0))) })
        let big2 = JSONObject((0..<20).reversed().map { ("k\($0)", JSONValue(Int64($0))) })
        #expect(big1 == big2)
        #expect(JSONValue.array([1, 2]) != [2, 1])
        #expect(JSONValue.string("1") != 1)
    }

    @Test func sendableAcrossTasks() async throws {
        let value = try parseJSON(#"{"a":[1,2,3]}"#)
        let count = await Task.detached { value["a"]?.arrayValue?.count ?? 0 }.value
        #expect(count == 3)
    }
}

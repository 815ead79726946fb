import Foundation
import Testing

@testable import JobQueue

@Suite("Result records for batched completion")
struct ResultRecordsTests {
    @Test("strings with quotes, backslashes, control characters and non-ASCII survive as JSON")
    func escaping() throws {
        let tricky = "plate \"AB\\12\"\n\ttab \u{01} ü 🚚"
        let result = JobResult(
            analysis: .init(category: tricky, confidence: 0.25, textIdentifiers: [tricky, "x"], rawResponseJSON: "not json"),
            preparation: .init(originalBytes: 10, originalWidth: 2, originalHeight: 3, originalFormat: "png", sentBytes: 9,
                               sentWidth: 2, sentHeight: 3, sentFormat: "jpeg", jpegQuality: 85, encodeCount: 1,
                               passedThrough: false, milliseconds: 1.5),
            analyzeMilliseconds: 2)
        let text = ResultRecords.json([(jobID: 7, result: result)])
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        let record = try #require(parsed.first)
        #expect(record["job_id"] as? Int == 7)
        #expect(record["category"] as? String == tricky)
        #expect(record["text_identifiers"] as? [String] == [tricky, "x"])
        #expect(record["raw_response"] as? String == "not json", "text that is not JSON is kept as a string")
        #expect(record["operator"] is NSNull)
        #expect(record["jpeg_quality"] as? Int == 85)
        #expect(record["passed_through"] as? Bool == false)
    }
}

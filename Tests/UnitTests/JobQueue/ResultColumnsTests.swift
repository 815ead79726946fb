import AnalysisModel
import Foundation
import Postgres
import Testing

@testable import JobQueue

@Suite("Result columns for batched completion")
struct ResultColumnsTests {
    @Test("every column has a name, a type and one value array, in the same order")
    func columnsLineUp() {
        let result = JobResult(
            analysis: .init(rawResponseJSON: "{}"),
            preparation: .init(
                originalBytes: 1, originalWidth: 1, originalHeight: 1, originalFormat: "jpeg", sentBytes: 1,
                sentWidth: 1, sentHeight: 1, sentFormat: "jpeg", jpegQuality: nil, encodeCount: 0,
                passedThrough: true, milliseconds: 0),
            analyzeMilliseconds: 0)
        let parameters = ResultColumns.all.parameters([(jobID: 7, result: result), (jobID: 8, result: result)])
        #expect(parameters.count == ResultColumns.names.count)
        #expect(ResultColumns.names.first == "job_id" && Set(ResultColumns.names).count == ResultColumns.names.count)
        #expect(parameters.allSatisfy { $0.postgresBinary != nil }, "every column travels in binary")
        #expect(parameters.first?.postgresText == #"{"7","8"}"#)
    }

    @Test("an answer that is not a JSON object or array is kept as a JSON string")
    func rawAnswers() throws {
        #expect(StoredJSON.storable(#" {"a": 1}"#) == #" {"a": 1}"#)
        #expect(StoredJSON.storable("[1]") == "[1]")
        let quoted = StoredJSON.storable("not \"json\"\n\t\u{01} ü\0")
        let decoded = try JSONSerialization.jsonObject(with: Data(quoted.utf8), options: .fragmentsAllowed) as? String
        #expect(decoded == "not \"json\"\n\t\u{01} ü", "NUL is dropped: PostgreSQL text cannot hold it")
    }
}

import AnalysisModel
import Foundation
import Postgres
import SQLSchema
import Testing

@testable import JobQueue

@Suite("A batch of results as the completion sends it")
struct CompletionBatchTests {
    @Test("every column travels as one binary array with a value per job, the job ids first")
    func columnsLineUp() {
        let result = JobResult(
            analysis: .init(rawResponseJSON: "{}"),
            preparation: .init(
                originalBytes: 1, originalWidth: 1, originalHeight: 1, originalFormat: "jpeg", sentBytes: 1,
                sentWidth: 1, sentHeight: 1, sentFormat: "jpeg", jpegQuality: nil, encodeCount: 0,
                passedThrough: true, milliseconds: .nan),
            analyzeMilliseconds: 0)
        let statement = CompletionBatch.statement(worker: "w", [(jobID: 7, result: result), (jobID: 8, result: result)])
        let arrays = statement.parameters.dropFirst().compactMap { $0 }
        #expect(arrays.count == statement.parameters.count - 1, "no array is missing")
        #expect(arrays.allSatisfy { $0.postgresBinary != nil }, "every column travels in binary")
        #expect(statement.jobId.postgresText == #"{"7","8"}"#)
        #expect(statement.prepareMs.postgresText == "{NULL,NULL}", "NaN is stored as NULL")
        #expect(statement.entityJobId.elements.isEmpty, "no entity, no row")
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

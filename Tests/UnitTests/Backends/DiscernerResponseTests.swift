import Foundation
import JobQueue
import Testing

@testable import Backends

@Suite("Image Discerner answers")
struct DiscernerResponseTests {
    static func answer(body: String, success: String = "true") -> Data {
        Data(#"{"success": \#(success), "execution_arn": "arn:x", "analysis_result": {"statusCode": 200, "body": \#(body)}, "processing_time_seconds": 8.1}"#.utf8)
    }

    @Test("format 2.0 maps onto the result columns and keeps the raw JSON")
    func formatTwo() throws {
        let data = Self.answer(body: """
            {"analysis_complete": true, "timestamp": "2026-11-22T01:02:03Z",
             "primary_subject": {"category": "vehicle", "subcategory": "delivery_truck", "operator": "UPS", "fleet_id": "1Z2345",
               "confidence": 0.93, "additional_details": {"license_plate": "ABC-1234", "text_identifiers": ["UPS", "1Z2345"], "description": "A UPS truck"}},
             "detailed_analysis": {}, "processing_metadata": {"response_format_version": "2.0"}}
            """)
        let analysis = try DiscernerResponse.map(data)
        #expect(analysis.category == "vehicle")
        #expect(analysis.subcategory == "delivery_truck")
        #expect(analysis.serviceOperator == "UPS")
        #expect(analysis.fleetID == "1Z2345")
        #expect(analysis.licensePlate == "ABC-1234")
        #expect(analysis.confidence == 0.93)
        #expect(analysis.textIdentifiers == ["UPS", "1Z2345"])
        #expect(analysis.description == "A UPS truck")
        #expect(analysis.rawResponseJSON == String(decoding: data, as: UTF8.self))
    }

    @Test("an unknown subject maps to nulls, not to a failure")
    func unknownSubject() throws {
        let analysis = try DiscernerResponse.map(Self.answer(body: """
            {"primary_subject": {"category": "unknown", "subcategory": "unidentified", "operator": null, "fleet_id": null,
              "confidence": 0.0, "additional_details": {"license_plate": null, "text_identifiers": []}},
             "processing_metadata": {"response_format_version": "2.0"}}
            """))
        #expect(analysis.category == "unknown")
        #expect(analysis.serviceOperator == nil)
        #expect(analysis.confidence == 0)
    }

    @Test("garbage is a retryable bad_response with a readable message", arguments: [
        "<html>502 Bad Gateway</html>", "{}", #"{"success": true}"#, #"{"success": true, "analysis_result": {"statusCode": 200, "body": {}}}"#,
    ])
    func garbage(text: String) throws {
        let error = try #require(throws: BackendError.self) { try DiscernerResponse.map(Data(text.utf8)) }
        #expect(error.code == .badResponse)
        #expect(error.retryable)
    }

    @Test("an S3 error document yields its code and message only")
    func s3ErrorDocument() {
        let document = S3ErrorDocument(Data("""
            <?xml version="1.0"?><Error><Code>SignatureDoesNotMatch</Code><Message>nope</Message><SignatureProvided>abc</SignatureProvided></Error>
            """.utf8))
        #expect(document.code == "SignatureDoesNotMatch")
        #expect(document.message == "nope")
    }
}

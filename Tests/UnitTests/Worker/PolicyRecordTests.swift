import Foundation
import AnalysisModel
import Imaging
import MediaFiles
import Testing

@testable import JobQueue
@testable import Worker

/// The preparation policy a result keeps, and the provenance document it joins: JSON written
/// by hand for speed, so checked here by a parser.
@Suite("Provenance documents")
struct PolicyRecordTests {
    @Test("a policy's record parses as the JSON object docs/services.md describes, with or without its optional limits")
    func policies() throws {
        var policy = ImagePolicy(maxBytes: 7_800_000, acceptedFormats: [.png, .jpeg])
        policy.transformFloor = 1600
        let image = try #require(try JSONSerialization.jsonObject(with: Data(PolicyRecord.json(policy).utf8)) as? [String: Any])
        #expect(image["max_bytes"] as? Int == 7_800_000 && image["transform_floor"] as? Int == 1600 && image["max_dimension"] as? Int == 4096)
        #expect(image["formats"] as? [String] == ["jpeg", "png"] && image["keep_metadata"] as? Bool == false)
        let bare = try #require(
            try JSONSerialization.jsonObject(with: Data(PolicyRecord.json(ImagePolicy(maxDimension: nil)).utf8)) as? [String: Any])
        #expect(bare["max_dimension"] == nil && bare["transform_floor"] == nil && bare["min_dimension"] as? Int == 16)
        let video = try #require(try JSONSerialization.jsonObject(with: Data(PolicyRecord.json(VideoPolicy()).utf8)) as? [String: Any])
        #expect(video["containers"] as? [String] == ["mp4", "quicktime", "webm"])
    }

    @Test("the provenance document joins the service's details and the policy as text, and stays one JSON object whatever each holds")
    func joined() throws {
        func document(_ details: String, _ policy: String) throws -> [String: Any]? {
            var analysis = Analysis(rawResponseJSON: "{}")
            analysis.provenance.detailsJSON = details
            let preparation = JobResult.Preparation(
                originalBytes: 1, originalWidth: 1, originalHeight: 1, originalFormat: "jpeg", sentBytes: 1, sentWidth: 1, sentHeight: 1,
                sentFormat: "jpeg", jpegQuality: nil, encodeCount: 0, passedThrough: true, milliseconds: 0, policyJSON: policy)
            let text = JobResult(analysis: analysis, preparation: preparation, analyzeMilliseconds: 0).provenanceJSON
            return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        }
        let both = try document(#"{"model":"a","threshold":0.9}"#, #"{"max_bytes":10}"#)
        #expect(both?["model"] as? String == "a" && (both?["preparation"] as? [String: Any])?["max_bytes"] as? Int == 10)
        #expect(try document("{}", #"{"max_bytes":10}"#)?.keys.sorted() == ["preparation"])
        #expect(try document(#"{"a":1}"#, "{}")?.keys.sorted() == ["a"])
        #expect(try document("not json", "also not")?.isEmpty == true)
    }
}

import MediaFiles
import AnalysisModel
import SampleImages
import CurlHTTP
import Foundation
import TestFixtures
import Testing

@testable import ServiceClients
@testable import Imaging
@testable import JobQueue

/// Every reader of outside data is fed thousands of mutated and random documents, seeded so a
/// failure reproduces: none may trap, and what it accepts must be storable and bounded (issue
/// 13). `DISCERN_FUZZ_ITERATIONS` sets how many per reader (bench/fuzz runs far more), and
/// `DISCERN_FUZZ_SEED` the seed.
@Suite("Parser fuzzing")
struct ParserFuzzTests {
    static let iterations = ProcessInfo.processInfo.environment["DISCERN_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 3000
    static let seed = ProcessInfo.processInfo.environment["DISCERN_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED_D15C

    /// Answers each reader meets in practice: the starting points of the mutations.
    static let discernerSeeds = [
        #"{"success": true, "execution_name": "analysis-1", "analysis_result": {"statusCode": 200, "body": {"analysis_complete": true, "timestamp": "t", "entities": [{"type": "commercial_vehicle:tractor_trailer", "operator": "FedEx", "identifiers": ["fleet:FX1234", "license_plate:california:ABC123"], "confidence": 0.89, "properties": {}}, {"type": "cargo_container", "operator": "MSC", "identifiers": ["container_id:MSCU7654321"], "confidence": 0.92, "properties": {"size_code": "20G1"}}], "processing_metadata": {"response_format_version": "3.0"}}}}"#,
        #"{"success": true, "analysis_result": {"statusCode": 200, "body": {"analysis_complete": true, "primary_subject": {"category": "commercial_vehicle", "subcategory": "van", "operator": "UPS", "fleet_id": "1Z2345", "confidence": 0.9, "additional_details": {"license_plate": "AB1", "text_identifiers": ["UPS"], "description": "d"}}, "processing_metadata": {"response_format_version": "2.0"}}}}"#,
        #"{"success": false, "error": "Step Functions execution failed", "execution_arn": "a", "cause": "GCP Vision REST classification failed: 400 Client Error"}"#,
        #"{"error": "Failed to start analysis: An error occurred (ExecutionAlreadyExists)"}"#
    ]
    static let azureSeeds = [
        #"[{"faceId": "f1", "faceRectangle": {"top": 1, "left": 2, "width": 3, "height": 4}}]"#,
        #"[{"faceId": "f1", "candidates": [{"personId": "p", "confidence": 0.95}, {"personId": "q", "confidence": 0.2}]}]"#,
        #"{"error": {"code": "429", "message": "Rate limit is exceeded. Try again in 26 seconds."}}"#,
        #"{"error": {"code": "PersonGroupTrainingNotFinished", "message": "training"}}"#
    ]
    static let ootoSeeds = [
        #"{"transactionId": "t", "result": {"search": {"templateId": "alice", "similarity": 0.97}, "box": {"x": 1, "y": 2, "w": 3, "h": 4}, "landmarks": [[1, 2]]}}"#,
        #"{"transactionId": "t", "result": {"templateId": "alice", "similarity": 0.9, "face": {"liveness": {"score": 0.9, "fine": true}}}}"#,
        #"{"transactionId": "t", "result": {"enroll": {"templateId": "bob"}, "quality": {"score": 0.8}}}"#,
        #"{"transactionId": "t", "result": {"status": "error", "code": 5, "info": "No faces found"}}"#
    ]
    static let landmarkSeeds = [
        #"{"predictions": [{"label": "gate_of_dawn", "confidence": 0.8, "rank": 1}, {"label": "st_anne", "confidence": 0.1, "rank": 2}, {"label": "three_crosses", "confidence": 0.05, "rank": 3}], "inferenceTimeMs": 40}"#,
        #"{"error": "An error occurred during prediction", "details": "cannot identify image file"}"#
    ]
    static let unisseySeeds = [
        #"{"is_genuine": true, "details": {"injection": {"selfie": {"trust_score": 0.93}}}, "metadata_received": true}"#,
        #"{"message": "selfie is required"}"#
    ]

    @Test("Image Discerner's answers and failures")
    func discerner() {
        fuzz(Self.discernerSeeds, salt: 1) { response in
            if response.status == 200 {
                if let analysis = try? DiscernerResponse.map(response.body) { Self.check(analysis) }
            } else {
                _ = DiscernerFailure.classify(response, step: "fuzz")
            }
        }
    }

    @Test("Azure Face's detect, identify and errors")
    func azure() {
        let face = AzureFaceResponse.Face(faceID: "f1", rectangle: [:], raw: [String: Any]())
        fuzz(Self.azureSeeds, salt: 2) { response in
            _ = try? AzureFaceResponse.faces(response, step: "fuzz")
            if let analysis = try? AzureFaceResponse.identified(response, faces: [face], threshold: 0.9, step: "fuzz") { Self.check(analysis) }
            _ = AzureFaceResponse.failure(response, step: "fuzz")
        }
    }

    @Test("OOTO's identify, enrol, delete and error codes")
    func ooto() {
        fuzz(Self.ootoSeeds, salt: 3) { response in
            if let analysis = try? OOTOResponse.noFace(response, step: "fuzz") { Self.check(analysis) }
            if let analysis = try? OOTOResponse.identified(response, step: "fuzz", threshold: nil) { Self.check(analysis) }
            if let analysis = try? OOTOResponse.enrolled(response, step: "fuzz") { Self.check(analysis) }
            if let analysis = try? OOTOResponse.deleted(response, templateID: "t", step: "fuzz") { Self.check(analysis) }
            _ = OOTOResponse.failure(response, step: "fuzz")
        }
    }

    @Test("the landmark predictor's predictions and errors")
    func landmark() {
        fuzz(Self.landmarkSeeds, salt: 4) { response in
            if let analysis = try? LandmarkClient.read(response, unsureBelow: 0.55, step: "fuzz") { Self.check(analysis) }
            _ = LandmarkClient.failure(response, step: "fuzz")
        }
    }

    @Test("Unissey's verdicts and errors")
    func unissey() {
        fuzz(Self.unisseySeeds, salt: 5) { response in
            if let analysis = try? UnisseyClient.read(response, step: "fuzz", metadataSent: true, iadRequested: false) { Self.check(analysis) }
        }
    }

    @Test("S3 error documents, Retry-After, upload URLs")
    func envelopes() {
        let seeds = [
            #"<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message><SignatureProvided>abc</SignatureProvided></Error>"#,
            "https://b.s3.amazonaws.com/k.jpg?X-Amz-SignedHeaders=content-type%3Bhost%3Bx-amz-server-side-encryption&X-Amz-Signature=ab",
            "Rate limit is exceeded. Try again in 26 seconds."
        ]
        fuzz(seeds, salt: 6) { response in
            let document = S3ErrorDocument(response.body)
            #expect((document.code?.count ?? 0) <= 4096)
            if let seconds = RetryAfter.seconds(response) { #expect(seconds.isFinite && (0...3600).contains(seconds)) }
            _ = try? UploadGrant(
                url: String(decoding: response.body, as: UTF8.self), imageKey: "k", bucket: "b", contentType: "image/jpg",
                destinations: .init(
                    serviceURL: response.status % 2 == 0 ? "http://127.0.0.1:8080" : "https://api.example.org",
                    allowedHosts: []))
        }
    }

    @Test("file structures: JPEG segments, PNG chunks, MP4 boxes, WebM elements")
    func structures() throws {
        let jpeg = try SampleImages.photo(width: 64, height: 48, seed: 1)
        let png = try ImageFixtures.converted(jpeg, to: ".png")
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { [0, 0, 0, UInt8(8 + payload.count)] + Array(type.utf8) + payload }
        let ftyp = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0])
        let moov = box("moov", box("mvhd", []) + box("trak", []))
        let mp4 = Data(ftyp + moov + box("mdat", [1, 2, 3, 4]))
        let header: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0x87, 0x42, 0x82, 0x84] + Array("webm".utf8)
        let segment: [UInt8] = [0x18, 0x53, 0x80, 0x67, 0x88, 0x16, 0x54, 0xAE, 0x6B, 0x80, 0x1F, 0x43, 0xB6, 0x75, 0x80]
        let webm = Data(header + segment)
        var random = SplitMix64(seed: Self.seed ^ 7)
        for iteration in 0..<Self.iterations {
            for (seed, kind) in [(jpeg, 0), (png, 1), (mp4, 2), (webm, 3)] {
                let bytes = Array(Mutator.mutateBytes(seed, &random))
                switch kind {
                case 0, 1:
                    if case .complete(let kept, _) = FileStructure.walk(bytes, format: kind == 0 ? .jpeg : .png, keepMetadata: iteration % 2 == 0) {
                        #expect(kept.count <= bytes.count && kept.ranges.allSatisfy { $0.upperBound <= bytes.count })
                    }
                default:
                    _ = VideoStructure.check(bytes, container: kind == 2 ? .mp4 : .webm, maxFileBytes: 1 << 20)
                }
            }
        }
    }

    @Test("what is stored: jsonb takes every cleaned answer")
    func storedJSON() {
        fuzz(Self.discernerSeeds + Self.azureSeeds, salt: 8) { response in
            let stored = StoredJSON.storable(String(decoding: response.body, as: UTF8.self))
            #expect(!StoredJSON.needsCleaning(stored) || stored.first == "\"", "cleaned: \(stored.prefix(80))")
        }
    }

    // MARK: Support

    /// Feeds `body` responses: mutations of the seeds, and random documents, with a random status.
    func fuzz(_ seeds: [String], salt: UInt64, _ body: (HTTPResponse) -> Void) {
        var random = SplitMix64(seed: Self.seed ^ salt)
        let statuses = [200, 200, 200, 200, 400, 401, 403, 404, 409, 413, 422, 429, 500, 502, 503, 504]
        for iteration in 0..<Self.iterations {
            let data: Data
            switch iteration % 4 {
            case 0: data = Mutator.mutateBytes(Data(seeds[random.below(seeds.count)].utf8), &random)
            case 1, 2: data = Mutator.mutateJSON(seeds[random.below(seeds.count)], &random)
            default: data = Data(Mutator.randomJSON(&random, depth: 0).utf8)
            }
            let headers = random.below(4) == 0 ? [HTTPHeader("Retry-After", Mutator.hostileScalars[random.below(Mutator.hostileScalars.count)])] : []
            body(HTTPResponse(status: statuses[random.below(statuses.count)], headers: headers, body: data))
        }
    }

    /// What a result must be once accepted: numbers finite and in range, strings bounded, its
    /// JSON storable.
    static func check(_ analysis: Analysis) {
        if let confidence = analysis.confidence { #expect(confidence.isFinite && (0...1).contains(confidence)) }
        for text in [
            analysis.category, analysis.subcategory, analysis.serviceOperator, analysis.fleetID, analysis.licensePlate,
            analysis.outcome, analysis.subjectID
        ].compactMap({ $0 }) {
            #expect(text.count <= 1025)
        }
        #expect(analysis.entities.count <= 100)
        for entity in analysis.entities {
            if let confidence = entity.confidence { #expect(confidence.isFinite && (0...1).contains(confidence)) }
        }
        #expect((try? JSONSerialization.jsonObject(with: Data(analysis.detailsJSON.utf8))) is [String: Any])
        #expect(
            !StoredJSON.needsCleaning(StoredJSON.storable(analysis.rawResponseJSON)) || StoredJSON.storable(analysis.rawResponseJSON).first == "\"")
    }
}

/// Mutations of a document: bytes flipped, cut, repeated; values swapped for hostile ones.
enum Mutator {
    static let hostileScalars = [
        "inf", "-inf", "nan", "NaN", "1e308", "1e400", "-1", "0", "2", "99999999999999999999", "1.5", "",
        "\u{0}", "\u{1B}[2J\r", "true", "null", "3600", "Mon, 01 Jan 1990 00:00:00 GMT", "  7  "
    ]
    static let hostileValues = [
        "\"inf\"", "\"nan\"", "1e308", "-1e308", "123456789012345678901234567890", "-1", "2", "1.0000001",
        "true", "false", "null", "\"\"", "\"\\u0000\"", "\"\\u001b[2J\\r\"", "[]", "{}", "[[[[[[[[[[]]]]]]]]]]",
        "\"" + String(repeating: "A", count: 5000) + "\"", "\"fleet:\"", "\"license_plate:::\"", "\":\"",
        "{\"statusCode\": \"inf\"}", "[1, \"x\", null, {}]", "0.5", "\"0.5\"", "\"3.0\"", "\"2\""
    ]

    static func mutateBytes(_ seed: Data, _ random: inout SplitMix64) -> Data {
        var bytes = Array(seed)
        for _ in 0...random.below(4) {
            guard !bytes.isEmpty else { break }
            let at = random.below(bytes.count)
            switch random.below(6) {
            case 0: bytes[at] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            case 1: bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(64)))
            case 2: bytes.insert(contentsOf: (0..<1 + random.below(16)).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
            case 3: bytes = Array(bytes.prefix(at))
            case 4: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 1 + random.below(256))], at: at)
            default: bytes[at] = [0xFF, 0x00, 0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D][random.below(8)]
            }
        }
        return Data(bytes)
    }

    /// Swaps a value (after a colon or in a list) for a hostile one, textually: the document
    /// stays JSON more often than not.
    static func mutateJSON(_ seed: String, _ random: inout SplitMix64) -> Data {
        var text = seed
        for _ in 0...random.below(3) {
            let starts = text.indices.filter { text[$0] == ":" || text[$0] == "[" || text[$0] == "," }
            guard let start = starts.isEmpty ? nil : starts[random.below(starts.count)] else { break }
            let valueStart = text.index(after: start)
            let valueEnd = text[valueStart...].firstIndex { $0 == "," || $0 == "}" || $0 == "]" } ?? text.endIndex
            text.replaceSubrange(valueStart..<valueEnd, with: " " + hostileValues[random.below(hostileValues.count)])
        }
        return Data(text.utf8)
    }

    static func randomJSON(_ random: inout SplitMix64, depth: Int) -> String {
        switch depth > 4 ? random.below(3) : random.below(6) {
        case 0: return hostileValues[random.below(hostileValues.count)]
        case 1: return "\"" + ["type", "entities", "confidence", "faceId", "result", "is_genuine"][random.below(6)] + "\""
        case 2: return String(Double(random.below(2000)) / 1000)
        case 3: return "[" + (0..<random.below(4)).map { _ in randomJSON(&random, depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            let keys = [
                "success", "analysis_result", "statusCode", "body", "entities", "type", "identifiers", "confidence", "operator",
                "processing_metadata", "response_format_version", "predictions", "label", "rank", "result", "search", "templateId",
                "similarity", "code", "info", "error", "faceId", "candidates", "is_genuine", "details", "primary_subject"
            ]
            return "{"
                + (0..<random.below(5)).map { _ in "\"\(keys[random.below(keys.count)])\": \(randomJSON(&random, depth: depth + 1))" }
                .joined(separator: ",") + "}"
        }
    }
}

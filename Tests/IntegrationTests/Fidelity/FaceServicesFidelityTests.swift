import AnalysisModel
@testable import ServiceClients
import CurlHTTP
import Foundation
import SampleImages
import JobQueue
import Simulator
import TestFixtures
import Testing

/// Azure Face, OOTO, the landmark predictor and Unissey as their contracts describe them
/// (docs/services.md, the face and liveness services), the simulator at least as strict, and discern coping.
@Suite("Fidelity: face, landmark and liveness services", .integrationTimeLimit)
struct FaceServicesFidelityTests {
    static let http = CurlHTTPClient()
    static let azureKey = HTTPHeader("Ocp-Apim-Subscription-Key", SimulatorConfiguration.Credentials().azureFaceKey)

    static func detect(_ simulator: RunningSimulator, _ image: Data, query: String) async throws -> HTTPResponse {
        try await http.send(
            HTTPRequest(
                method: "POST", url: "\(simulator.azureFaceEndpoint)/face/v1.0/detect?\(query)",
                headers: [HTTPHeader("Content-Type", "application/octet-stream"), azureKey], body: .bytes(image)))
    }

    static func identify(_ simulator: RunningSimulator, faceID: String, group: String = "discern-sim") async throws -> HTTPResponse {
        try await http.send(
            .json(
                url: "\(simulator.azureFaceEndpoint)/face/v1.0/identify",
                body: Data(#"{"personGroupId": "\#(group)", "faceIds": ["\#(faceID)"]}"#.utf8), headers: [azureKey]))
    }

    static func faceID(_ response: HTTPResponse) throws -> String {
        let faces = try #require(try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]])
        return try #require(faces.first?["faceId"] as? String)
    }

    @Test("Azure: identify works only on faces detected with the group's model; discern asks the group for it once")
    func azureRecognitionModel() async throws {
        try await TestSimulator.with { simulator in
            let photo = try SampleImages.photo(width: 640, height: 480, seed: 61)
            let other = try Self.faceID(try await Self.detect(simulator, photo, query: "returnFaceId=true&recognitionModel=recognition_04"))
            let mismatch = try await Self.identify(simulator, faceID: other)
            #expect(mismatch.status == 400 && mismatch.bodySnippet.contains("BadArgument") && mismatch.bodySnippet.contains("recognition model"))

            // discern's default model is recognition_04; the group was built with recognition_02.
            let azure = try SimulatedServices.client(AzureFaceClient.self, simulator)
            #expect(azure.configuration.recognitionModel == "recognition_04")
            let first = try #require(await azure.outcome(Uploads.raw(photo), "identify").value)
            #expect(["match", "no_match"].contains(first.outcome))
            #expect(first.apiCalls == 3, "the group's model, detect, identify")
            #expect(await azure.outcome(Uploads.raw(photo), "identify").value?.apiCalls == 2, "the model is asked once")
            let large = try #require(
                await azure.outcome(Uploads.raw(photo), "identify", params: #"{"largePersonGroupId": "discern-sim-large"}"#).value)
            #expect(large.apiCalls == 3)
        }
    }

    @Test("Azure: a 21st call within a minute is refused with the documented 429 and its wait in the message")
    func azureFreeTierLimit() async throws {
        // The simulator's clock stands still: on a busy machine the 21 calls may take longer
        // than a real minute, and the limit is about calls within one.
        let clock = TestClock()
        try await TestSimulator.with(SimulatorConfiguration(clock: { clock.now })) { simulator in
            for _ in 0..<20 {
                let response = try await Self.http.send(
                    HTTPRequest(
                        method: "GET", url: "\(simulator.azureFaceEndpoint)/face/v1.0/persongroups/discern-sim",
                        headers: [Self.azureKey]))
                #expect(response.status == 200)
            }
            let limited = try await Self.http.send(
                HTTPRequest(
                    method: "GET", url: "\(simulator.azureFaceEndpoint)/face/v1.0/persongroups/discern-sim",
                    headers: [Self.azureKey]))
            #expect(limited.status == 429)
            let message = try #require(
                ((try JSONSerialization.jsonObject(with: limited.body) as? [String: Any])?["error"] as? [String: Any])?["message"] as? String)
            #expect(message.hasPrefix("Rate limit is exceeded. Try again in "))
            #expect(limited.header("Retry-After") == nil, "Azure documents no header")
            #expect(await simulator.stats.refusalCount("azure-face.429") == 1)
        }
    }

    @Test("Azure: an image without a face detects as [] (no_face, no identify); a faceId expires after its time to live")
    func azureNoFaceAndExpiry() async throws {
        let clock = TestClock()
        try await TestSimulator.with(SimulatorConfiguration(clock: { clock.now })) { simulator in
            let azure = try SimulatedServices.client(AzureFaceClient.self, simulator)
            let flat = try ImageFixtures.flat(width: 640, height: 480)
            let noFace = try #require(await azure.outcome(Uploads.raw(flat), "identify").value)
            #expect(noFace.outcome == "no_face" && noFace.apiCalls == 2, "the group's model, then detect only")

            let photo = try SampleImages.photo(width: 640, height: 480, seed: 62)
            let face = try Self.faceID(try await Self.detect(simulator, photo, query: "recognitionModel=recognition_02&faceIdTimeToLive=60"))
            #expect(try await Self.identify(simulator, faceID: face).status == 200)
            clock.advance(by: 61)
            let expired = try await Self.identify(simulator, faceID: face)
            #expect(expired.status == 400 && expired.bodySnippet.contains("FaceNotFound"))
            #expect(try await Self.detect(simulator, photo, query: "faceIdTimeToLive=30").status == 400, "60 to 86400 only")
        }
    }

    @Test("OOTO: the service decides the match; a stricter threshold of one's own is optional and off by default")
    func ootoMatchIsTheServices() async throws {
        try await TestSimulator.with { simulator in
            let weak = ScriptedReplies.Reply(
                status: 200, json: #"{"transactionId": "t", "result": {"search": {"templateId": "bob", "similarity": 0.31}}}"#)
            let photo = try Uploads.photo(width: 800, height: 600, seed: 63)
            let ooto = try SimulatedServices.client(OOTOClient.self, simulator)
            await simulator.scripted.enqueue("ooto.identify", weak)
            let match = try #require(await ooto.outcome(photo, "identify").value)
            #expect(match.outcome == "match" && match.subjectID == "bob" && match.confidence == 0.31)

            let strict = try SimulatedServices.client(OOTOClient.self, simulator, extra: ["DISCERN_OOTO_MATCH_THRESHOLD": "0.5"])
            await simulator.scripted.enqueue("ooto.identify", weak)
            #expect(await strict.outcome(photo, "identify").value?.outcome == "no_match")
        }
    }

    @Test("OOTO: codes 5 and 6 found in the image, sent with other statuses than 400; delete succeeds on any 2xx")
    func ootoCodesOnAnyStatus() async throws {
        try await TestSimulator.with { simulator in
            let ooto = try SimulatedServices.client(OOTOClient.self, simulator)
            let noFace = try #require(await ooto.outcome(Uploads.raw(try ImageFixtures.flat(width: 640, height: 480)), "identify").value)
            #expect(noFace.outcome == "no_face")
            let group = try #require(await ooto.outcome(Uploads.raw(try SampleImages.photo(width: 1200, height: 500, seed: 64)), "identify").error)
            #expect(group.kind == "ooto_multiple_faces" && !group.isRetryable)

            await simulator.scripted.enqueue("ooto.delete", .init(status: 204, json: ""))
            let deleted = try #require(await ooto.outcome(Uploads.raw(Data()), "delete", params: #"{"templateId": "gone"}"#).value)
            #expect(deleted.outcome == "deleted" && deleted.subjectID == "gone")
        }
    }

    @Test("landmark: the seed's labels, stored with their display names; no field outside the contract")
    func landmarkLabels() async throws {
        try await TestSimulator.with { simulator in
            let landmark = try SimulatedServices.client(LandmarkClient.self, simulator)
            let names = [
                "gediminas_tower": "Gediminas Tower", "vilnius_cathedral": "Vilnius Cathedral", "gate_of_dawn": "Gate of Dawn",
                "st_anne": "St. Anne's Church", "three_crosses": "Three Crosses Monument"
            ]
            for seed in 65...67 {
                let result = try #require(await landmark.outcome(try Uploads.photo(seed: seed), "predict").value)
                let label = try #require(result.subjectID)
                #expect(names[label] == result.description, "\(label)")
                #expect(result.textIdentifiers.allSatisfy { names[$0] != nil })
                #expect(!result.rawResponseJSON.contains("wikipediaUrl"))
            }
            await simulator.scripted.enqueue(
                "landmark.predict",
                .init(
                    status: 200,
                    json:
                        #"{"predictions": [{"label": "old_town_hall", "confidence": 0.8, "rank": 1, "wikipediaUrl": "x"}], "inferenceTimeMs": 9}"#))
            #expect(await landmark.outcome(try Uploads.photo(seed: 68), "predict").value?.description == "Old Town Hall")
        }
    }

    @Test("Unissey: injection-attack detection without the SDK's metadata is refused before any call; every result says whether metadata went")
    func unisseyMetadata() async throws {
        try await TestSimulator.with { simulator in
            let unissey = try SimulatedServices.client(UnisseyClient.self, simulator)
            let video = Uploads.raw(Uploads.video(seed: 3), contentType: "video/mp4", fileExtension: "mp4")
            let calls = await simulator.stats.callCount("unissey")
            let refused = try #require(await unissey.outcome(video, "analyze", params: #"{"injection_attack_detection": true}"#).error)
            #expect(refused.kind == "unissey_iad_without_metadata" && !refused.isRetryable)
            #expect(refused.message.contains("selfie_metadata"))
            #expect(await simulator.stats.callCount("unissey") == calls, "nothing was sent")

            let withIAD = try #require(
                await unissey.outcome(video, "analyze", params: #"{"injection_attack_detection": true, "selfie_metadata": "sdk"}"#).value)
            #expect(withIAD.detailsJSON.contains(#""metadata_sent":true"#) && withIAD.confidence != nil)
            let plain = try #require(await unissey.outcome(video, "analyze").value)
            #expect(plain.detailsJSON.contains(#""metadata_sent":false"#))
            #expect(plain.confidence == nil, "no injection verdict without metadata")
        }
    }
}

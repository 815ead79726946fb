import AnalysisModel
import ServiceClients
import Foundation
import SampleImages
import JobQueue
import Simulator
import TestFixtures
import Testing

/// OOTO over real HTTP against the simulator: both response shapes, every documented code.
@Suite("OOTO backend", .integrationTimeLimit)
struct OOTOClientTests {
    @Test("enrol, identify the same face as a match, a stranger as no match, then delete", arguments: [false, true])
    func enrolIdentifyDelete(flatShape: Bool) async throws {
        var configuration = SimulatorConfiguration()
        configuration.ootoFlatShape = flatShape
        try await TestSimulator.with(configuration) { simulator in
            let ooto = try SimulatedServices.client(OOTOClient.self, simulator)
            let face = try Uploads.photo(width: 800, height: 600, seed: 3)
            let enrolled = try #require(await ooto.outcome(face, "enroll", params: #"{"templateId": "alice"}"#).value)
            #expect(enrolled.outcome == "enrolled")
            #expect(enrolled.subjectID == "alice")
            #expect(enrolled.apiCalls == 1)

            let again = try #require(await ooto.outcome(face, "identify", params: #"{"check_liveness": true}"#).value)
            #expect(again.outcome == "match")
            #expect(again.subjectID == "alice")
            #expect((again.confidence ?? 0) >= 0.75)
            #expect(again.detailsJSON.contains("\"liveness\""), "liveness scores are kept in details")

            let stranger = try #require(await ooto.outcome(try Uploads.photo(width: 800, height: 600, seed: 4), "identify").value)
            #expect(stranger.outcome == "no_match")
            #expect(stranger.subjectID == nil)

            #expect(await ooto.outcome(face, "delete", params: #"{"templateId": "alice"}"#).value?.outcome == "deleted")
            // A delete retried after a lost answer finds the template gone: still a result.
            #expect(await ooto.outcome(face, "delete", params: #"{"templateId": "alice"}"#).value?.outcome == "not_found")
        }
    }

    @Test("code 5 (no face) is a result; codes 1-4, 6 and 9 are permanent failures with their own kinds")
    func documentedCodes() async throws {
        try await TestSimulator.with { simulator in
            let ooto = try SimulatedServices.client(OOTOClient.self, simulator)
            let photo = try Uploads.photo(width: 800, height: 600, seed: 5)

            await simulator.scripted.enqueue("ooto.identify", .ootoError(code: 5, info: "No faces found"))
            let noFace = try #require(await ooto.outcome(photo, "identify").value)
            #expect(noFace.outcome == "no_face")

            for (code, kind) in [(1, "ooto_empty_photo"), (6, "ooto_multiple_faces")] {
                await simulator.scripted.enqueue("ooto.identify", .ootoError(code: code, info: "scripted"))
                let error = try #require(await ooto.outcome(photo, "identify").error)
                #expect(error.kind == kind)
                #expect(!error.isRetryable)
            }
            // These the simulator finds in the input itself.
            let zeroByte = try #require(await ooto.outcome(Uploads.raw(Data()), "identify").error)
            #expect(zeroByte.kind == "ooto_zero_byte_photo")
            let text = try #require(await ooto.outcome(Uploads.raw(Data(repeating: 0x41, count: 2000), contentType: "text/plain"), "identify").error)
            #expect(text.kind == "ooto_wrong_mime_type")
            let corrupt = try SampleImages.photo(width: 640, height: 480, seed: 6).prefix(600) + Data(repeating: 0, count: 3000)
            let undecodable = try #require(await ooto.outcome(Uploads.raw(corrupt), "identify").error)
            #expect(undecodable.kind == "ooto_undecodable")
            let small = Uploads.raw(try SampleImages.photo(width: 150, height: 150, seed: 7))
            let tooSmall = try #require(await ooto.outcome(small, "identify").error)
            #expect(tooSmall.kind == "ooto_face_too_small")
            #expect(!tooSmall.isRetryable)
        }
    }

    @Test(
        "wrong credentials fail at once, are never echoed, and say the service is down for us (the job waits for the key); 5xx and garbage are retryable"
    )
    func authAndTransientFailures() async throws {
        try await TestSimulator.with { simulator in
            let photo = try Uploads.photo(seed: 8)
            let wrong = try SimulatedServices.client(
                OOTOClient.self, simulator, tries: 3, extra: ["DISCERN_OOTO_APP_KEY": "not-the-key-8c1d"])
            let callsBefore = await simulator.stats.callCount("ooto")
            let refused = try #require(await wrong.outcome(photo, "identify").error)
            #expect(await simulator.stats.callCount("ooto") == callsBefore + 1, "a refused key is not asked again within the call")
            #expect(refused.kind == "auth_failed")
            #expect(refused.isRetryable && refused.serviceSignal == .down)
            #expect(!refused.message.contains("not-the-key-8c1d"))

            let ooto = try SimulatedServices.client(OOTOClient.self, simulator)
            await simulator.scripted.enqueue("ooto.identify", .init(status: 503, json: #"{"message": "Service Unavailable"}"#))
            #expect(await ooto.outcome(photo, "identify").error?.isRetryable == true)
            await simulator.scripted.enqueue("ooto.identify", .init(status: 200, json: #"{"transactionId": "x", "resu"#))
            let garbage = try #require(await ooto.outcome(photo, "identify").error)
            #expect(garbage.kind == "bad_response")
            #expect(garbage.isRetryable)

            let missing = try #require(await ooto.outcome(photo, "delete").error)
            #expect(missing.kind == "bad_params")
            #expect(await ooto.outcome(photo, "verify").error?.kind == "unsupported_action")
        }
    }
}

import AnalysisModel
import ServiceClients
import Foundation
import JobQueue
import Simulator
import TestFixtures
import Testing

/// Azure Face over real HTTP against the simulator: detect + identify, every documented error.
@Suite("Azure Face backend", .integrationTimeLimit)
struct AzureFaceClientTests {
    @Test("a candidate above the threshold is a match, one at or below it is not, [] is no face")
    func identifyOutcomes() async throws {
        try await TestSimulator.with { simulator in
            let azure = try SimulatedServices.client(AzureFaceClient.self, simulator)
            let photo = try Uploads.photo(seed: 11)

            let natural = try #require(await azure.outcome(photo, "identify").value)
            #expect(["match", "no_match"].contains(natural.outcome))
            #expect(natural.apiCalls == 3, "the group's recognition model (once per process), detect, then identify")

            let person = "11111111-2222-4333-8444-555555555555"
            for (confidence, outcome) in [(0.95, "match"), (0.9, "no_match"), (0.62, "no_match")] {
                await simulator.scripted.enqueue(
                    "azure.identify",
                    .init(
                        status: 200,
                        json:
                            #"[{"faceId": "f", "candidates": [{"personId": "\#(person)", "confidence": \#(confidence)}]}]"#))
                let result = try #require(await azure.outcome(photo, "identify").value)
                #expect(result.outcome == outcome, "confidence \(confidence)")
                #expect(result.confidence == confidence)
                #expect(result.subjectID == (outcome == "match" ? person : nil))
            }
            await simulator.scripted.enqueue("azure.identify", .init(status: 200, json: #"[{"faceId": "f", "candidates": []}]"#))
            #expect(await azure.outcome(photo, "identify").value?.outcome == "no_match")

            await simulator.scripted.enqueue("azure.detect", .init(status: 200, json: "[]"))
            let noFace = try #require(await azure.outcome(photo, "identify").value)
            #expect(noFace.outcome == "no_face")
            #expect(noFace.apiCalls == 1, "no identify call without a face")
        }
    }

    @Test("documented errors are classified: input problems dead, training and 429 retried with a wait")
    func documentedErrors() async throws {
        try await TestSimulator.with { simulator in
            let azure = try SimulatedServices.client(AzureFaceClient.self, simulator)
            let photo = try Uploads.photo(seed: 12)
            func failure(_ upload: Upload, params: String = "{}") async throws -> ServiceError {
                try #require(await azure.outcome(upload, "identify", params: params).error)
            }
            #expect(try await failure(Uploads.raw(Data(repeating: 1, count: 500))).kind == "azure_invalid_image_size")
            #expect(try await failure(Uploads.raw(Data(repeating: 1, count: 5000))).kind == "azure_invalid_image")
            #expect(try await failure(photo, params: #"{"personGroupId": "nobody"}"#).kind == "azure_person_group_not_found")
            let untrained = try await failure(photo, params: #"{"personGroupId": "discern-sim-untrained"}"#)
            #expect(untrained.kind == "azure_person_group_not_trained")
            #expect(!untrained.isRetryable)
            let training = try await failure(photo, params: #"{"personGroupId": "discern-sim-training"}"#)
            #expect(training.kind == "azure_training_not_finished")
            #expect(training.isRetryable)
            #expect(training.retryAfterSeconds == 30)

            await simulator.scripted.enqueue("azure.identify", .azureError(status: 400, code: "BadArgument", message: "Argument faceIds is invalid."))
            let badArgument = try await failure(photo)
            #expect(badArgument.kind == "azure_bad_argument")
            #expect(!badArgument.isRetryable)
            await simulator.scripted.enqueue("azure.identify", .azureError(status: 400, code: "FaceNotFound", message: "Face is not found."))
            #expect(try await failure(photo).isRetryable, "an expired faceId is cured by detecting again")
            await simulator.scripted.enqueue(
                "azure.detect", .azureError(status: 403, code: "UnsupportedFeature", message: "Feature is not supported."))
            #expect(try await failure(photo).kind == "azure_unsupported_feature")
            await simulator.scripted.enqueue(
                "azure.detect", .azureError(status: 429, code: "429", message: "Rate limit is exceeded. Try again in 7 seconds."))
            let limited = try await failure(photo)
            #expect(limited.kind == "http_429")
            #expect(limited.retryAfterSeconds == 7, "read from the message when there is no Retry-After header")

            let wrongKey = try SimulatedServices.client(AzureFaceClient.self, simulator, extra: ["DISCERN_AZURE_FACE_KEY": "wrong-key-55e"])
            let refused = try #require(await wrongKey.outcome(photo, "identify").error)
            #expect(refused.kind == "auth_failed")
            #expect(!refused.message.contains("wrong-key-55e"))
        }
    }
}

import AnalysisModel
import ServiceClients
import Foundation
import JobQueue
import Simulator
import TestFixtures
import Testing

@Suite("Landmark and Unissey backends", .integrationTimeLimit)
struct LandmarkUnisseyTests {
    @Test("landmark: the top 3 kept in rank order; unsure under the threshold; documented errors")
    func landmark() async throws {
        try await TestSimulator.with { simulator in
            let landmark = try SimulatedServices.client(LandmarkClient.self, simulator)
            let photo = try Uploads.photo(seed: 21)
            let result = try #require(await landmark.outcome(photo, "predict").value)
            let details = try #require(try JSONSerialization.jsonObject(with: Data(result.detailsJSON.utf8)) as? [String: Any])
            let predictions = try #require(details["predictions"] as? [[String: Any]])
            #expect(predictions.map { $0["rank"] as? Int } == [1, 2, 3])
            #expect(result.textIdentifiers.count == 3)
            #expect(result.subjectID == predictions[0]["label"] as? String)
            #expect(result.outcome == ((result.confidence ?? 0) < 0.55 ? "unsure" : "confident"))

            await simulator.scripted.enqueue(
                "landmark.predict",
                .init(
                    status: 200,
                    json:
                        #"{"predictions": [{"label": "B", "confidence": 0.2, "rank": 2}, {"label": "A", "confidence": 0.54, "rank": 1}, {"label": "C", "confidence": 0.1, "rank": 3}], "inferenceTimeMs": 50}"#
                ))
            let unsure = try #require(await landmark.outcome(photo, "predict").value)
            #expect(unsure.subjectID == "A")
            #expect(unsure.outcome == "unsure")

            let tooLarge = try #require(await landmark.outcome(Uploads.raw(Data(repeating: 0xFF, count: 11 * 1024 * 1024)), "predict").error)
            #expect(tooLarge.kind == "landmark_file_too_large")
            let corrupt = try #require(await landmark.outcome(Uploads.raw(Data(repeating: 7, count: 4000)), "predict").error)
            #expect(corrupt.kind == "analysis_failed", "the service's 500 is retried")
            #expect(corrupt.isRetryable)
            await simulator.scripted.enqueue(
                "landmark.predict", .init(status: 400, json: #"{"error": "Invalid file type. Only JPG and PNG are supported."}"#))
            #expect(await landmark.outcome(photo, "predict").error?.kind == "landmark_invalid_file_type")
            await simulator.scripted.enqueue("landmark.predict", .init(status: 400, json: #"{"error": "No image file provided"}"#))
            #expect(await landmark.outcome(photo, "predict").error?.kind == "landmark_no_image")
        }
    }

    @Test("unissey: the video goes as it is, with the key unprefixed; genuine or not, with the trust score")
    func unissey() async throws {
        try await TestSimulator.with { simulator in
            let unissey = try SimulatedServices.client(UnisseyClient.self, simulator)
            var outcomes: Set<String> = []
            for seed in UInt8(1)...UInt8(12) {
                let video = Uploads.raw(Uploads.video(seed: seed), contentType: "video/mp4", fileExtension: "mp4")
                let result = try #require(await unissey.outcome(video, "analyze", params: #"{"selfie_metadata": "sdk-blob"}"#).value)
                outcomes.insert(try #require(result.outcome))
                #expect(result.confidence != nil)
                #expect(result.rawResponseJSON.contains("\"metadata_received\":true"))
            }
            #expect(outcomes == ["genuine", "not_genuine"], "twelve clips show both answers")

            let notVideo = try #require(await unissey.outcome(try Uploads.photo(seed: 1), "analyze").error)
            #expect(notVideo.kind == "unissey_rejected")
            #expect(!notVideo.isRetryable)
            let wrongKey = try SimulatedServices.client(UnisseyClient.self, simulator, extra: ["DISCERN_UNISSEY_API_KEY": "bad-9f2"])
            let refused = try #require(await wrongKey.outcome(Uploads.raw(Uploads.video(), contentType: "video/mp4"), "analyze").error)
            #expect(refused.kind == "auth_failed")
        }
    }
}

import AnalysisModel
import Foundation
import JobQueue
import Simulator
import TestFixtures
import Testing

@testable import ServiceClients

/// Image Discerner over real HTTP against the simulator: both response formats, every
/// documented failure and how it is classified.
@Suite("Image Discerner backend", .integrationTimeLimit)
struct DiscernerClientTests {
    @Test("format 3.0 (entities) fills the same columns as format 2.0 for the same image")
    func bothFormats() async throws {
        let photo = try Uploads.photo(seed: 31)
        var answers: [String: Analysis] = [:]
        for format in ["2.0", "3.0"] {
            var configuration = SimulatorConfiguration()
            configuration.discernerResponseFormat = format
            answers[format] = try await TestSimulator.with(configuration) { simulator in
                let discerner = try SimulatedServices.client(DiscernerClient.self, simulator)
                return try #require(await discerner.outcome(photo, "analyze").value)
            }
        }
        let two = try #require(answers["2.0"]), three = try #require(answers["3.0"])
        #expect(three.rawResponseJSON.contains("\"entities\""))
        #expect(three.serviceOperator == two.serviceOperator)
        #expect(three.fleetID == two.fleetID)
        #expect(three.licensePlate == two.licensePlate)
        #expect(three.category == two.category)
        #expect(three.confidence == two.confidence)
        #expect(three.outcome == two.outcome)
        #expect(two.apiCalls == 2, "upload-url, analyze: the PUT to storage is not a call to the service")
    }

    @Test("a worker's memory does not grow with its uploads: latency is kept per endpoint, never per image key")
    func latencyPerEndpoint() async throws {
        try await TestSimulator.with(.unthrottled) { simulator in
            let discerner = try SimulatedServices.client(DiscernerClient.self, simulator)
            let photo = try Uploads.photo(seed: 33)
            for _ in 0..<12 { _ = try #require(await discerner.outcome(photo, "analyze").value) }
            // upload-url and analyze; the PUTs (each of the 12 to a key of its own) are not judged.
            #expect(await discerner.caller.concurrency.endpointsTracked == 2)
        }
    }

    @Test("documented failures: workflow failure, 504 and 5xx retried; a missing-field 400 is not")
    func documentedFailures() async throws {
        try await TestSimulator.with { simulator in
            let discerner = try SimulatedServices.client(DiscernerClient.self, simulator)
            let photo = try Uploads.photo(seed: 32)
            let cases: [(String, ScriptedReplies.Reply, String, Bool)] = [
                (
                    "discerner.analyze",
                    .init(
                        status: 500,
                        json: #"{"success": false, "error": "Step Functions execution failed", "execution_arn": "arn", "cause": "Lambda died"}"#),
                    "analysis_failed", true
                ),
                (
                    "discerner.analyze",
                    .init(status: 500, json: #"{"success": false, "error": "Step Functions execution timed_out", "execution_arn": "arn"}"#),
                    "analysis_failed", true
                ),
                (
                    "discerner.analyze", .init(status: 504, json: #"{"success": false, "error": "Analysis timed out", "timeout_seconds": 300}"#),
                    "timeout", true
                ),
                ("discerner.analyze", .init(status: 500, json: #"{"error": "Failed to start analysis: boom"}"#), "http_5xx", true),
                (
                    "discerner.analyze", .init(status: 400, json: #"{"error": "Missing required fields: image_key, bucket_name", "example": {}}"#),
                    "http_4xx", false
                ),
                ("discerner.upload-url", .init(status: 500, json: #"{"error": "Failed to generate upload URL: boom"}"#), "http_5xx", true),
                (
                    "discerner.upload-url", .init(status: 400, json: #"{"error": "Invalid file extension. Allowed: jpg, jpeg, png, heic, heif"}"#),
                    "http_4xx", false
                ),
                (
                    "discerner.analyze", .init(status: 200, json: #"{"success": true, "analysis_result": {"statusCode": 200, "bo"#), "bad_response",
                    true
                ),
                ("discerner.analyze", .init(status: 429, json: #"{"message": "Too Many Requests"}"#, retryAfter: 3), "http_429", true)
            ]
            for (route, reply, kind, retryable) in cases {
                await simulator.scripted.enqueue(route, reply)
                let error = try #require(await discerner.outcome(photo, "analyze").error, "\(route) \(reply)")
                #expect(error.kind == kind, "\(route): \(error.message)")
                #expect(error.isRetryable == retryable, "\(route): \(error.message)")
            }
            await simulator.scripted.enqueue("discerner.analyze", .init(status: 429, json: "{}", retryAfter: 3))
            #expect(await discerner.outcome(photo, "analyze").error?.retryAfterSeconds == 3)
        }
    }

    @Test("a transient failure is retried within the attempt, after the wait the service asked for")
    func retriedWithinTheAttempt() async throws {
        try await TestSimulator.with { simulator in
            let discerner = try SimulatedServices.client(DiscernerClient.self, simulator, tries: 3)
            await simulator.scripted.enqueue("discerner.analyze", .init(status: 503, json: #"{"message": "Service Unavailable"}"#))
            await simulator.scripted.enqueue("discerner.analyze", .init(status: 429, json: "{}", retryAfter: 1))
            let started = Date()
            let result = try #require(await discerner.outcome(try Uploads.photo(seed: 33), "analyze").value)
            #expect(Date().timeIntervalSince(started) >= 1, "the second retry waited for Retry-After")
            #expect(result.apiCalls == 4, "upload-url and three analyze calls")
            #expect(await simulator.stats.retryAfterViolations.isEmpty)
        }
    }
}

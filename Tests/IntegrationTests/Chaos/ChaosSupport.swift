import Foundation
import Imaging
import SampleImages
import JobQueue
import Postgres

/// Shared set-up for the chaos tests: many small jobs over a handful of distinct images.
enum ChaosJobs {
    static func enqueue(_ count: Int, into conninfo: String, folder: URL, batch: String = "chaos") async throws {
        let images = try (1...25).map { try folder.write(SampleImages.photo(width: 96, height: 64, seed: $0), as: "img-\($0).jpg") }
        let paths = (0..<count).map { images[$0 % images.count] }
        try await Database(conninfo: conninfo).withConnection { connection in
            try JobQueue.enqueue(connection, paths: paths, batch: batch)
            // The contract's limits (50 analyses a minute) would stretch a chaos run to half an hour.
            try connection.query("UPDATE discern.rate_limits SET per_minute = 1000000, burst = 10000")
        }
    }

    /// The repository root, for its scripts.
    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Polls until `condition` holds or `seconds` pass; returns whether it held.
    static func eventually(seconds: Double, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return try await condition()
    }
}

import Foundation
import MediaFiles

/// A temporary folder removed when the test ends, however it ends.
enum TestFolder {
    /// Test folders live under the temporary directory: the path root of test workers.
    static var roots: PathRoots {
        get throws { try PathRoots([FileManager.default.temporaryDirectory.path]) }
    }

    @discardableResult
    static func with<T>(_ body: (URL) async throws -> T) async throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("discern-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await body(url)
    }
}

extension URL {
    /// Writes `data` to a file named `name` inside this folder and returns its path.
    func write(_ data: Data, as name: String) throws -> String {
        let file = appendingPathComponent(name)
        try data.write(to: file)
        return file.path
    }
}

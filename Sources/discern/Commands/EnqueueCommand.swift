import ArgumentParser
import Foundation
import JobQueue
import Postgres

struct EnqueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue", abstract: "Add a job for each image file given, searching folders recursively.")

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "Image files or folders. Folders are searched recursively for .jpg .jpeg .png .webp .tif .tiff .heic .heif .gif files (for unissey: .mp4 .mov .webm).")
    var paths: [String]

    @Option(help: "The analysis service: discerner, ooto, azure-face, landmark, unissey.")
    var backend: String = "discerner"

    @Option(help: "The backend's action (ooto: identify, enroll, delete; azure-face: identify, detect; landmark: predict). Default: the backend's main action.")
    var action: String = "analyze"

    @Option(help: #"Per-job parameters as a JSON object, e.g. '{"personGroupId": "staff"}'."#)
    var params: String = "{}"

    @Option(help: "Group the jobs under this batch name (created if new), e.g. nightly-2026-11-22.")
    var batch: String?

    @Option(help: "Lower numbers run first.")
    var priority: Int = 0

    func validate() throws {
        guard ["discerner", "ooto", "azure-face", "landmark", "unissey"].contains(backend) else {
            throw ValidationError("--backend must be one of discerner, ooto, azure-face, landmark, unissey")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(params.utf8)), object is [String: Any] else {
            throw ValidationError("--params must be a JSON object, e.g. '{\"templateId\": \"t-1\"}'")
        }
    }

    func run() async throws {
        let files = try ImageFileFinder.find(paths, extensions: backend == "unissey" ? ImageFileFinder.videoExtensions : ImageFileFinder.extensions)
        guard !files.isEmpty else {
            throw ValidationError("no image files found under \(paths.joined(separator: ", "))")
        }
        let backend = self.backend, action = self.action, batch = self.batch, priority = self.priority, params = self.params
        let count = try await Database(conninfo: database.conninfo).withConnection { connection in
            try JobQueue.enqueue(connection, paths: files, backend: backend, action: action, batch: batch, priority: priority, paramsJSON: params)
        }
        print("enqueued \(count) job(s) for \(backend)\(batch.map { " in batch \($0)" } ?? "")")
    }
}

/// Expands files and folders into absolute image file paths, sorted.
enum ImageFileFinder {
    static let extensions: Set<String> = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "heic", "heif", "gif"]
    static let videoExtensions: Set<String> = ["mp4", "mov", "webm", "m4v"]

    static func find(_ paths: [String], extensions: Set<String> = Self.extensions) throws -> [String] {
        var found: [String] = []
        let manager = FileManager.default
        for path in paths {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw ValidationError("\(path) does not exist")
            }
            guard isDirectory.boolValue else {
                found.append(url.path)  // named explicitly: taken whatever its extension
                continue
            }
            let walker = manager.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
            while let file = walker?.nextObject() as? URL {
                if extensions.contains(file.pathExtension.lowercased()),
                   (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                    found.append(file.standardizedFileURL.path)
                }
            }
        }
        return found.sorted()
    }
}

import Foundation

struct SourceFileError: Error {
    let kind: String
    let message: String
}

/// Checks that a job's image is a regular file the worker can see, so a wrong path gets a
/// message that says so rather than a decoder error.
enum SourceFile {
    static func check(_ path: String) throws {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw SourceFileError(kind: "file_not_found", message: "\(path) does not exist or cannot be seen by the worker (moved, deleted, or not mounted on this machine?)")
        }
        if let type = attributes[.type] as? FileAttributeType, type != .typeRegular {
            throw SourceFileError(kind: "file_not_regular", message: "\(path) is not a regular file")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw SourceFileError(kind: "file_unreadable", message: "\(path) is not readable by the worker's user")
        }
    }
}

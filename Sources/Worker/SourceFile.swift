import Foundation

struct SourceFileError: Error {
    let kind: String
    let message: String
}

/// Reads a job's image from disk, refusing oversized files before reading them.
enum SourceFile {
    static func read(_ path: String, maxBytes: Int) throws -> Data {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw SourceFileError(kind: "file_not_found", message: "\(path) does not exist or cannot be seen by the worker (moved, deleted, or not mounted on this machine?)")
        }
        if let type = attributes[.type] as? FileAttributeType, type != .typeRegular {
            throw SourceFileError(kind: "file_not_regular", message: "\(path) is not a regular file")
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maxBytes else {
            throw SourceFileError(kind: "image_source_too_large", message: "\(path) is \(size) bytes; the limit for source files is \(maxBytes)")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SourceFileError(kind: "file_unreadable", message: "\(path) cannot be read: \(error.localizedDescription)")
        }
    }
}

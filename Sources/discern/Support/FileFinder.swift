import ArgumentParser
import Foundation

/// Expands files and folders into absolute paths of the files to enqueue, sorted.
///
/// Folders are searched recursively for the given extensions; hidden files and folders are
/// skipped. `--include` / `--exclude` globs (fnmatch(3); `*` also crosses `/`) are matched
/// against the path relative to the folder given and against the file name. A file named
/// explicitly is taken whatever its extension, but the globs still apply.
struct FileFinder {
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "heic", "heif", "gif"]
    static let videoExtensions: Set<String> = ["mp4", "mov", "webm", "m4v"]

    var extensions: Set<String> = Self.imageExtensions
    var include: [String] = []
    var exclude: [String] = []

    func find(_ paths: [String]) throws -> [String] {
        var found: [String] = []
        let manager = FileManager.default
        for path in paths {
            let root = URL(fileURLWithPath: path).standardizedFileURL
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: root.path, isDirectory: &isDirectory) else {
                throw ValidationError("\(path) does not exist")
            }
            guard isDirectory.boolValue else {
                if wanted(relative: root.lastPathComponent, name: root.lastPathComponent) { found.append(root.path) }
                continue
            }
            let walker = manager.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
            while let file = walker?.nextObject() as? URL {
                guard extensions.contains(file.pathExtension.lowercased()),
                      (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
                let absolute = file.standardizedFileURL.path
                let relative = absolute.hasPrefix(root.path + "/") ? String(absolute.dropFirst(root.path.count + 1)) : file.lastPathComponent
                if wanted(relative: relative, name: file.lastPathComponent) { found.append(absolute) }
            }
        }
        return Array(Set(found)).sorted()
    }

    private func wanted(relative: String, name: String) -> Bool {
        func matches(_ pattern: String) -> Bool { fnmatch(pattern, relative, 0) == 0 || fnmatch(pattern, name, 0) == 0 }
        if !include.isEmpty && !include.contains(where: matches) { return false }
        return !exclude.contains(where: matches)
    }
}

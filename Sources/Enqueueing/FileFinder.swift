import Foundation
import MediaFiles

/// Expands files and folders into absolute paths of the files to enqueue: all at once, sorted
/// (`find`), or streamed a chunk at a time (`walk`).
///
/// Folders are searched recursively for the given extensions; hidden files and folders are
/// skipped. `--include` / `--exclude` globs (fnmatch(3); `*` also crosses `/`) are matched
/// against the path relative to the folder given and against the file name. A file named
/// explicitly is taken whatever its extension, if its first bytes are an image (or a video).
///
/// The workers' trust rule applies here too: only files that lie under the path roots once
/// every symlink is resolved (`DISCERN_PATH_ROOTS`; without it, under the folders named) are
/// enqueued, so a symlink in a photo folder cannot queue /etc/shadow.
public struct FileFinder: Sendable {
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "heic", "heif", "gif"]
    public static let videoExtensions: Set<String> = ["mp4", "mov", "webm", "m4v"]

    public var extensions: Set<String> = Self.imageExtensions
    public var include: [String] = []
    public var exclude: [String] = []
    /// Where files may lie; nil: under the folders (or next to the files) named.
    public var roots: PathRoots?

    public init(extensions: Set<String> = Self.imageExtensions, include: [String] = [], exclude: [String] = [], roots: PathRoots? = nil) {
        self.extensions = extensions
        self.include = include
        self.exclude = exclude
        self.roots = roots
    }

    /// Every file, sorted, at once: for a few thousand files. `walk` streams any number.
    public func find(_ paths: [String]) throws -> [String] {
        let walk = try self.walk(paths)
        var found: [String] = []
        while let chunk = try walk.next(upTo: 10_000) { found += chunk }
        return found.sorted()
    }

    /// A walk over `paths` that hands out files a chunk at a time (`FileWalk.next`), so memory
    /// stays bounded whatever the tree holds. The paths are checked here, before any is walked.
    public func walk(_ paths: [String]) throws -> FileWalk {
        var starts: [FileWalk.Start] = []
        let manager = FileManager.default
        for path in paths {
            let root = URL(fileURLWithPath: path).standardizedFileURL
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: root.path, isDirectory: &isDirectory) else {
                throw EnqueueError(.badPath, "\(path) does not exist")
            }
            let allowed = try roots ?? PathRoots([isDirectory.boolValue ? root.path : root.deletingLastPathComponent().path])
            guard allowed.admitsLexically(root.path) else {
                throw EnqueueError(.badPath, "\(path) is not under the path roots (\(allowed.description))")
            }
            if !isDirectory.boolValue {
                guard (try? allowed.open(root.path)).map(isMedia) == true else {
                    throw EnqueueError(
                        .badPath,
                        "\(path) is not \(extensions == Self.videoExtensions ? "a video" : "an image") discern can send (or not a regular file under the path roots)"
                    )
                }
            }
            starts.append(FileWalk.Start(url: root, isFolder: isDirectory.boolValue, allowed: allowed))
        }
        // A folder or file inside another folder given is walked once, as part of that folder.
        let folders = starts.filter(\.isFolder).map { $0.url.path }
        let unique = starts.enumerated().filter { index, start in
            !folders.contains { $0 != start.url.path && start.url.path.hasPrefix($0 == "/" ? "/" : $0 + "/") }
                && !starts[..<index].contains { $0.url.path == start.url.path }
        }.map(\.element)
        return FileWalk(finder: self, starts: unique)
    }

    /// Whether a file found in a folder is one to enqueue (extension, path roots, globs). A
    /// symlink is not: workers never follow one (`PathRoots.open`).
    func accepts(_ file: URL, under start: FileWalk.Start) -> Bool {
        let absolute = file.standardizedFileURL.path
        var info = stat()
        guard extensions.contains(file.pathExtension.lowercased()), lstat(absolute, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return false
        }
        guard let resolved = realpath(absolute, nil) else { return false }
        defer { free(resolved) }
        guard start.allowed.admitsResolved(String(cString: resolved)) else { return false }
        let root = start.url.path
        let relative = absolute.hasPrefix(root + "/") ? String(absolute.dropFirst(root.count + 1)) : file.lastPathComponent
        return wanted(relative: relative, name: file.lastPathComponent)
    }

    private func isMedia(_ file: OpenedFile) -> Bool {
        guard let head = try? file.read(at: 0, count: 32) else { return false }
        return extensions == Self.videoExtensions ? VideoContainer.sniff(head) != nil : ImageFormat.sniff(head) != nil
    }

    /// A glob matches the relative path, the same path with a leading `/` (so `*/thumbs/*`
    /// also takes a `thumbs/` right under the folder given), or the file name.
    func wanted(relative: String, name: String) -> Bool {
        func matches(_ pattern: String) -> Bool {
            fnmatch(pattern, relative, 0) == 0 || fnmatch(pattern, "/" + relative, 0) == 0 || fnmatch(pattern, name, 0) == 0
        }
        if !include.isEmpty && !include.contains(where: matches) { return false }
        return !exclude.contains(where: matches)
    }
}

import Foundation
import MediaFiles

/// One walk over the files and folders given to `FileFinder.walk`, handed out a chunk at a
/// time in the order the folders are read (each chunk sorted). It reads directories, so it
/// blocks: call `next` from one dedicated thread, never from the cooperative pool, and from
/// one thread only (the enumerator is not thread-safe; hence `@unchecked Sendable`).
public final class FileWalk: @unchecked Sendable {
    struct Start {
        let url: URL
        let isFolder: Bool
        let allowed: PathRoots
    }

    private let finder: FileFinder
    private var starts: [Start]
    private var current: (start: Start, enumerator: FileManager.DirectoryEnumerator?)?

    /// The roots the walk's files lie under: what their contents may be read through.
    public let roots: PathRoots
    /// Photos (by their extension) and folders whose names are not UTF-8 (a camera card or an
    /// old share in Latin-1): a path is text in the queue, so they cannot be enqueued. How many, and the first, with its odd
    /// bytes shown as U+FFFD. Read once the walk is over.
    public private(set) var unnamable = 0
    public private(set) var firstUnnamable: String?

    init(finder: FileFinder, starts: [Start]) {
        self.finder = finder
        self.starts = starts.reversed()
        roots = PathRoots(merging: starts.map(\.allowed))
    }

    /// Up to `limit` more files; nil once the walk is over.
    public func next(upTo limit: Int) throws -> [String]? {
        var chunk: [String] = []
        while chunk.count < max(1, limit) {
            if current == nil {
                guard let start = starts.popLast() else { break }
                if !start.isFolder {
                    if finder.wanted(relative: start.url.lastPathComponent, name: start.url.lastPathComponent) { chunk.append(start.url.path) }
                    continue
                }
                current = (
                    start,
                    FileManager.default.enumerator(
                        at: start.url, includingPropertiesForKeys: [.isRegularFileKey],
                        options: [.skipsHiddenFiles])
                )
            }
            guard let (start, enumerator) = current, let file = enumerator?.nextObject() as? URL else {
                current = nil
                continue
            }
            if finder.accepts(file, under: start) {
                chunk.append(file.standardizedFileURL.path)
            } else if Self.hasUndecodableName(file), file.pathExtension.isEmpty || finder.extensions.contains(file.pathExtension.lowercased()) {
                unnamable += 1
                firstUnnamable = firstUnnamable ?? file.path
            }
        }
        return chunk.isEmpty ? nil : chunk.sorted()
    }

    /// Foundation hands out a name that is not UTF-8 with U+FFFD in place of its odd bytes: a
    /// path that names nothing. (A real name may hold U+FFFD itself; that one exists.)
    static func hasUndecodableName(_ file: URL) -> Bool {
        var info = stat()
        return file.lastPathComponent.contains("\u{FFFD}") && lstat(file.path, &info) != 0
    }
}

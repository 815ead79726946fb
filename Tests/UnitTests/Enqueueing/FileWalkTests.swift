import Enqueueing
import Foundation
import Imaging
import MediaFiles
import SampleImages
import TestFixtures
import Testing

/// `discern enqueue` streams: the walk hands out files a chunk at a time, each file once.
@Suite("File walk")
struct FileWalkTests {
    /// A folder with `count` photos under `day-N/`, removed afterwards however the test ends.
    private func withPhotos<T>(_ count: Int, _ body: (URL) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-walk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = try SampleImages.photo(width: 16, height: 16, seed: 1)
        for index in 0..<count {
            let day = folder.appendingPathComponent("day-\(index % 3)")
            try FileManager.default.createDirectory(at: day, withIntermediateDirectories: true)
            try photo.write(to: day.appendingPathComponent("p\(index).jpg"))
        }
        return try body(folder)
    }

    @Test("chunks of at most the size asked, every file once, the same files as find")
    func chunksCoverEverything() throws {
        try withPhotos(25) { folder in
            let walk = try FileFinder().walk([folder.path])
            var chunks: [[String]] = []
            while let chunk = try walk.next(upTo: 4) { chunks.append(chunk) }
            #expect(chunks.allSatisfy { $0.count <= 4 })
            #expect(chunks.flatMap { $0 }.count == 25)
            #expect(chunks.flatMap { $0 }.sorted() == (try FileFinder().find([folder.path])))
            #expect(try walk.next(upTo: 4) == nil, "a finished walk stays finished")
        }
    }

    @Test("a name that is not UTF-8 (Latin-1 from an old share) is counted and named, not dropped in silence; the rest are found")
    func namesThatAreNotUTF8() throws {
        try withPhotos(2) { folder in
            let latin1 = folder.path + "/day-0/caf" + String(decoding: [0xE9] as [UInt8], as: UTF8.self) + ".jpg"
            let raw = (Array((folder.path + "/day-0/caf").utf8) + [0xE9] + Array(".jpg".utf8) + [0]).map { CChar(bitPattern: $0) }
            let notes = (Array((folder.path + "/day-0/caf").utf8) + [0xE9] + Array(".txt".utf8) + [0]).map { CChar(bitPattern: $0) }
            for name in [raw, notes] {
                let made = open(name, O_CREAT | O_WRONLY, 0o644)
                #expect(made >= 0)
                close(made)
            }
            let walk = try FileFinder().walk([folder.path])
            var found: [String] = []
            while let chunk = try walk.next(upTo: 10) { found += chunk }
            #expect(found.count == 2)
            // The .txt would not have been taken whatever its name: it is not counted.
            #expect(walk.unnamable == 1 && walk.firstUnnamable == latin1, "\(walk.unnamable) \(walk.firstUnnamable ?? "-")")
        }
    }

    @Test("a folder or file inside another folder given is walked once")
    func nestedStartsOnce() throws {
        try withPhotos(9) { folder in
            let inner = folder.appendingPathComponent("day-1")
            let file = folder.appendingPathComponent("day-2/p2.jpg")
            let found = try FileFinder().find([folder.path, inner.path, file.path, folder.path])
            #expect(found.count == 9)
            #expect(Set(found).count == 9)
        }
    }

    @Test("a file swapped for a FIFO or a link to /dev/zero between the walk and the hash is skipped at once, not waited on")
    func hashingNeverHangs() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-hash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = folder.appendingPathComponent("real.jpg")
        try SampleImages.photo(width: 16, height: 16, seed: 2).write(to: photo)
        let fifo = folder.appendingPathComponent("was-a-photo.jpg").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let zero = folder.appendingPathComponent("zero.jpg").path
        try FileManager.default.createSymbolicLink(atPath: zero, withDestinationPath: "/dev/zero")
        let digests = try await ContentHasher.sha256([photo.path, fifo, zero], roots: try PathRoots([folder.path]), threads: 2) { _ in }
        guard case .success(let hex) = digests[0] else { Issue.record("the photo was not hashed: \(digests[0])"); return }
        #expect(hex.count == 64)
        guard case .failure(let notRegular) = digests[1], case .failure(let link) = digests[2] else {
            Issue.record("\(digests)")
            return
        }
        #expect(notRegular.description.contains("not a regular file"), "\(notRegular)")
        #expect(link.description.contains("symbolic link"), "\(link)")
        // The walk does not hand them out in the first place.
        #expect(try FileFinder().find([folder.path]) == [photo.standardizedFileURL.path])
    }

    @Test("a file over the source limit (a sparse giant) is neither hashed nor decoded for its look: skipped at once, with its size")
    func giantsAreNotRead() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-giant-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = folder.appendingPathComponent("real.jpg")
        try SampleImages.photo(width: 16, height: 16, seed: 2).write(to: photo)
        // 1 TB of holes: reading it through would take hours.
        let giant = folder.appendingPathComponent("giant.jpg")
        #expect(FileManager.default.createFile(atPath: giant.path, contents: Data([0xFF, 0xD8, 0xFF])))
        let handle = try FileHandle(forWritingTo: giant)
        try handle.truncate(atOffset: 1 << 40)
        try handle.close()
        let roots = try PathRoots([folder.path])
        let digests = try await ContentHasher.sha256([photo.path, giant.path], roots: roots, threads: 2, maxBytes: ImagePolicy().maxSourceBytes) {
            _ in
        }
        guard case .success = digests[0], case .failure(let skipped) = digests[1] else { Issue.record("\(digests)"); return }
        #expect(skipped.description.contains("1099511627776 bytes") && skipped.description.contains("limit"), "\(skipped)")
        #expect(throws: ImagingError.self) { try PerceptualHash.of(try roots.open(giant.path)) }
    }
}

import ErrorCodes
import ServiceClients
import Foundation
import Imaging
import MediaFiles
import SampleImages
import TestFixtures
import Testing

@Suite("Image preparation")
struct ImagePreparerTests {
    let preparer = ImagePreparer(policy: .discerner)

    @Test("a compliant JPEG is passed through byte for byte")
    func passThrough() throws {
        let photo = try SampleImages.photo(width: 800, height: 600, seed: 1)
        let prepared = try preparer.prepare(photo)
        #expect(prepared.passedThrough)
        #expect(prepared.data == photo)
        #expect(prepared.encodeCount == 0)
        #expect(prepared.original.width == 800 && prepared.original.height == 600)
    }

    @Test("an image over the byte budget comes out under it, as JPEG")
    func fitsBudget() throws {
        let noisy = try SampleImages.noise(width: 1200, height: 900)
        var policy = ImagePolicy.discerner
        policy.maxBytes = noisy.count / 3
        let prepared = try ImagePreparer(policy: policy).prepare(noisy)
        #expect(!prepared.passedThrough)
        #expect(prepared.bytes <= policy.maxBytes)
        #expect(prepared.format == .jpeg)
        #expect(ImageFormat.sniff(prepared.data) == .jpeg)
    }

    @Test("an image that fits only after downscaling is downscaled")
    func downscalesWhenQualityIsNotEnough() throws {
        let noisy = try SampleImages.noise(width: 1200, height: 900)
        var policy = ImagePolicy.discerner
        policy.maxBytes = 60_000
        let prepared = try ImagePreparer(policy: policy).prepare(noisy)
        #expect(prepared.bytes <= 60_000)
        #expect(prepared.width < 1200)
    }

    @Test("images larger than the maximum dimension are shrunk to it")
    func maxDimension() throws {
        var policy = ImagePolicy.discerner
        policy.maxDimension = 500
        let prepared = try ImagePreparer(policy: policy).prepare(try SampleImages.photo(width: 1000, height: 400, seed: 2))
        #expect(prepared.width == 500)
        #expect(prepared.height == 200)
    }

    @Test(
        "bad input is a clear, permanent error",
        arguments: [
            (Data(), ImagingError.Code.empty),
            (Data("hello, this is text named .jpg".utf8), .unsupportedFormat),
            (Data("%PDF-1.7\n".utf8), .unsupportedFormat),
            (Data("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), .unsupportedFormat),
            (Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0, count: 100), .undecodable)
        ])
    func badInput(data: Data, code: ImagingError.Code) throws {
        let error = try #require(throws: ImagingError.self) { try preparer.prepare(data) }
        #expect(error.code == code)
        #expect(error.kind.retry != .yes)
        #expect(!error.message.isEmpty)
    }

    @Test("a truncated JPEG is not passed through")
    func truncatedJPEG() throws {
        let photo = try SampleImages.photo(width: 800, height: 600, seed: 4)
        let truncated = photo.prefix(photo.count / 2)
        let error = try #require(throws: ImagingError.self) { try preparer.prepare(Data(truncated)) }
        #expect([.truncated, .undecodable].contains(error.code))
    }

    @Test("pixel counts over the limit are refused from the header")
    func decompressionBombGuard() throws {
        var policy = ImagePolicy.discerner
        policy.maxSourcePixels = 100_000
        let error = try #require(throws: ImagingError.self) {
            try ImagePreparer(policy: policy).prepare(try SampleImages.photo(width: 400, height: 300, seed: 5))
        }
        #expect(error.code == .tooManyPixels)
    }
}

@Suite("Format sniffing")
struct ImageFormatTests {
    @Test(
        "formats are recognised from their first bytes",
        arguments: [
            ([0xFF, 0xD8, 0xFF, 0xDB], ImageFormat?.some(.jpeg)),
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png),
            (Array("GIF89a".utf8), .gif),
            (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8), .webp),
            ([0x49, 0x49, 0x2A, 0x00], .tiff),
            ([0, 0, 0, 24] + Array("ftypheic".utf8), .heif),
            (Array("BM".utf8) + [0, 0], nil),
            (Array("<?xml".utf8), nil)
        ] as [([UInt8], ImageFormat?)])
    func sniff(bytes: [UInt8], expected: ImageFormat?) {
        #expect(ImageFormat.sniff(bytes) == expected)
    }
}

@Suite("Image preparation from files")
struct FilePreparationTests {
    @Test("a file is prepared as its bytes would be, whatever its name")
    func fileMatchesMemory() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-prep-\(UUID().uuidString)/odd [name]")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        var policy = ImagePolicy.discerner
        policy.maxDimension = 600
        for (name, data) in [
            ("small[1].jpg", try SampleImages.photo(width: 500, height: 400, seed: 3)),
            ("large]", try SampleImages.photo(width: 1200, height: 800, seed: 4))
        ] {
            let file = folder.appendingPathComponent(name)
            try data.write(to: file)
            let fromFile = try ImagePreparer(policy: policy).prepare(path: file.path)
            let fromMemory = try ImagePreparer(policy: policy).prepare(data)
            #expect(fromFile.data == fromMemory.data)
            #expect(fromFile.passedThrough == (name == "small[1].jpg"))
        }
    }

    @Test("a missing file is a file-not-found error, not retried")
    func missingFile() {
        let error = #expect(throws: ImagingError.self) { try ImagePreparer(policy: .discerner).prepare(path: "/nonexistent/x.jpg") }
        #expect(error?.code == .fileNotFound)
        #expect(error?.kind.retry != .yes)
    }
}

@Suite("Shrink-on-load box")
struct ShrinkOnLoadTests {
    @Test(
        "JPEG takes a free 1/2, 1/4 or 1/8 decode when it lands within 10 % under the limit",
        arguments: [
            (8000, ImageFormat.jpeg, 4000), (6000, .jpeg, 4096), (4096, .jpeg, 4096), (3000, .jpeg, 3000),
            (16000, .jpeg, 4000), (8000, .png, 4096), (7999, .jpeg, 4000)
        ])
    func box(longest: Int, format: ImageFormat, expected: Int) {
        #expect(ImagePreparer.shrinkOnLoadBox(longest: longest, format: format, maxDimension: 4096) == expected)
    }

    @Test(
        "with a floor, an image re-encoded anyway is decoded at the smallest free scale that keeps the floor",
        arguments: [
            (4000, ImageFormat.jpeg, 2000), (3000, .jpeg, 3000), (6000, .jpeg, 3000), (8000, .jpeg, 2000), (16000, .jpeg, 2000),
            (4000, .png, 4000), (20000, .png, 4096)
        ])
    func boxWithFloor(longest: Int, format: ImageFormat, expected: Int) {
        #expect(ImagePreparer.shrinkOnLoadBox(longest: longest, format: format, maxDimension: 4096, floor: 1600) == expected)
    }

    @Test("a JPEG to re-encode is decoded once, at the 1/2^n scale it is sent at, and encoded once")
    func decodedAtTheScaleSent() throws {
        let photo = try SampleImages.photo(width: 3200, height: 2400, seed: 5)
        var policy = ImagePolicy.discerner
        policy.maxDimension = 3000
        let prepared = try ImagePreparer(policy: policy).prepare(photo)
        #expect(!prepared.passedThrough && prepared.encodeCount == 1)
        #expect(prepared.width == 1600 && prepared.height == 1200, "1/2 scale is the smallest at or over the 1600 px floor")
    }

    @Test(
        "libjpeg's scale for a box: the largest whose result still covers it",
        arguments: [
            (6000, 3000, 2), (8000, 2000, 4), (4000, 500, 8), (6000, 4096, 1), (5000, 2500, 2), (4001, 2001, 2)
        ])
    func jpegShrink(longest: Int, box: Int, expected: Int) {
        #expect(ImagePreparer.jpegShrink(longest: longest, box: box) == expected)
    }

    @Test("memory is reserved by what each path holds: a pass-through its bytes, a re-encode its pixels at the sent size")
    func memoryByPath() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-estimate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let small = folder.appendingPathComponent("small.jpg"), large = folder.appendingPathComponent("large.jpg")
        try SampleImages.photo(width: 1600, height: 1200, seed: 2).write(to: small)
        try SampleImages.photo(width: 6400, height: 4800, seed: 3).write(to: large)
        let smallFile = try OpenedFile.named(small.path), largeFile = try OpenedFile.named(large.path)
        #expect(
            try ImagePreparer(policy: .discerner).memoryEstimate(file: smallFile) == smallFile.size + (1 << 20),
            "sent as it is: its bytes and the read window")
        // 6400x4800 over 4096 px: decoded at 1/4, 1600x1200, three bytes a pixel, the encoder's
        // output (at most that again), libvips' buffers and the window: 28 MB, not the 75 MB of
        // 4 bytes a pixel at 4096 px plus twice the budget.
        let decoded = 1600 * 1200 * 3
        #expect(try ImagePreparer(policy: .discerner).memoryEstimate(file: largeFile) == 2 * decoded + ImagePreparer.libvipsWorkingBytes + (1 << 20))
    }

    @Test("a libvips message names the file by its path, not by the descriptor libvips was given")
    func messagesNameThePath() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("discern-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // An ftyp box and nothing a HEIF decoder can use: libheif's message names the file.
        let bad = folder.appendingPathComponent("bad.heic")
        try Data([0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heicgarbagegarbage".utf8)).write(to: bad)
        let error = try #require(throws: ImagingError.self) { try ImagePreparer(policy: .discerner).prepare(path: bad.path) }
        #expect(!error.message.contains("/proc/self/fd") && error.message.contains(bad.path), "\(error.message)")
    }
}

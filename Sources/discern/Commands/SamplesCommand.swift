import ArgumentParser
import Foundation
import SampleImages

struct SamplesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples",
        abstract: "Generate photo-like images with libvips, for the demo, for benchmarks and for trying discern out.",
        discussion: "Without --size, writes the demo's mix of sizes plus one image over the 10 MB budget.")

    @Argument(help: "Folder to write into (created if missing).")
    var folder: String

    @Option(help: "How many images.")
    var count: Int = 6

    @Option(help: "Width x height of every image, e.g. 6000x4000.")
    var size: String?

    @Option(help: "Film grain (Gaussian noise sigma, grey levels); real photos are near 6-12.")
    var grain: Double = 0

    @Option(help: "JPEG quality.")
    var quality: Int = 90

    @Option(help: "File type: jpg, png, heic, webp, tif.")
    var format: String = "jpg"

    @Flag(help: "Add transparency (png, webp, tif, heic).")
    var alpha = false

    @Option(help: "File name prefix.")
    var prefix: String = "sample"

    @Option(help: "First seed; images differ by seed.")
    var seed: Int = 1

    func validate() throws {
        guard (1...100_000).contains(count) else { throw ValidationError("--count must be from 1 to 100000") }
        guard grain.isFinite, (0...255).contains(grain) else { throw ValidationError("--grain must be from 0 to 255") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be from 1 to 100") }
        guard (0...1_000_000).contains(seed) else { throw ValidationError("--seed must be from 0 to 1000000") }
    }

    func run() async throws {
        let command = self
        try await OneShotThread.run { try command.generate() }
    }

    private func generate() throws {
        let directory = URL(fileURLWithPath: folder)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard let size else { return try writeDemoSet(directory) }
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts.allSatisfy({ (1...65535).contains($0) }) else {
            throw ValidationError("--size takes WIDTHxHEIGHT (1-65535 each), e.g. 6000x4000")
        }
        for index in 0..<count {
            let data =
                format == "jpg" || format == "jpeg"
                ? try SampleImages.photo(width: parts[0], height: parts[1], seed: seed + index, grain: grain, quality: quality)
                : try SampleImages.photo(width: parts[0], height: parts[1], seed: seed + index, grain: grain, suffix: "." + format, alpha: alpha)
            try write(data, named: String(format: "%@-%03d.%@", prefix, index + 1, format), in: directory, size: "\(parts[0])x\(parts[1])")
        }
    }

    private func writeDemoSet(_ directory: URL) throws {
        let sizes = [(1600, 1200), (4000, 3000), (1200, 1600), (6000, 4000), (800, 600), (3000, 2000)]
        for index in 0..<count {
            let (width, height) = sizes[index % sizes.count]
            let data = try SampleImages.photo(width: width, height: height, seed: index + 1)
            try write(data, named: String(format: "sample-%03d.jpg", index + 1), in: directory, size: "\(width)x\(height)")
        }
        // One image over the 10 MB budget, so the demo shows preparation at work.
        try write(try SampleImages.noise(width: 3000, height: 2400), named: "sample-large-noise.jpg", in: directory, size: "3000x2400")
    }

    private func write(_ data: Data, named name: String, in directory: URL, size: String) throws {
        let file = directory.appendingPathComponent(name)
        try data.write(to: file)
        print("\(file.path)  \(size)  \(data.count / 1024) KB")
    }
}
